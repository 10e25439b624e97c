/**
 * `hintlab hints`, the analysis: read the workloads, parse the C files they
 * cover, check that the source is the profiled one, attach evidence to every
 * `if`, and decide. Returns data; formatting lives in report.ts and patch.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import {
  baseNameIndex,
  candidateFiles,
  checkSourceMatches,
  matchProfilerRows,
  siteEvidence,
  type UnmatchedRow,
} from './evidence.ts';
import { checkPaths } from './paths.ts';
import { scanFiles } from './pool.ts';
import type { Evidence, FileSites, IfSite, MacroIf, ProfilerCheckCounts, Uncounted } from './types.ts';
import { checkAgainstProfiler, decide, weakestConfidence, type HintRow, type Thresholds } from './verdict.ts';
import { loadWorkloads, type Workload, type WorkloadSpec } from './workload.ts';
import { layoutFor, type ExactLayout, type PlacedJump } from './exact.ts';
import type { Verdict } from './verdict.ts';

export interface HintsOptions {
  /** Absolute path of the C source tree. */
  root: string;
  /** Empty for `--static`. */
  workloads: WorkloadSpec[];
  /** Root-relative directories or files to restrict the analysis to; empty for all. */
  paths: string[];
  thresholds: Thresholds;
  /** `changes`: keep only proposals whose compiled common path jumps (a branch set is needed); `any` (default) keeps all. */
  layout?: 'any' | 'changes';
  jobs: number;
  onProgress?: (done: number, total: number) => void;
}

/** Summary of one workload, as the outputs show it. */
export interface WorkloadSummary {
  name: string;
  files: string[];
  newestMtimeMs: number;
  /** Profiled files outside the source tree (system headers...). */
  outside: string[];
  /** Profiled files of the profiled tree that --src lacks (root-relative). */
  missing: string[];
  /** The workload has a branch set of the kernel as built. */
  exact: boolean;
}

export interface HintsResult {
  mode: 'profile' | 'static';
  root: string;
  thresholds: Thresholds;
  workloads: WorkloadSummary[];
  /** Every parsed file with its hash, so `--apply` can refuse a changed one. */
  sources: { file: string; sha256: string }[];
  /** Proposals, contradicted annotations and skipped hot `if`s, hottest first. */
  rows: HintRow[];
  /** `if`s not listed: balanced, run fewer than min-hits times, never reached. */
  quiet: { balanced: number; fewExecutions: number; notReached: number };
  sitesTotal: number;
  macroIfs: MacroIf[];
  unmatched: UnmatchedRow[];
  /** A workload has both gcov counts and branch profiler rows: tables show the profiler's check. */
  profilerChecks: boolean;
}

function underPaths(file: string, paths: string[]): boolean {
  return paths.length === 0 || paths.some((p) => file === p || file.startsWith(p.endsWith('/') ? p : `${p}/`));
}

/** Root-relative C files (`.c`, and `.h` when asked) under `paths`. */
export function listCFiles(root: string, paths: string[], withHeaders: boolean): string[] {
  const out: string[] = [];
  const re = withHeaders ? /\.[ch]$/ : /\.c$/;
  const walk = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(join(root, rel), { withFileTypes: true });
    } catch (err) {
      throw new UserError(`cannot read ${join(root, rel)}: ${(err as Error).message}`);
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && re.test(e.name)) out.push(p);
    }
  };
  for (const p of paths.length > 0 ? paths : ['']) {
    if (re.test(p)) out.push(p);
    else walk(p.replace(/\/+$/, ''));
  }
  return out.sort();
}

function summarize(w: Workload): WorkloadSummary {
  return { name: w.name, files: w.files, newestMtimeMs: w.newestMtimeMs, outside: w.outside, missing: w.missing, exact: w.exact !== null };
}

/** Run the analysis (profile mode when workloads are given, static otherwise). */
export async function analyzeHints(given: HintsOptions): Promise<HintsResult> {
  // `--path .` is the whole tree, like no --path at all.
  const opts = { ...given, paths: checkPaths(given.root, given.paths).filter((p) => p !== '') };
  const workloads = loadWorkloads(opts.root, opts.workloads);
  if (opts.layout === 'changes' && !workloads.some((w) => w.exact)) {
    throw new UserError('--layout changes reads the compiled jumps of a branch set: give one (hintlab hints collect --exact) or drop --layout', 2);
  }
  const mode = workloads.length === 0 ? 'static' : 'profile';
  const files =
    mode === 'static' ? { list: listCFiles(opts.root, opts.paths, false), index: baseNameIndex([]) } : profiledFiles(opts, workloads);
  const scanned = await scanFiles({ root: opts.root, files: files.list, jobs: opts.jobs, onProgress: opts.onProgress });
  const parsed = new Map(scanned.map((f) => [f.file, f]));
  for (const w of workloads) for (const f of scanned) checkSourceMatches(w, f);
  for (const f of scanned) nameFromProfile(f, workloads);
  const base = {
    mode,
    root: opts.root,
    thresholds: opts.thresholds,
    workloads: workloads.map(summarize),
    sources: scanned.map((f) => ({ file: f.file, sha256: f.sha256 })),
    sitesTotal: scanned.reduce((n, f) => n + f.sites.length, 0),
    macroIfs: scanned.flatMap((f) => f.macroIfs),
  } as const;
  if (mode === 'static') {
    return { ...base, rows: staticRows(scanned), quiet: { balanced: 0, fewExecutions: 0, notReached: 0 }, unmatched: [], profilerChecks: false };
  }
  const matches = workloads.map((w) => matchProfilerRows(w, files.index, parsed));
  const quiet = { balanced: 0, fewExecutions: 0, notReached: 0 };
  const rows: HintRow[] = [];
  for (const f of scanned) {
    for (const site of f.sites) {
      const row = keepLayout(profileRow(site, workloads, matches.map((m) => m.matched), opts.thresholds), opts.layout ?? 'any');
      if (row.verdict.kind !== 'quiet') rows.push(row);
      else if (row.verdict.reason === 'balanced') quiet.balanced++;
      else if (row.verdict.reason === 'few-executions') quiet.fewExecutions++;
      else quiet.notReached++;
    }
  }
  rows.sort((a, b) => (b.executions ?? 0) - (a.executions ?? 0) || a.site.file.localeCompare(b.site.file) || a.site.line - b.site.line);
  const profilerChecks = workloads.some((w) => w.profiler.length > 0 && (w.gcov.size > 0 || w.exact !== null));
  return { ...base, rows, quiet, unmatched: matches.flatMap((m) => m.unmatched), profilerChecks };
}

/**
 * Name each `if`'s function after gcov's function records where one holds
 * its line (the innermost): the compiler's name, whatever the parser made
 * of macros around it. Sites gcov has no record for keep the parser's name.
 */
function nameFromProfile(f: FileSites, workloads: Workload[]): void {
  const functions = workloads.flatMap((w) => w.gcov.get(f.file)?.functions ?? []);
  if (functions.length === 0) return;
  for (const site of f.sites) {
    let best: { name: string; span: number } | null = null;
    for (const fn of functions) {
      const span = fn.endLine - fn.startLine;
      if (fn.startLine <= site.line && site.line <= fn.endLine && (!best || span < best.span)) best = { name: fn.name, span };
    }
    if (best) site.fn = best.name;
  }
}

/** Files with gcov counts, plus every file a profiler row may name. */
function profiledFiles(opts: HintsOptions, workloads: Workload[]): { list: string[]; index: ReturnType<typeof baseNameIndex> } {
  const wanted = new Set<string>();
  for (const w of workloads) for (const f of w.gcov.keys()) if (/\.[ch]$/.test(f) && underPaths(f, opts.paths)) wanted.add(f);
  for (const f of exactFiles(opts.root, workloads)) if (underPaths(f, opts.paths)) wanted.add(f);
  const hasRows = workloads.some((w) => w.profiler.length > 0);
  // The whole tree: a row of a file outside --path must not be taken for one of a namesake inside it.
  const index = baseNameIndex(hasRows ? listCFiles(opts.root, [], true) : []);
  for (const w of workloads) {
    for (const p of w.profiler) for (const row of p.rows) for (const f of candidateFiles(index, row)) if (underPaths(f, opts.paths)) wanted.add(f);
  }
  if (wanted.size === 0) {
    throw new UserError(
      `no profiled C file under ${opts.root}${opts.paths.length ? ` (${opts.paths.join(', ')})` : ''}: is --src the tree the profiles were taken from?`,
    );
  }
  return { list: [...wanted].sort(), index };
}

function profileRow(
  site: IfSite,
  workloads: Workload[],
  profilerMatches: Map<string, { executions: number; thenCount: number }>[],
  t: Thresholds,
): HintRow {
  const evidence: Evidence[] = [];
  const jumps: PlacedJump[] = [];
  const methods: string[] = [];
  const uncounted: Uncounted[] = [];
  const checks: ProfilerCheckCounts[] = [];
  workloads.forEach((w, i) => {
    const r = siteEvidence(site, w, profilerMatches[i] ?? new Map());
    if (r.kind === 'evidence') {
      evidence.push(r.evidence);
      methods.push(`${w.name}: ${r.method}`);
      if (r.check) checks.push(r.check);
      if (r.jumps) jumps.push(...r.jumps);
    } else if (r.kind === 'unknown') {
      uncounted.push({ workload: w.name, executions: r.executions, reason: r.reason });
      methods.push(`${w.name}: no direction (${r.reason})`);
    }
  });
  const counted = evidence.length > 0;
  const countedBy = evidence.some((e) => e.confidence === 'exact') ? 'the compiled jumps' : "gcov's counts";
  const { verdict, check } = checkAgainstProfiler(decide(site, evidence, t, uncounted), checks, t, countedBy);
  const executions = counted ? evidence.reduce((s, e) => s + e.executions, 0) : uncounted.reduce((s, u) => s + u.executions, 0);
  const thenCount = counted ? evidence.reduce((s, e) => s + e.thenCount, 0) : null;
  return {
    site,
    executions,
    thenCount,
    confidence: weakestConfidence(evidence),
    evidence,
    uncounted,
    methods,
    verdict,
    profilerCheck: check,
    layout: rowLayout(jumps, verdict, thenCount, executions),
  };
}

/** With --layout changes, a proposal the compiled code already lays out its way is skipped, never patched. */
function keepLayout(row: HintRow, layout: 'any' | 'changes'): HintRow {
  if (layout === 'any' || row.verdict.kind !== 'propose' || row.layout?.verdict !== 'already') return row;
  const detail = `the compiled code already falls through when the ${row.layout.common}-branch runs`;
  return { ...row, verdict: { kind: 'skip', reason: 'layout-already', detail } };
}

/**
 * A proposal's layout is judged against its hint; an annotated `if`'s
 * (agreeing or contradicted) against the side that ran most, which is
 * the audit of the hints already in the source.
 */
function rowLayout(jumps: PlacedJump[], verdict: Verdict, thenCount: number | null, executions: number): ExactLayout | null {
  if (jumps.length === 0 || thenCount === null) return null;
  if (verdict.kind === 'propose') return layoutFor(jumps, verdict.hint === 'likely' ? 'then' : 'else');
  const annotated = verdict.kind === 'contradicted' || (verdict.kind === 'skip' && verdict.reason === 'already-annotated');
  return annotated ? layoutFor(jumps, thenCount * 2 >= executions ? 'then' : 'else') : null;
}

/** C files of the tree the branch sets place jumps in (any frame of a chain). */
function exactFiles(root: string, workloads: Workload[]): string[] {
  const files = new Set<string>();
  for (const w of workloads) for (const set of w.exact?.sets ?? []) for (const j of set.jumps) for (const f of j.at) files.add(f.file);
  return [...files].filter((f) => /\.[ch]$/.test(f) && !f.startsWith('/') && !f.startsWith('..') && existsSync(join(root, f)));
}

function staticRows(scanned: FileSites[]): HintRow[] {
  return scanned.flatMap((f) =>
    f.sites
      .filter((s) => s.heuristic)
      .map((site): HintRow => ({
        site,
        executions: null,
        thenCount: null,
        confidence: 'heuristic',
        evidence: [],
        uncounted: [],
        methods: ['early error exit in a syscall implementation'],
        verdict: { kind: 'propose', hint: 'unlikely' },
        profilerCheck: null,
        layout: null,
      })),
  );
}
