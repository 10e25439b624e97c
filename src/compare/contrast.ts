/**
 * One contrast (B vs A, A2 vs A, B vs A+A2) at the level of its
 * observations: unit means for unpaired designs (Welch's t), per-pair log
 * ratios for paired ones (Student's paired t, or the confidence sequence of
 * a run stopped by a precision target). The interval of the change is the
 * deciding test's own t interval, so p < alpha exactly when it excludes 0;
 * a t interval on unit means holds its level at 3 units, where the
 * hierarchical percentile bootstrap of schema 3-5 missed in 12.2 % of
 * simulated identical comparisons (docs/compare.md). The round-level Welch
 * test is kept beside them for reference; it never decides a verdict.
 */
import { type Units, meanOfUnitMeans, unitMeans } from '../stats/bootstrap.ts';
import { type Sample, mean, stdev } from '../stats/descriptive.ts';
import { type MeanTTest, pairedTTest, tInterval, wilcoxonSignedRank } from '../stats/paired.ts';
import type { Interval, InsufficientData } from '../stats/result.ts';
import { insufficient } from '../stats/result.ts';
import { anytimePValue, confidenceSequence } from '../stats/sequential.ts';
import { mannWhitneyU, welchTTest } from '../stats/tests.ts';
import type { ComparisonOptions, Contrast, ContrastTest, RankTest, RunRole } from './types.ts';

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
  const { test, ciPct } = welchOf(baseUnitMeans, candUnitMeans, baseLevel, candLevel, options.confidenceLevel);
  return {
    ...base(baselineRole, candidateRole, baseLevel, candLevel, [baselineRuns.flat(2), candidate.flat()]),
    ciPct,
    units: { baseline: baseUnitMeans.length, candidate: candUnitMeans.length },
    test,
    rank: mannWhitneyRank(baseUnitMeans, candUnitMeans),
    pairs: null,
  };
}

/** Welch's test on unit means and its t interval of the change in %. */
function welchOf(base: number[], cand: number[], baseLevel: number, candLevel: number, level: number): { test: ContrastTest; ciPct: Interval | InsufficientData } {
  const welch = welchTTest(base, cand);
  if (welch.kind !== 'ok') return { test: welch, ciPct: welch };
  const se = seOf(base, cand);
  return {
    test: { kind: 'ok', method: 'welch', t: welch.t, df: welch.df, pValue: welch.pValue, sePct: (100 * se) / Math.abs(baseLevel) },
    ciPct: differenceIntervalPct(candLevel - baseLevel, se, welch.df, baseLevel, level),
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
  dropped: number;
}

/**
 * Paired (duet, alternation): d_k = ln(mean B_k / mean A_k) per pair, the
 * change exp(mean d) - 1 (the geometric mean of the per-pair ratios),
 * Student's paired t with K - 1 df and its interval mapped through exp; or,
 * when the run stopped by a precision target (`anytime`), the confidence
 * sequence and its anytime-valid p (src/stats/sequential.ts), so optional
 * stopping keeps the false-claim rate at alpha. Wilcoxon's signed-rank test
 * on d_k is shown beside it.
 */
export function pairedContrast(pairs: Pairs, options: ComparisonOptions, anytime: boolean): Contrast {
  const d = pairs.a.map((a, k) => Math.log(mean(pairs.b[k]!) / mean(a)));
  const baseLevel = meanOfUnitMeans([pairs.a]);
  const candLevel = meanOfUnitMeans([pairs.b]);
  const paired = pairedTTest(d);
  const { test, ciPct } = paired.kind === 'ok' ? pairedTest(d, paired, options.confidenceLevel, anytime) : { test: paired, ciPct: paired };
  const meanD = d.length > 0 ? mean(d as unknown as Sample) : Number.NaN;
  const signed = wilcoxonSignedRank(d);
  return {
    ...base('A', 'B', baseLevel, candLevel, [pairs.a.flat(), pairs.b.flat()]),
    changePct: toPct(meanD),
    ratio: Math.exp(meanD),
    ciPct,
    units: { baseline: d.length, candidate: d.length },
    test,
    rank: signed.kind === 'ok' ? { kind: 'ok', method: 'wilcoxon-signed-rank', pValue: signed.pValue, minPValue: signed.minPValue } : signed,
    pairs: { pairs: d.length, dropped: pairs.dropped, meanLogRatio: meanD, sdLogRatio: d.length >= 2 ? stdev(d as unknown as Sample) : Number.NaN, ratios: d.map(Math.exp) },
  };
}

/** The paired t, or with `anytime` the confidence sequence and its p, and the interval in %. */
function pairedTest(d: readonly number[], paired: MeanTTest & { kind: 'ok' }, level: number, anytime: boolean): { test: ContrastTest; ciPct: Interval | InsufficientData } {
  const common = { t: paired.t, df: paired.df, sePct: 100 * paired.se };
  if (!anytime) {
    const t = tInterval(paired, level);
    return { test: { kind: 'ok', method: 'paired-t', pValue: paired.pValue, ...common }, ciPct: { kind: 'ok', low: toPct(t.low), high: toPct(t.high), level } };
  }
  const cs = confidenceSequence(d, 1 - level);
  const p = anytimePValue(d, 0, { alpha: 1 - level });
  if (cs === null || p === null) {
    const none = insufficient('the confidence sequence needs at least 3 pairs');
    return { test: none, ciPct: none };
  }
  return { test: { kind: 'ok', method: 'anytime', pValue: p, ...common }, ciPct: { kind: 'ok', low: toPct(cs.lo), high: toPct(cs.hi), level } };
}

/** The base of a contrast, for the A/B/A run-level contrast (src/compare/aba.ts). */
export { base as contrastBase };
