/**
 * Reading gcov's JSON intermediate format (`gcov --json-format`, written as
 * `<file>.gcov.json.gz`; format_version 1 from GCC 9 to 13, 2 from GCC 14,
 * which adds `conditions` and `calls` that are ignored here).
 *
 * Only lines and branch arcs are used. Arcs are listed only when gcov ran
 * with `-b`; line counts alone are enough for most `if`s.
 */
import { readFileSync, statSync } from 'node:fs';
import { printable, UserError } from '../errors.ts';
import { gunzipCapped, mib } from '../gunzip.ts';

/**
 * The largest gcov JSON file read, compressed or not: gcov writes one per
 * source file, and the largest of a whole-kernel profile of Linux 6.12
 * (kernel/sched/build_policy.c with everything it includes) is a few MiB.
 */
export const MAX_GCOV_JSON_BYTES = 256 * 2 ** 20;

/** The format_version values gcov writes: "1" from GCC 9 to 13, "2" from GCC 14. */
const FORMAT_VERSIONS = ['1', '2'];

/**
 * The largest count believed: 2^53-1, the largest integer a JSON number
 * holds exactly, and more than a 64-bit counter reaches in 100 days at a
 * billion executions a second. A fraction or anything above is a damaged
 * or forged file, never a measurement.
 */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/** One branch arc of a line, as gcov reports it. */
export interface Arc {
  count: number;
  /** The arc goes to the block laid out right after the test in GCC's early CFG. */
  fallthrough: boolean;
  throw: boolean;
}

/** What gcov knows about one source line (summed over functions sharing it). */
export interface LineCounts {
  count: number;
  arcs: Arc[];
}

/** A function as gcov records it: its name and the lines from its header to its closing brace. */
export interface GcovFunction {
  name: string;
  startLine: number;
  endLine: number;
}

/** One source file's counts as one gcov JSON document lists them. */
export interface GcovFile {
  /** The path as gcov wrote it (absolute, or relative to `cwd`). */
  path: string;
  lines: Map<number, LineCounts>;
  functions: GcovFunction[];
}

/** A parsed `.gcov.json(.gz)` file. */
export interface GcovDocument {
  /** Where the JSON was read from. */
  source: string;
  gccVersion: string;
  formatVersion: string;
  /** gcov's working directory, against which relative paths resolve. */
  cwd: string;
  files: GcovFile[];
}

function fail(source: string, where: string, what: string): never {
  throw new UserError(
    `${printable(source)}: not gcov JSON (${printable(where)}: ${what}). Produce it with \`gcov --json-format -b\` (GCC 9 or later).`,
  );
}

/** Why `v` is not a count of executions (a whole number from 0 to MAX_COUNT), or null when it is one. */
export function badCount(v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return `${JSON.stringify(v) || 'nothing'} is not a number`;
  if (!Number.isInteger(v) || v < 0) return `${v} is not a whole number of executions`;
  if (v > MAX_COUNT) return `${v} is above 2^53-1, more than any counter reaches (a damaged or forged file)`;
  return null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function countOf(source: string, where: string, v: unknown): number {
  const bad = badCount(v);
  if (bad) fail(source, where, `"count" ${bad}`);
  return v as number;
}

/** Read and validate one gcov JSON file (gzip'd when it starts with gzip's magic bytes). */
export function readGcovJson(source: string): GcovDocument {
  let bytes: Buffer;
  try {
    if (statSync(source).size > MAX_GCOV_JSON_BYTES) throw new UserError(`${printable(source)}: larger than ${mib(MAX_GCOV_JSON_BYTES)}, the cap for one gcov JSON file; give the .gcov.json.gz of one source file`);
    bytes = readFileSync(source);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read gcov JSON ${printable(source)}: ${(err as Error).message}`);
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipCapped(bytes, MAX_GCOV_JSON_BYTES, printable(source), 're-run gcov to write it again.');
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    fail(source, 'JSON syntax', (err as Error).message);
  }
  return parseGcovDocument(source, doc);
}

/** Validate an already parsed gcov JSON value. */
export function parseGcovDocument(source: string, doc: unknown): GcovDocument {
  if (!isRecord(doc)) fail(source, 'top level', 'expected an object');
  if (!Array.isArray(doc.files)) fail(source, 'top level', 'no "files" array');
  const version = String(doc.format_version);
  if (!FORMAT_VERSIONS.includes(version)) {
    throw new UserError(
      `${printable(source)}: gcov JSON format_version ${printable(JSON.stringify(doc.format_version) || 'missing')} is not one hintlab reads ` +
        `(${FORMAT_VERSIONS.map((v) => `"${v}"`).join(', ')}: GCC 9 to 14); write it with a GCC of those, or tell us about the new format`,
    );
  }
  const files = doc.files.map((f, i) => parseFile(source, f, `files[${i}]`));
  return {
    source,
    gccVersion: typeof doc.gcc_version === 'string' ? doc.gcc_version : 'unknown',
    formatVersion: version,
    cwd: typeof doc.current_working_directory === 'string' ? doc.current_working_directory : '',
    files,
  };
}

function parseFile(source: string, f: unknown, where: string): GcovFile {
  if (!isRecord(f) || typeof f.file !== 'string') fail(source, where, 'expected an object with a "file" string');
  if (!Array.isArray(f.lines)) fail(source, `${where} (${f.file})`, 'no "lines" array');
  const lines = new Map<number, LineCounts>();
  f.lines.forEach((l, j) => {
    const at = `${where}.lines[${j}]`;
    if (!isRecord(l)) fail(source, at, 'expected an object');
    const lineNo = l.line_number;
    if (typeof lineNo !== 'number' || !Number.isInteger(lineNo) || lineNo < 1) fail(source, at, '"line_number" must be a positive integer');
    // the record as a person finds it: file, line and function, besides its place in the JSON
    const record = `${at}, ${String(f.file)}:${lineNo}${typeof l.function_name === 'string' ? ` in ${l.function_name}` : ''}`;
    const count = countOf(source, record, l.count);
    const arcs = parseArcs(source, l.branches ?? [], record);
    // A line shared by several functions (inlines, macros) is listed once per function.
    addLine(lines, lineNo, { count, arcs });
  });
  return { path: f.file, lines, functions: parseFunctions(source, f.functions ?? [], `${where} (${f.file})`) };
}

/** gcov's function records; a clone's suffix (`.isra.0`, `.constprop.0`, `.part.0`, `.cold`) is dropped. */
function parseFunctions(source: string, functions: unknown, where: string): GcovFunction[] {
  if (!Array.isArray(functions)) fail(source, where, '"functions" must be an array');
  return functions.map((fn, k) => {
    const at = `${where}.functions[${k}]`;
    if (!isRecord(fn) || typeof fn.name !== 'string') fail(source, at, 'expected an object with a "name" string');
    const { start_line: start, end_line: end } = fn;
    if (typeof start !== 'number' || typeof end !== 'number' || start < 1 || end < start) fail(source, at, '"start_line" and "end_line" must be lines, start first');
    return { name: fn.name.replace(/\..*$/, ''), startLine: start, endLine: end };
  });
}

function parseArcs(source: string, branches: unknown, where: string): Arc[] {
  if (!Array.isArray(branches)) fail(source, where, '"branches" must be an array');
  return branches.map((b, k) => {
    if (!isRecord(b)) fail(source, `${where}, branch ${k}`, 'expected {count, fallthrough, throw}');
    return { count: countOf(source, `${where}, branch ${k}`, b.count), fallthrough: b.fallthrough === true, throw: b.throw === true };
  });
}

/**
 * Add one line's counts into `lines`. The same line seen again (another
 * function, another object including the same header) adds up; arcs add
 * up position by position when both list the same number of them.
 */
export function addLine(lines: Map<number, LineCounts>, lineNo: number, c: LineCounts): void {
  const seen = lines.get(lineNo);
  if (!seen) {
    lines.set(lineNo, { count: c.count, arcs: c.arcs.map((a) => ({ ...a })) });
    return;
  }
  seen.count += c.count;
  const sameShape =
    seen.arcs.length === c.arcs.length && seen.arcs.every((a, i) => a.fallthrough === c.arcs[i]?.fallthrough);
  if (sameShape) seen.arcs.forEach((a, i) => (a.count += c.arcs[i]?.count ?? 0));
  else seen.arcs.push(...c.arcs.map((a) => ({ ...a })));
}
