/**
 * One-sample tests on paired differences (for designs that measure A and B
 * together: per-pair log ratios d_k = ln(B_k / A_k)): the paired t-test,
 * which decides, and the Wilcoxon signed-rank test, shown beside it.
 * Both are two-sided tests of "the differences are centred on 0".
 */
import { isSample, mean, nonFinite, variance } from './descriptive.ts';
import { normalSf, studentTQuantile, studentTSf } from './distributions.ts';
import { type InsufficientData, insufficient } from './result.ts';

/** A t-test of a mean: t, its degrees of freedom, two-sided p, and the estimate and standard error behind them. */
export type MeanTTest =
  | { kind: 'ok'; estimate: number; se: number; t: number; df: number; pValue: number }
  | InsufficientData;

/**
 * Student's one-sample (paired) t-test of mean(xs) = 0 (Student 1908):
 * t = mean / (s / sqrt(n)) with n - 1 degrees of freedom. Same as
 * scipy.stats.ttest_1samp(xs, 0).
 */
export function pairedTTest(xs: readonly number[]): MeanTTest {
  if (xs.length < 2 || !isSample(xs)) return insufficient(`a paired t-test needs at least 2 pairs (have ${xs.length})`);
  const bad = nonFinite(xs);
  if (bad !== null) return insufficient(`a difference is ${bad}: the paired t-test needs finite values`);
  const se = Math.sqrt(variance(xs) / xs.length);
  if (se === 0) return insufficient('every pair differs by the same amount: zero variance, t is undefined');
  const m = mean(xs);
  const t = m / se;
  const df = xs.length - 1;
  return { kind: 'ok', estimate: m, se, t, df, pValue: Math.min(1, 2 * studentTSf(Math.abs(t), df)) };
}

/** The two-sided t interval estimate ± t(1 - (1-level)/2, df) x se of a t-test's estimate. */
export function tInterval(test: { estimate: number; se: number; df: number }, level: number): { low: number; high: number } {
  const q = studentTQuantile((1 + level) / 2, test.df);
  return { low: test.estimate - q * test.se, high: test.estimate + q * test.se };
}

export type SignedRankTest =
  | { kind: 'ok'; wPlus: number; pValue: number; method: 'exact' | 'normal-approximation'; minPValue: number }
  | InsufficientData;

/** Exact null counts of W+ for n untied, nonzero differences: subsets of {1..n} by sum. */
export function signedRankCounts(n: number): number[] {
  const max = (n * (n + 1)) / 2;
  const c = new Array<number>(max + 1).fill(0);
  c[0] = 1;
  for (let r = 1; r <= n; r++) for (let s = max; s >= r; s--) c[s]! += c[s - r]!;
  return c;
}

/** Midranks of |xs| (1-based) and the tie-group sizes. */
export function absRanks(xs: readonly number[]): { ranks: number[]; tieSizes: number[] } {
  const order = xs.map((v, i) => [Math.abs(v), i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(xs.length);
  const tieSizes: number[] = [];
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) ranks[order[k]![1]] = (i + j) / 2 + 1;
    if (j > i) tieSizes.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, tieSizes };
}

/** Exact counts are integers in doubles up to 2^53 arrangements: 52 pairs. */
export const EXACT_PAIRS = 50;

/**
 * Wilcoxon signed-rank test (Wilcoxon 1945) of symmetry about 0, two-sided.
 * Zero differences are dropped (Wilcoxon's original treatment). Without
 * ties and with at most 50 pairs the p-value is exact, 2 P(W+ >= max(W+,
 * n(n+1)/2 - W+)) capped at 1; otherwise the normal approximation with the
 * tie-corrected variance n(n+1)(2n+1)/24 - sum(t³ - t)/48 and a continuity
 * correction of 1/2. Same as scipy.stats.wilcoxon(xs, zero_method='wilcox',
 * method='exact' or 'approx', correction=True). `minPValue` is the smallest
 * p these pairs could give (2 / 2^n exact): with 5 pairs it is 0.0625.
 */
export function wilcoxonSignedRank(xs: readonly number[]): SignedRankTest {
  const bad = nonFinite(xs);
  if (bad !== null) return insufficient(`a difference is ${bad}: the signed-rank test needs finite values`);
  const nonzero = xs.filter((x) => x !== 0);
  const n = nonzero.length;
  if (n < 1) return insufficient('the signed-rank test needs a pair that differs');
  const { ranks, tieSizes } = absRanks(nonzero);
  let wPlus = 0;
  nonzero.forEach((x, i) => {
    if (x > 0) wPlus += ranks[i]!;
  });
  const total = (n * (n + 1)) / 2;
  const wMax = Math.max(wPlus, total - wPlus);
  if (tieSizes.length === 0 && n <= EXACT_PAIRS) {
    const counts = signedRankCounts(n);
    let atLeast = 0;
    for (let k = Math.ceil(wMax); k < counts.length; k++) atLeast += counts[k]!;
    const pValue = Math.min(1, (2 * atLeast) / 2 ** n);
    return { kind: 'ok', wPlus, pValue, method: 'exact', minPValue: Math.min(1, 2 / 2 ** n) };
  }
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieSizes.reduce((s, t) => s + t * t * t - t, 0) / 48);
  if (sd === 0) return insufficient('every pair differs by the same amount: the signed ranks carry no information');
  const z = (wMax - total / 2 - 0.5) / sd;
  return { kind: 'ok', wPlus, pValue: Math.min(1, 2 * normalSf(z)), method: 'normal-approximation', minPValue: Math.min(1, 2 * normalSf((total / 2 - 0.5) / sd)) };
}
