/**
 * Measure until it knows, within a budget: the paired designs (duet,
 * alternation) look at the per-pair changes after every pair and stop when
 * the time budget is spent or, with --precision, when the anytime-valid
 * confidence sequence of every profile's change is narrow enough. The rule
 * looks at the sequences' widths only, never at where they lie, so the
 * estimate at the stop is not selected for its position and compare
 * judges the run with the fixed-n paired t (coverage and false claims in
 * docs/compare-designs.md); the sequence's width is wide at few pairs, which keeps
 * a lucky small spread from stopping a run early.
 */
import type { RunWithRounds } from '../model.ts';
import { fixed } from '../format/numbers.ts';
import type { Stopping } from '../run-record.ts';
import { confidenceSequence, type AnytimeInterval } from '../stats/sequential.ts';
import type { PairedBudget } from './sides.ts';

/** The default budget: 20 s per profile (docs/bench.md says why). */
export const DEFAULT_SECONDS_PER_PROFILE = 20;
export const DEFAULT_ALPHA = 0.05;
/** Measured rounds per block, and warm-ups per probe process, of the paired designs unless asked otherwise. */
export const DEFAULT_BLOCK_ROUNDS = 2;
export const PAIRED_WARMUPS = 1;
/** A paired design's rounds make this many times fewer calls than a profile's default, unless --ops is given. */
export const PAIRED_OPS_DIVISOR = 5;
/** The confidence sequence needs three pairs: the time budget never stops before them. */
export const MIN_PAIRS = 3;

/** The pairs a budget measures at least: `--min-pairs`, and never fewer than the confidence sequence needs. */
export function minPairsOf(budget: PairedBudget): number {
  return Math.max(MIN_PAIRS, budget.minPairs ?? MIN_PAIRS);
}

/** Mean of the measured rounds of each (subject, replicate). */
function unitMeans(run: RunWithRounds): Map<string, Map<number, number>> {
  const sums = new Map<string, Map<number, [number, number]>>();
  for (const r of run.rounds) {
    if (r.warmup) continue;
    const bySubject = sums.get(r.subject) ?? new Map<number, [number, number]>();
    const [s, n] = bySubject.get(r.replicate) ?? [0, 0];
    bySubject.set(r.replicate, [s + r.value, n + 1]);
    sums.set(r.subject, bySubject);
  }
  return new Map([...sums].map(([subj, m]) => [subj, new Map([...m].map(([k, [s, n]]) => [k, s / n]))]));
}

/**
 * Per subject, ln(B_k / A_k) of every pair k (replicate k on both runs, the
 * mean of its measured rounds), in pair order; a pair missing a side is left out.
 */
export function pairLogRatios(a: RunWithRounds, b: RunWithRounds): Map<string, number[]> {
  const ma = unitMeans(a);
  const mb = unitMeans(b);
  const out = new Map<string, number[]>();
  for (const [subject, as] of ma) {
    const bs = mb.get(subject) ?? new Map<number, number>();
    const ks = [...as.keys()].filter((k) => bs.has(k)).sort((x, y) => x - y);
    out.set(subject, ks.map((k) => Math.log(bs.get(k)! / as.get(k)!)));
  }
  return out;
}

/** An interval on log ratios as percent changes of B against A. */
export function percentOf(iv: AnytimeInterval): { centre: number; lo: number; hi: number; halfWidth: number } {
  const pct = (x: number) => (Math.exp(x) - 1) * 100;
  const lo = pct(iv.lo);
  const hi = pct(iv.hi);
  return { centre: pct(iv.centre), lo, hi, halfWidth: (hi - lo) / 2 };
}

/**
 * The sequence's half-width as a % change, 100 (exp(h) - 1), from its width
 * alone: where the interval lies does not enter, so stopping on it leaves
 * the estimate's position free and a run stopped here can be judged with
 * the fixed-n t (docs/compare-designs.md, "Runs stopped by --precision").
 */
export function halfWidthPct(iv: AnytimeInterval): number {
  return 100 * Math.expm1((iv.hi - iv.lo) / 2);
}

export interface BudgetState {
  /** Why measuring stops now, or null to measure another pair. */
  stop: null | 'time' | 'precision';
  intervals: Map<string, AnytimeInterval | null>;
}

/** After a pair: stop or go on. `elapsedS` counts from the first block. */
export function budgetState(ratios: Map<string, number[]>, budget: PairedBudget, profiles: number, elapsedS: number): BudgetState {
  const intervals = new Map([...ratios].map(([s, xs]) => [s, confidenceSequence(xs, budget.alpha)]));
  const all = [...intervals.values()];
  const pairs = Math.min(...[...ratios.values()].map((xs) => xs.length));
  if (pairs < minPairsOf(budget)) return { stop: null, intervals };
  const reached = budget.precisionPct !== null && all.length > 0 && all.every((iv) => iv !== null && halfWidthPct(iv) <= budget.precisionPct!);
  if (reached) return { stop: 'precision', intervals };
  return { stop: elapsedS >= budget.secondsPerProfile * profiles ? 'time' : null, intervals };
}

/** Progress text: the interval of the widest profile so far, e.g. `getppid +2.1 % [-0.4, +4.7], 12 pairs`. */
export function progressText(state: BudgetState): string {
  let widest: [string, AnytimeInterval | null] | null = null;
  for (const entry of state.intervals) {
    const w = entry[1] ? percentOf(entry[1]).halfWidth : Infinity;
    const cur = widest?.[1] ? percentOf(widest[1]).halfWidth : Infinity;
    if (!widest || w > cur || (w === cur && !entry[1])) widest = entry;
  }
  if (!widest) return 'no pairs yet';
  const [subject, iv] = widest;
  if (!iv || !Number.isFinite(iv.lo) || !Number.isFinite(iv.hi)) return `${subject}: ${iv?.n ?? 'under 3'} pairs, no interval yet`;
  const p = percentOf(iv);
  const f = (x: number) => `${x >= 0 ? '+' : ''}${fixed(x, 1)}`;
  return `${subject} ${f(p.centre)} % [${f(p.lo)}, ${f(p.hi)}], ${iv.n} pairs`;
}

/** What both runs record when an invocation watched the precision target `precisionPct` (params.extra.stopping). */
export function stoppingRecord(budget: PairedBudget, precisionPct: number, state: BudgetState): Stopping {
  const pairs = Math.min(...[...state.intervals.values()].map((iv) => iv?.n ?? 0));
  return { rule: 'confidence-sequence', alpha: budget.alpha, precisionPct, reached: state.stop === 'precision', pairs: Number.isFinite(pairs) ? pairs : 0 };
}
