/**
 * Parsers for option values. Each names its flag in the error, so a typo
 * says which flag and what is accepted.
 */
import { UserError } from '../errors.ts';

/** The --db help of every command. */
export const DB_HELP = 'results database (default: $HINTLAB_DB or ~/.local/share/hintlab/hintlab.db)';

/** An integer >= min (and <= max when given, with the reason for the bound), e.g. `--rounds 15`. */
export function intOption(flag: string, min: number, max?: { value: number; why: string }): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new UserError(`${flag} must be an integer >= ${min}, got '${value}'`, 2);
    }
    if (max && n > max.value) throw new UserError(`${flag} must be at most ${max.value} (${max.why}), got '${value}'`, 2);
    return n;
  };
}

/** Control characters (C0, DEL, C1) and Unicode line breaks: they break tables and stored command lines. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * The longest label: a label heads table columns and compare's lines and
 * is typed back on the command line; 64 characters name any kernel, patch
 * or box, and keep a table readable.
 */
export const LABEL_MAX = 64;

/**
 * A label, e.g. `--label A`: printable text on one line, at most
 * LABEL_MAX characters. Empty is refused unless `allowEmpty` (a prefix may
 * be empty; a name may not).
 */
export function labelOption(flag: string, allowEmpty = false): (value: string) => string {
  return (value: string) => {
    if (!allowEmpty && value.trim() === '') throw new UserError(`${flag} is empty: give a name such as A, B or A2`, 2);
    if (Array.from(value).length > LABEL_MAX) {
      throw new UserError(`${flag} is ${Array.from(value).length} characters long; a label is at most ${LABEL_MAX} (it heads table columns and compare's lines): give a shorter name`, 2);
    }
    const bad = CONTROL.exec(value);
    if (bad) {
      const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      throw new UserError(`${flag} '${JSON.stringify(value).slice(1, -1)}' contains a control character (${code}, e.g. a newline or tab); use printable characters on one line`, 2);
    }
    return value;
  };
}

/** Collect a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A plain decimal: digits with an optional fraction. `0x10`, `1e-9`, `Infinity` and `+2` are not. */
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;

/**
 * A percentage such as `1%`, `0.5 %` or `2`, bounded below (by 0, or by
 * `min` when given); names the flag when rejected. Only plain decimals are
 * read: `0x10` is not 16 % and `1e-9` is not a percentage anyone types.
 */
export function pctOption(flag: string, example: string, allowZero: boolean, min?: { value: number; why: string }): (value: string) => number {
  return (value: string) => {
    const text = value.trim().replace(/\s*%$/, '');
    const n = Number(text);
    if (!DECIMAL.test(text) || n < 0 || (n === 0 && !allowZero) || n >= 100) {
      throw new UserError(
        `${flag} must be a percentage ${allowZero ? '>= 0' : '> 0'} and below 100 written as a plain decimal, such as ${example}; got '${value}'`,
        2,
      );
    }
    if (min && n < min.value) throw new UserError(`${flag} must be at least ${min.value} % (${min.why}), such as ${example}; got '${value}'`, 2);
    return n;
  };
}
