/**
 * Deciding what to say about one `if` from its evidence in every workload:
 * propose a hint, flag a contradicted annotation, list it as skipped, or
 * stay silent (balanced, rarely run).
 */
import { formatSharePct } from '../format/percent.ts';
import type { Confidence, Evidence, IfSite, ProfilerCheckCounts, SkipReason, Uncounted } from './types.ts';
import type { ExactLayout } from './exact.ts';

export type Hint = 'likely' | 'unlikely';

/** Why a hot `if` is listed but not proposed. */
export type SkipKind =
  | SkipReason
  | 'already-annotated' // the annotation agrees with the profile
  | 'workloads-disagree' // biased overall, but not in every workload that reached it
  | 'direction-unknown' // ran, but neither lines nor flow tell which way
  | 'layout-already' // with --layout changes: the compiled code already falls through on the common side
  | 'profiler-disagrees'; // gcov's counts (or the compiled jumps) say one way, the branch profiler of the same workload the other

export type Verdict =
  | { kind: 'propose'; hint: Hint }
  /** An annotation the profile contradicts; `fix` is the opposite hint when that one meets the bias. */
  | { kind: 'contradicted'; claimed: Hint; macro: string; claimedShare: number; fix: Hint | null }
  | { kind: 'skip'; reason: SkipKind; detail: string }
  | { kind: 'quiet'; reason: 'balanced' | 'few-executions' | 'not-reached' };

export interface Thresholds {
  /** A hint needs the then-branch to run in at least this share (likely) or at most 1 - it (unlikely). */
  minBias: number;
  minHits: number;
}

/** One `if` with its evidence and verdict: a row of every output format. */
export interface HintRow {
  site: IfSite;
  /** Summed over workloads; null for static (profile-less) candidates. */
  executions: number | null;
  thenCount: number | null;
  confidence: Confidence;
  evidence: Evidence[];
  /** Workloads that ran the `if` but whose counts give no direction (not in `thenCount`). */
  uncounted: Uncounted[];
  /** How each workload's count was read (`then-branch line 635`, `branch profiler`...). */
  methods: string[];
  verdict: Verdict;
  /** For a gcov-derived proposal: what the branch profiler of the same workloads says; null without one. */
  profilerCheck: ProfilerCheck | null;
  /**
   * How the kernel as built lays the `if` out against its common side (a
   * proposal's hint, else the measured majority), from a branch set; null
   * without one, or for rows that are neither a proposal nor an annotation.
   */
  layout: ExactLayout | null;
}

/**
 * A gcov-derived proposal seen by the branch profiler: `agrees` when it
 * meets the bias the same way in every checked workload, `disagrees` when
 * the then-branch ran on the other side of half in any, `weaker` otherwise
 * (same direction, under the bias).
 */
export interface ProfilerCheck {
  agreement: 'agrees' | 'weaker' | 'disagrees';
  executions: number;
  thenCount: number;
  counts: ProfilerCheckCounts[];
}

/**
 * Check a proposal, or the rename a contradicted annotation asks for,
 * against the branch profiler's counts. One the profiler contradicts
 * becomes a `profiler-disagrees` skip: a wrong hint costs more than a
 * missing one.
 */
export function checkAgainstProfiler(
  verdict: Verdict,
  checks: ProfilerCheckCounts[],
  t: Thresholds,
  counted = "gcov's counts",
): { verdict: Verdict; check: ProfilerCheck | null } {
  const reached = checks.filter((c) => c.executions > 0);
  // what the row would write: a new hint, or the rename of a contradicted one
  const hint = verdict.kind === 'propose' ? verdict.hint : verdict.kind === 'contradicted' ? verdict.fix : null;
  if (hint === null || reached.length === 0) return { verdict, check: null };
  const sameSide = (c: ProfilerCheckCounts): boolean => (hint === 'likely' ? c.thenCount * 2 > c.executions : c.thenCount * 2 < c.executions);
  const agreement = reached.every((c) => biasOf(c.thenCount, c.executions, t) === hint) ? 'agrees' : reached.every(sameSide) ? 'weaker' : 'disagrees';
  const executions = reached.reduce((n, c) => n + c.executions, 0);
  const thenCount = reached.reduce((n, c) => n + c.thenCount, 0);
  const check: ProfilerCheck = { agreement, executions, thenCount, counts: reached };
  if (agreement !== 'disagrees') return { verdict, check };
  const detail = `${counted} say ${hint}; the branch profiler ran the then-branch in ${formatSharePct(thenCount / executions)} of ${executions}`;
  return { verdict: { kind: 'skip', reason: 'profiler-disagrees', detail }, check };
}

const CONFIDENCE_ORDER: Confidence[] = ['heuristic', 'arcs', 'flow', 'lines', 'exact', 'profiler'];

/**
 * The weakest method among the evidence: a row is only as sure as its least
 * sure count. No evidence at all is `none`.
 */
export function weakestConfidence(evidence: Evidence[]): Confidence {
  if (evidence.length === 0) return 'none';
  let worst = CONFIDENCE_ORDER.length - 1;
  for (const e of evidence) worst = Math.min(worst, CONFIDENCE_ORDER.indexOf(e.confidence));
  return CONFIDENCE_ORDER[worst] ?? 'lines';
}

function biasOf(thenCount: number, executions: number, t: Thresholds): Hint | null {
  if (executions === 0) return null;
  const share = thenCount / executions;
  if (share >= t.minBias) return 'likely';
  if (share <= 1 - t.minBias) return 'unlikely';
  return null;
}

/** The hint every reaching workload agrees on, or null. */
function agreedHint(evidence: Evidence[], t: Thresholds): Hint | null {
  const reached = evidence.filter((e) => e.executions > 0);
  const hints = reached.map((e) => biasOf(e.thenCount, e.executions, t));
  const first = hints[0];
  return first && hints.every((h) => h === first) ? first : null;
}

/**
 * The verdict for a site with summed `executions`/`thenCount` over
 * `evidence`; `uncounted` are the workloads that ran it without a direction.
 */
export function decide(site: IfSite, evidence: Evidence[], t: Thresholds, uncounted: Uncounted[]): Verdict {
  const executions = evidence.reduce((s, e) => s + e.executions, 0);
  const thenCount = evidence.reduce((s, e) => s + e.thenCount, 0);
  // Like every skip, a parse error is listed only for an `if` that ran at least min-hits times.
  const parseError: Verdict = { kind: 'skip', reason: 'parse-error', detail: 'the condition or a branch did not parse' };
  if (evidence.length === 0) {
    const ran = uncounted.reduce((s, u) => s + u.executions, 0);
    if (ran === 0) return { kind: 'quiet', reason: 'not-reached' };
    if (ran < t.minHits) return { kind: 'quiet', reason: 'few-executions' };
    const detail = uncounted.map((u) => `${u.workload}: ${u.reason}`).join('; ');
    return site.skip === 'parse-error' ? parseError : { kind: 'skip', reason: 'direction-unknown', detail };
  }
  if (executions < t.minHits) return { kind: 'quiet', reason: executions === 0 ? 'not-reached' : 'few-executions' };
  if (site.skip === 'parse-error') return parseError;
  const pooled = biasOf(thenCount, executions, t);
  const share = thenCount / executions;
  if (site.annotation.kind === 'whole') {
    const claimed: Hint = site.annotation.expectTrue ? 'likely' : 'unlikely';
    const claimedShare = site.annotation.expectTrue ? share : 1 - share;
    const macro = site.annotation.macro;
    if (claimedShare >= 0.5) return { kind: 'skip', reason: 'already-annotated', detail: `${macro}() holds in ${formatSharePct(claimedShare)}` };
    const opposite = agreedHint(evidence, t);
    const renamable = macro === 'likely' || macro === 'unlikely';
    return { kind: 'contradicted', claimed, macro, claimedShare, fix: renamable && opposite && opposite !== claimed ? opposite : null };
  }
  if (site.skip === 'compile-time') return { kind: 'skip', reason: 'compile-time', detail: 'folded at compile time' };
  if (site.skip === 'partial-annotation') {
    return { kind: 'skip', reason: 'partial-annotation', detail: 'an annotation covers part of the condition' };
  }
  const agreed = agreedHint(evidence, t);
  if (agreed) return { kind: 'propose', hint: agreed };
  if (pooled) {
    return { kind: 'skip', reason: 'workloads-disagree', detail: `${pooled} overall, not in every workload` };
  }
  return { kind: 'quiet', reason: 'balanced' };
}
