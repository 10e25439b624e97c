/**
 * Parsers for option values. Each names its flag in the error, so a typo
 * says which flag and what is accepted.
 */
import { UserError } from './io.ts';

/** An integer >= min, e.g. `--rounds 15`. */
export function intOption(flag: string, min: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new UserError(`${flag} must be an integer >= ${min}, got '${value}'`, 2);
    }
    return n;
  };
}

/** Collect a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A percentage such as `1%`, `0.5 %` or `2`, bounded below; names the flag when rejected. */
export function pctOption(flag: string, example: string, allowZero: boolean): (value: string) => number {
  return (value: string) => {
    const text = value.trim().replace(/\s*%$/, '');
    const n = Number(text);
    if (text === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !allowZero) || n >= 100) {
      throw new UserError(
        `${flag} must be a percentage ${allowZero ? '>= 0' : '> 0'} and below 100, such as ${example}; got '${value}'`,
        2,
      );
    }
    return n;
  };
}
