/**
 * Checks for JSON documents hintlab reads back (codegen --json, hints
 * --format json): each check returns the value with its type narrowed, or
 * throws a ShapeError naming the JSON path and what was expected there. The
 * loader that called it adds the file name and the fix (`checkDocument`).
 */
import { UserError } from './errors.ts';

/** A JSON path (`cells[2].opt`) and what was wrong there. */
export class ShapeError extends Error {
  constructor(
    readonly where: string,
    readonly what: string,
  ) {
    super(`${where}: ${what}`);
  }
}

export type JsonRecord = Record<string, unknown>;

/** A short description of a JSON value, for "expected X, got Y". */
export function describeJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}...` : v}'`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'function') return 'a function';
  return `${v as number | boolean | undefined}`;
}

function fail(where: string, expected: string, v: unknown): never {
  throw new ShapeError(where, `expected ${expected}, got ${describeJson(v)}`);
}

export function record(v: unknown, where: string): JsonRecord {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(where, 'an object', v);
  return v as JsonRecord;
}

export function array(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) fail(where, 'an array', v);
  return v;
}

export function string(v: unknown, where: string): string {
  if (typeof v !== 'string') fail(where, 'a string', v);
  return v;
}

/** A finite, non-negative number (counts, sizes, shares). */
export function count(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(where, 'a non-negative number', v);
  return v;
}

export function oneOf<T extends string>(v: unknown, allowed: readonly T[], where: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) fail(where, `one of ${allowed.join(', ')}`, v);
  return v as T;
}

/** An array of strings. */
export function strings(v: unknown, where: string): string[] {
  return array(v, where).map((s, i) => string(s, `${where}[${i}]`));
}

/** Check every element of an array with `check(element, path)`. */
export function each<T>(v: unknown, where: string, check: (x: unknown, at: string) => T): T[] {
  return array(v, where).map((x, i) => check(x, `${where}[${i}]`));
}

/**
 * Run `check` over a parsed document, turning a ShapeError into a UserError
 * naming the file: "x.json is not <what> (cells[0].opt: expected ...); <fix>".
 */
export function checkDocument<T>(doc: unknown, file: string, what: string, fix: string, check: (r: JsonRecord) => T): T {
  try {
    return check(record(doc, 'the document'));
  } catch (err) {
    if (err instanceof ShapeError) throw new UserError(`${file} is not ${what} (${err.message}); ${fix}`);
    throw err;
  }
}
