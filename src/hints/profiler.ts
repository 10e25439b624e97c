/**
 * Reading the kernel's branch profiler statistics
 * (`/sys/kernel/tracing/trace_stat/branch_annotated` with
 * CONFIG_PROFILE_ANNOTATED_BRANCHES, `branch_all` with
 * CONFIG_PROFILE_ALL_BRANCHES), as kernel/trace/trace_branch.c prints them:
 *
 *     " correct incorrect  %        Function                  File              Line"
 *     "%8lu %8lu %3ld %-30.30s %-20.20s %d"      (or "  X " when nothing was counted)
 *     "%8lu/%lu %*lu ..."                         (annotated, compile-time constant)
 *
 * `branch_all` has the header "   miss      hit    % ": miss counts a false
 * condition, hit a true one. In `branch_annotated`, correct counts the
 * annotation being right. Function names are cut to 30 characters and
 * files to 20 characters of their base name.
 */
import { readFileSync } from 'node:fs';
import { printable, UserError } from '../errors.ts';

/** Which profiler file a row came from, and so what its two counts mean. */
export type ProfilerKind = 'annotated' | 'all';

/** One row of a branch profiler file. */
export interface ProfilerRow {
  kind: ProfilerKind;
  /** annotated: times the annotation was right; all: times the condition was false. */
  first: number;
  /** annotated: times it was wrong; all: times the condition was true. */
  second: number;
  func: string;
  /** Base name, possibly cut to 20 characters. */
  file: string;
  line: number;
  /** 1-based line in the profiler file, for messages. */
  at: number;
}

/** Profiler function and file columns are cut to these widths (TRACE_FUNC_SIZE, TRACE_FILE_SIZE). */
export const PROFILER_FUNC_WIDTH = 30;
export const PROFILER_FILE_WIDTH = 20;

const ROW_RE = /^\s*(\d+)(?:\/\d+)?\s+(\d+)\s+(?:X|-?\d+)\s+(\S+)\s+(\S+)\s+(\d+)\s*$/;

/** True when `text` starts like a branch profiler file. */
export function looksLikeProfiler(text: string): boolean {
  return /^\s*(correct\s+incorrect|miss\s+hit)\s+%/.test(text);
}

/** Parse a branch profiler file's text; `source` names it in errors. */
export function parseProfiler(source: string, text: string): ProfilerRow[] {
  const lines = text.split('\n');
  const header = lines[0] ?? '';
  let kind: ProfilerKind;
  if (/^\s*correct\s+incorrect\s+%/.test(header)) kind = 'annotated';
  else if (/^\s*miss\s+hit\s+%/.test(header)) kind = 'all';
  else {
    throw new UserError(
      `${source}:1: not a branch profiler file (expected the " correct incorrect  %" header of trace_stat/branch_annotated or "   miss      hit    %" of branch_all)`,
    );
  }
  const rows: ProfilerRow[] = [];
  lines.forEach((raw, i) => {
    if (i === 0 || raw.trim() === '' || /^\s*-+\s+-+/.test(raw)) return;
    const m = ROW_RE.exec(raw);
    if (!m) throw new UserError(`${printable(source)}:${i + 1}: cannot read this branch profiler row: ${printable(JSON.stringify(raw.slice(0, 120)))}`);
    const count = (digits: string | undefined): number => {
      const n = Number(digits);
      // the kernel prints unsigned longs: more than 2^53-1 is a damaged file, and would not even be exact here
      if (!Number.isSafeInteger(n)) {
        throw new UserError(`${printable(source)}:${i + 1}: count ${digits} of ${printable(m[3] ?? '')} (${printable(m[4] ?? '')}:${m[5]}) is above 2^53-1, more than any counter reaches; the file is damaged, read it again from trace_stat`);
      }
      return n;
    };
    rows.push({
      kind,
      first: count(m[1]),
      second: count(m[2]),
      func: m[3] ?? '',
      file: m[4] ?? '',
      line: Number(m[5]),
      at: i + 1,
    });
  });
  return rows;
}

/** Read a branch profiler file from disk. */
export function readProfiler(source: string): ProfilerRow[] {
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read branch profiler file ${printable(source)}: ${(err as Error).message}`);
  }
  return parseProfiler(source, text);
}
