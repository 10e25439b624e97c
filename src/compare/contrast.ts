/**
 * One contrast (B vs A, A2 vs A, B vs A+A2) at the level of its
 * observations: unit means for unpaired designs (Welch's t), per-pair log
 * ratios for paired ones (Student's paired t, or the confidence sequence of
 * a run stopped by a precision target). The interval of the change is the
 * deciding test's own t interval, so p < alpha exactly when it excludes 0;
 * a t interval on unit means holds its level at 3 units, where the
 * hierarchical percentile bootstrap of schema 3-5 missed in 12.2 % of
 * simulated identical comparisons (docs/compare-designs.md). The round-level Welch
 * test is kept beside them for reference; it never decides a verdict.
 */
import { type Units, meanOfUnitMeans, unitMeans } from '../stats/bootstrap.ts';
import { type Sample, mean, stdev } from '../stats/descriptive.ts';
import { type MeanTTest, pairedTTest, tInterval, wilcoxonSignedRank } from '../stats/paired.ts';
import { type Interval, type InsufficientData, insufficient } from '../stats/result.ts';
import { hodgesLehmann, signedRankOneSided } from '../stats/hodges-lehmann.ts';
import { normalQuantile, studentTSf } from '../stats/distributions.ts';
import { mannWhitneyU, welchTTest } from '../stats/tests.ts';
import type { Contrast, RunRole } from './types.ts';
import type { BeyondThreshold, ContrastTest, RankTest } from './test-types.ts';
import type { ComparisonOptions } from './options.ts';

/** What every contrast starts from: its role names, levels and the round-level reference test. */
function base(baselineRole: Contrast['baseline'], candidateRole: RunRole, baseLevel: number, candLevel: number, rounds: [number[], number[]]) {
  return {
    candidate: candidateRole,
    baseline: baselineRole,
    baselineMeanInUnit: baseLevel,
    candidateMeanInUnit: candLevel,
    changeInUnit: candLevel - baseLevel,
    changePct: 100 * (candLevel / baseLevel - 1),
    ratio: candLevel / baseLevel,
    roundWelch: welchTTest(rounds[0], rounds[1]),
    runToRun: { kind: 'not-estimated' } as const,
    // Filled in by correctFamily once every subject's contrast of this kind is known.
    adjusted: { kind: 'not-tested', reason: 'not yet corrected' } as const,
  };
}

/**
 * Why these unit means cannot be compared as ratios or % changes (a mean
 * that is 0 or below, NaN or infinite), or null when every one is positive
 * and finite.
 */
export function unusableLevels(sides: readonly (readonly [string, readonly number[]])[]): string | null {
  for (const [role, means] of sides) {
    const bad = means.find((m) => !(Number.isFinite(m) && m > 0));
    if (bad !== undefined) return `a unit mean of ${role} is ${bad}: % changes and ratios need positive, finite values (check the probe's output or the metric)`;
  }
  return null;
}

/** The estimate's bounds of the noise threshold: +threshold above, -threshold below. */
export interface ThresholdBounds {
  up: number;
  down: number;
}

/** ±threshold of a difference of levels, in the unit: ±threshold % of the baseline level. */
export function levelBounds(thresholdPct: number, baseLevel: number): ThresholdBounds {
  const up = (thresholdPct / 100) * Math.abs(baseLevel);
  return { up, down: -up };
}

/** ±threshold on the log-ratio scale of pairs: ln(1 + t), ln(1 - t). */
export function logBounds(thresholdPct: number): ThresholdBounds {
  return { up: Math.log1p(thresholdPct / 100), down: thresholdPct < 100 ? Math.log1p(-thresholdPct / 100) : Number.NEGATIVE_INFINITY };
}

/**
 * The minimum-effect test of a t-distributed estimate (BeyondThreshold in
 * src/compare/test-types.ts): on the estimate's side, the one-sided p of
 * "the change is at most the threshold", P(T_df > (estimate - bound) / se).
 */
export function beyondThresholdT(estimate: number, se: number, df: number, bounds: ThresholdBounds, thresholdPct: number): BeyondThreshold {
  const above = estimate >= (bounds.up + bounds.down) / 2;
  const excess = above ? estimate - bounds.up : bounds.down - estimate;
  return { kind: 'ok', thresholdPct, side: above ? 'above' : 'below', pValue: studentTSf(excess / se, df) };
}

/** The interval of a difference of levels, in % of the baseline level: 100 (diff ± q se) / base. */
export function differenceIntervalPct(diff: number, se: number, df: number, baseLevel: number, level: number): Interval {
  const { low, high } = tInterval({ estimate: diff, se, df }, level);
  const scale = 100 / Math.abs(baseLevel);
  return { kind: 'ok', low: low * scale, high: high * scale, level };
}

export function mannWhitneyRank(baseline: readonly number[], candidate: readonly number[]): RankTest {
  const mw = mannWhitneyU(baseline, candidate);
  if (mw.kind !== 'ok') return mw;
  let arrangements = 1;
  for (let i = 1; i <= baseline.length; i++) arrangements = (arrangements * (candidate.length + i)) / i;
  return { kind: 'ok', method: 'mann-whitney', pValue: mw.pValue, minPValue: Math.min(1, 2 / arrangements) };
}

/**
 * Unpaired: `candidate`'s unit means against the baseline's (one run, or A
 * and A2 pooled unit by unit), Welch's t with Welch-Satterthwaite df and its
 * t interval of the difference of levels, in % of the baseline level.
 */
export function unpairedContrast(
  baselineRole: Contrast['baseline'],
  baselineRuns: readonly Units[],
  candidateRole: RunRole,
  candidate: Units,
  options: ComparisonOptions,
): Contrast {
  const baseLevel = meanOfUnitMeans(baselineRuns);
  const candLevel = meanOfUnitMeans([candidate]);
  const baseUnitMeans = baselineRuns.flatMap(unitMeans);
  const candUnitMeans = unitMeans(candidate);
  const unusable = unusableLevels([[baselineRole, baseUnitMeans], [candidateRole, candUnitMeans]]);
  const { test, ciPct, beyondThreshold } =
    unusable === null ? welchOf(baseUnitMeans, candUnitMeans, baseLevel, candLevel, options) : { test: insufficient(unusable), ciPct: insufficient(unusable), beyondThreshold: insufficient(unusable) };
  return {
    ...base(baselineRole, candidateRole, baseLevel, candLevel, [baselineRuns.flat(2), candidate.flat()]),
    ciPct,
    beyondThreshold,
    units: { baseline: baseUnitMeans.length, candidate: candUnitMeans.length },
    test,
    rank: mannWhitneyRank(baseUnitMeans, candUnitMeans),
    pairs: null,
  };
}

/** A contrast's deciding test, its interval of the change in % and its minimum-effect test. */
interface Decided {
  test: ContrastTest;
  ciPct: Interval | InsufficientData;
  beyondThreshold: BeyondThreshold;
}

/** Welch's test on unit means, its t interval of the change in % and its minimum-effect test. */
function welchOf(base: number[], cand: number[], baseLevel: number, candLevel: number, options: ComparisonOptions): Decided {
  const welch = welchTTest(base, cand);
  if (welch.kind !== 'ok') return { test: welch, ciPct: welch, beyondThreshold: welch };
  const se = seOf(base, cand);
  const diff = candLevel - baseLevel;
  return {
    test: { kind: 'ok', method: 'welch', t: welch.t, df: welch.df, pValue: welch.pValue, sePct: (100 * se) / Math.abs(baseLevel) },
    ciPct: differenceIntervalPct(diff, se, welch.df, baseLevel, options.confidenceLevel),
    beyondThreshold: beyondThresholdT(diff, se, welch.df, levelBounds(options.thresholdPct, baseLevel), options.thresholdPct),
  };
}

/** sqrt(s_a²/n_a + s_b²/n_b): Welch's standard error, for a difference of exactly 0 (t = 0). */
function seOf(a: readonly number[], b: readonly number[]): number {
  const v = (xs: readonly number[]) => stdev(xs as unknown as Sample) ** 2 / xs.length;
  return Math.sqrt(v(a) + v(b));
}

/** A log ratio as a % change. */
const toPct = (logRatio: number) => 100 * (Math.exp(logRatio) - 1);

/** Units of A and B that pair up: unit k of each run, in k order; units of one side only are dropped. */
export interface Pairs {
  a: Sample[];
  b: Sample[];
  /** The unit index of each pair (its position in the invocation). */
  keys?: number[];
  dropped: number;
}

/**
 * How pairs share their processes: 'independent' (a duet's fresh pair per
 * block, one long-lived probe with a switch), `{ generation: g }` (an A and
 * a B process taking turns, replaced every g pairs: pair k belongs to
 * generation floor(k / g)), or 'unrecorded' (taking turns, g not stored).
 */
export type PairGrouping = 'independent' | { generation: number } | 'unrecorded';

/**
 * The mean log ratio of each generation, in generation order. The pairs of
 * one generation share its two processes, and a process carries an effect
 * of its own (placement, caches, a page layout), so they are not
 * independent: with a process effect of 1 % SD, the pair-level t claimed
 * in 10.9 % of identical comparisons at alpha 5 % (issue 32's audit); the
 * generations are (Kalibera & Jones 2013: replicate at the level where the
 * variation is).
 */
export function generationMeans(d: readonly number[], keys: readonly number[], pairsPerGeneration: number): number[] {
  const sums = new Map<number, { sum: number; n: number }>();
  d.forEach((x, i) => {
    const g = Math.floor(keys[i]! / pairsPerGeneration);
    const s = sums.get(g) ?? { sum: 0, n: 0 };
    sums.set(g, { sum: s.sum + x, n: s.n + 1 });
  });
  return [...sums.keys()].sort((a, b) => a - b).map((g) => sums.get(g)!.sum / sums.get(g)!.n);
}

/**
 * Independent pairs from this many on are judged by the signed-rank test
 * and its Hodges-Lehmann interval; fewer, by the paired t. The rule depends
 * on the count only, never on the data, so each test keeps its level. Below
 * 20 pairs the rank test's discreteness costs power (its smallest p is
 * 0.0625 at 5 pairs; Holm over 24 subjects needs 10 pairs to reach
 * alpha/24 at all) and a heavy tail cannot show.
 */
export const SIGNED_RANK_MIN_PAIRS = 20;

/**
 * Paired (duet, alternation): d_k = ln(mean B_k / mean A_k) per pair. The
 * deciding test (./test-types.ts TestMethod):
 *   - independent pairs (a duet's, one process with a switch), at least
 *     SIGNED_RANK_MIN_PAIRS of them: Wilcoxon's signed-rank test, exact under
 *     the random AB/BA order whatever the noise's shape, with the
 *     Hodges-Lehmann estimate and interval (src/stats/hodges-lehmann.ts);
 *     the change is exp(HL) - 1; the paired t is shown beside it;
 *   - otherwise (fewer pairs, generation means of two processes taking
 *     turns, a run stopped by a precision target): Student's paired t with
 *     K - 1 df and its interval mapped through exp, the change exp(mean d)
 *     - 1 (the geometric mean of the per-pair ratios); Wilcoxon's
 *     signed-rank test shown beside it. A run stopped by a precision target
 *     stopped on the width of its interval alone, not on where it lay, so
 *     the fixed-n t holds its level there (docs/compare-designs.md, "Runs stopped
 *     by --precision").
 */
export function pairedContrast(pairs: Pairs, options: ComparisonOptions, anytime: boolean, grouping: PairGrouping = 'independent'): Contrast {
  const unusable =
    unusableLevels([['A', pairs.a.map(mean)], ['B', pairs.b.map(mean)]]) ??
    (grouping === 'unrecorded' ? 'an A and a B process took turns, but the run does not record how many pairs each generation of processes measured, so the pairs cannot be grouped by the processes they share' : null);
  const perPair = unusable === null ? pairs.a.map((a, k) => Math.log(mean(pairs.b[k]!) / mean(a))) : [];
  const d = typeof grouping === 'object' ? generationMeans(perPair, pairs.keys ?? perPair.map((_, k) => k), grouping.generation) : perPair;
  const baseLevel = meanOfUnitMeans([pairs.a]);
  const candLevel = meanOfUnitMeans([pairs.b]);
  const paired = unusable === null ? pairedTTest(d) : insufficient(unusable);
  const ranked = grouping === 'independent' && !anytime && d.length >= SIGNED_RANK_MIN_PAIRS;
  const decided = paired.kind !== 'ok' ? { test: paired, ciPct: paired, beyondThreshold: paired, estimate: Number.NaN } : ranked ? signedRankTest(d, paired, options) : pairedTest(d, paired, options);
  const meanD = d.length > 0 ? mean(d as unknown as Sample) : Number.NaN;
  const estimate = ranked && decided.test.kind === 'ok' ? decided.estimate : meanD;
  const signed = wilcoxonSignedRank(d);
  const beside: RankTest = ranked && paired.kind === 'ok' ? { kind: 'ok', method: 'paired-t', pValue: paired.pValue, minPValue: 0 } : signed.kind === 'ok' ? { kind: 'ok', method: 'wilcoxon-signed-rank', pValue: signed.pValue, minPValue: signed.minPValue } : signed;
  return {
    ...base('A', 'B', baseLevel, candLevel, [pairs.a.flat(), pairs.b.flat()]),
    // The change in the unit is A's level moved by the estimated ratio, so it says what the % says.
    changeInUnit: baseLevel * Math.expm1(estimate),
    changePct: toPct(estimate),
    ratio: Math.exp(estimate),
    ciPct: decided.ciPct,
    beyondThreshold: decided.beyondThreshold,
    units: typeof grouping === 'object' ? { baseline: d.length, candidate: d.length } : { baseline: pairs.a.length, candidate: pairs.a.length },
    test: decided.test,
    rank: beside,
    pairs: { pairs: perPair.length, dropped: pairs.dropped, meanLogRatio: meanD, sdLogRatio: perPair.length >= 2 ? stdev(perPair as unknown as Sample) : Number.NaN, ratios: perPair.map(Math.exp) },
  };
}

/** The paired t on the log ratios, its interval in % and its minimum-effect test. */
function pairedTest(d: readonly number[], paired: MeanTTest & { kind: 'ok' }, options: ComparisonOptions): Decided & { estimate: number } {
  const level = options.confidenceLevel;
  const t = tInterval(paired, level);
  return {
    test: { kind: 'ok', method: 'paired-t', pValue: paired.pValue, t: paired.t, df: paired.df, sePct: 100 * paired.se },
    ciPct: { kind: 'ok', low: toPct(t.low), high: toPct(t.high), level },
    beyondThreshold: beyondThresholdT(paired.estimate, paired.se, paired.df, logBounds(options.thresholdPct), options.thresholdPct),
    estimate: paired.estimate,
  };
}

/**
 * The signed-rank test on the log ratios with the Hodges-Lehmann estimate
 * and interval; its minimum-effect test is the one-sided signed-rank test of
 * the centre at the nearer bound, on the estimate's side. `sePct` is the
 * interval's half-width over z(1 - alpha/2), the normal standard error the
 * power figures use (src/compare/sensitivity.ts).
 */
function signedRankTest(d: readonly number[], paired: MeanTTest & { kind: 'ok' }, options: ComparisonOptions): Decided & { estimate: number } {
  const level = options.confidenceLevel;
  const hl = hodgesLehmann(d, level);
  const w = wilcoxonSignedRank(d);
  if (hl.kind !== 'ok') return { test: hl, ciPct: hl, beyondThreshold: hl, estimate: Number.NaN };
  if (w.kind !== 'ok') return { test: w, ciPct: w, beyondThreshold: w, estimate: Number.NaN };
  const n = d.filter((x) => x !== 0).length;
  const z = (w.wPlus - (n * (n + 1)) / 4) / Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
  const bounds = logBounds(options.thresholdPct);
  const above = hl.estimate >= (bounds.up + bounds.down) / 2;
  const se = (hl.high - hl.low) / (2 * normalQuantile((1 + level) / 2));
  return {
    test: { kind: 'ok', method: 'signed-rank', pValue: w.pValue, t: z, df: paired.df, sePct: 100 * se },
    ciPct: { kind: 'ok', low: toPct(hl.low), high: toPct(hl.high), level },
    beyondThreshold: { kind: 'ok', thresholdPct: options.thresholdPct, side: above ? 'above' : 'below', pValue: signedRankOneSided(d, above ? bounds.up : bounds.down, above ? 'greater' : 'less') },
    estimate: hl.estimate,
  };
}

/** The base of a contrast, for the A/B/A run-level contrast (src/compare/aba.ts). */
export { base as contrastBase };
