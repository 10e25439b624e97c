/**
 * Attaching profile counts to `if` sites: gcov line counts through
 * derive.ts, branch profiler rows by base name + line + function prefix.
 */
import { basename } from 'node:path';
import { UserError } from '../errors.ts';
import { deriveFromLines } from './derive.ts';
import { PROFILER_FILE_WIDTH, PROFILER_FUNC_WIDTH, type ProfilerRow } from './profiler.ts';
import type { Evidence, FileSites, IfSite, ProfilerCheckCounts } from './types.ts';
import type { Workload } from './workload.ts';
import { exactEvidence, type PlacedJump } from './exact.ts';

/** A profiler row that names no usable `if`, and why. */
export interface UnmatchedRow {
  source: string;
  row: ProfilerRow;
  reason: string;
}

/** A site's evidence in one workload, or why it has none. */
export type SiteResult =
  /** `check`: the branch profiler's counts of the same workload, when the evidence came from gcov. */
  /** `jumps`: the `if`'s compiled jumps, when the evidence came from a branch set. */
  | { kind: 'evidence'; evidence: Evidence; method: string; check?: ProfilerCheckCounts; jumps?: PlacedJump[] }
  | { kind: 'unknown'; workload: string; executions: number; reason: string }
  | { kind: 'none' };

export function siteKey(site: IfSite): string {
  return `${site.file}:${site.line}:${site.open.column}`;
}

/**
 * Refuse a profile that was not taken from this source: a count on a blank
 * or comment-only line, or past the end, cannot come from it.
 */
export function checkSourceMatches(workload: Workload, parsed: FileSites): void {
  checkJumpLines(workload, parsed);
  const counts = workload.gcov.get(parsed.file);
  if (!counts) return;
  const blank = new Set(parsed.blankLines);
  for (const [line, c] of counts.lines) {
    const problem =
      line > parsed.lineCount ? `is past its end (${parsed.lineCount} lines)` : blank.has(line) ? 'is blank or a comment there' : null;
    if (problem) {
      throw new UserError(
        `source ${parsed.file} does not match the profile ${counts.from.join(', ')}: line ${line} has a count (${c.count}) but ${problem}. ` +
          'Point --src at the tree the profile was taken from, or profile again.',
      );
    }
  }
}

/** A branch set whose jumps lie on blank lines of a file, or past its end, was not taken from this source. */
function checkJumpLines(workload: Workload, parsed: FileSites): void {
  const sets = workload.exact;
  if (!sets) return;
  const blank = new Set(parsed.blankLines);
  for (const set of sets.sets) {
    for (const j of set.jumps) {
      const f = j.at.find((x) => x.file === parsed.file && (x.line > parsed.lineCount || blank.has(x.line)));
      if (!f) continue;
      throw new UserError(
        `source ${parsed.file} does not match the branch set ${set.source}: the jump at ${j.function}+0x${j.offset.toString(16)} is placed on line ${f.line}, ` +
          `which ${f.line > parsed.lineCount ? `is past its end (${parsed.lineCount} lines)` : 'is blank or a comment'}. Point --src at the tree the kernel was built from.`,
      );
    }
  }
}

/** Base name -> root-relative paths, for matching profiler rows. */
export type BaseNameIndex = Map<string, string[]>;

export function baseNameIndex(files: string[]): BaseNameIndex {
  const index: BaseNameIndex = new Map();
  for (const f of files) {
    const b = basename(f);
    const list = index.get(b);
    if (list) list.push(f);
    else index.set(b, [f]);
  }
  return index;
}

/** Files a profiler row may come from (its base name may be cut to 20 characters). */
export function candidateFiles(index: BaseNameIndex, row: ProfilerRow): string[] {
  if (row.file.length < PROFILER_FILE_WIDTH) return index.get(row.file) ?? [];
  const out: string[] = [];
  for (const [b, files] of index) if (b.startsWith(row.file)) out.push(...files);
  return out;
}

function functionMatches(fn: string, rowFunc: string): boolean {
  if (fn === '') return true;
  return rowFunc.length >= PROFILER_FUNC_WIDTH ? fn.startsWith(rowFunc) : fn === rowFunc;
}

/** Counts a matched profiler row gives: executions and then-branch runs. */
function rowCounts(row: ProfilerRow, site: IfSite): { executions: number; thenCount: number } | string {
  const executions = row.first + row.second;
  if (row.kind === 'all') return { executions, thenCount: row.second };
  if (site.annotation.kind !== 'whole') return 'the annotation covers only part of the condition';
  // correct = the annotation's expectation held.
  return { executions, thenCount: site.annotation.expectTrue ? row.first : row.second };
}

/**
 * Match every row of a workload's profiler files to a site. Rows that fit
 * several sites are reported as ambiguous, never guessed.
 */
export function matchProfilerRows(
  workload: Workload,
  index: BaseNameIndex,
  parsed: ReadonlyMap<string, FileSites>,
): { matched: Map<string, { executions: number; thenCount: number }>; unmatched: UnmatchedRow[] } {
  const matched = new Map<string, { executions: number; thenCount: number }>();
  const unmatched: UnmatchedRow[] = [];
  for (const { source, rows } of workload.profiler) {
    for (const row of rows) {
      const candidates = candidateFiles(index, row);
      const files = candidates.flatMap((f) => parsed.get(f) ?? []);
      if (files.length === 0) {
        const why = candidates.length ? 'outside --path' : `no file named ${row.file}${row.file.length >= PROFILER_FILE_WIDTH ? '*' : ''} in the source tree`;
        unmatched.push({ source, row, reason: why });
        continue;
      }
      const sites = files.flatMap((f) =>
        f.sites.filter((s) => s.line <= row.line && row.line <= s.endLine && functionMatches(s.fn, row.func)),
      );
      if (sites.length === 0) {
        if (candidates.length === 1) checkRowLine(source, row, files);
        unmatched.push({ source, row, reason: `no \`if\` of ${row.func} at this line (a hint outside an \`if\`, or inside a macro)` });
        continue;
      }
      if (sites.length > 1) {
        const where = sites.map((s) => `${s.file}:${s.line} ${s.fn}`).join('; ');
        unmatched.push({ source, row, reason: `ambiguous: ${where}` });
        continue;
      }
      const site = sites[0] as IfSite;
      const counts = rowCounts(row, site);
      if (typeof counts === 'string') {
        unmatched.push({ source, row, reason: counts });
        continue;
      }
      const key = siteKey(site);
      const seen = matched.get(key);
      if (seen) {
        seen.executions += counts.executions;
        seen.thenCount += counts.thenCount;
      } else matched.set(key, counts);
    }
  }
  return { matched, unmatched };
}

/** A row pointing past the end or at a blank line of its only candidate file: wrong source. */
function checkRowLine(source: string, row: ProfilerRow, files: FileSites[]): void {
  if (files.length !== 1) return;
  const f = files[0] as FileSites;
  if (row.line > f.lineCount || f.blankLines.includes(row.line)) {
    throw new UserError(
      `source ${f.file} does not match the branch profile ${source}:${row.at}: line ${row.line} (${row.func}) ` +
        `${row.line > f.lineCount ? `is past its end (${f.lineCount} lines)` : 'is blank or a comment'}. Point --src at the tree the profile was taken from.`,
    );
  }
}

/** One site's evidence in one workload: gcov lines or flow first (checked against the profiler when it has the site), else the profiler. */
export function siteEvidence(
  site: IfSite,
  workload: Workload,
  profiler: ReadonlyMap<string, { executions: number; thenCount: number }>,
): SiteResult {
  const fromProfiler = profiler.get(siteKey(site));
  const check = fromProfiler ? { check: { workload: workload.name, ...fromProfiler } } : {};
  const exact = workload.exact ? exactEvidence(site, workload.exact.index) : ({ kind: 'none' } as const);
  if (exact.kind === 'counted') {
    const lines = [...new Set(exact.jumps.map((j) => j.line))].join(', ');
    const method = `exact: ${exact.jumps.length} compiled jump(s) on line ${lines}${exact.copies > 1 ? ` in ${exact.copies} copies` : ''}`;
    return { kind: 'evidence', evidence: { workload: workload.name, executions: exact.executions, thenCount: exact.thenCount, confidence: 'exact' }, method, jumps: exact.jumps, ...check };
  }
  if (exact.kind === 'unknown' && !fromProfiler) return { kind: 'unknown', workload: workload.name, executions: exact.executions, reason: exact.reason };
  const lines = workload.gcov.get(site.file)?.lines;
  const d = lines ? deriveFromLines(site, lines) : ({ kind: 'not-compiled' } as const);
  if (d.kind === 'counted') {
    return {
      kind: 'evidence',
      evidence: { workload: workload.name, executions: d.executions, thenCount: d.thenCount, confidence: d.confidence },
      method: d.method,
      ...check,
    };
  }
  if (fromProfiler) {
    return { kind: 'evidence', evidence: { workload: workload.name, ...fromProfiler, confidence: 'profiler' }, method: 'branch profiler' };
  }
  if (d.kind === 'unknown') return { kind: 'unknown', workload: workload.name, executions: d.executions, reason: d.reason };
  return { kind: 'none' };
}
