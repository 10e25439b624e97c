/**
 * Two-sample significance tests: Welch's t-test and the Mann-Whitney U test.
 * Both compare a `candidate` sample with a `baseline` sample and are
 * two-sided. A test that cannot be computed returns `insufficient-data`.
 */
import { isSample, mean, nonFinite, variance } from './descriptive.ts';
import { normalSf, studentTSf } from './distributions.ts';
import { type InsufficientData, insufficient } from './result.ts';

export type WelchTest =
  | { kind: 'ok'; t: number; df: number; pValue: number }
  | InsufficientData;

/**
 * Welch's unequal-variance t-test (Welch 1947, Biometrika 34:28-35) with
 * the Welch-Satterthwaite degrees of freedom
 * df = (v1/n1 + v2/n2)² / ((v1/n1)²/(n1-1) + (v2/n2)²/(n2-1)).
 * Same as scipy.stats.ttest_ind(candidate, baseline, equal_var=False).
 *
 * `extra` adds an independent variance component to the difference (in the
 * values' unit squared) with its own degrees of freedom, which enters the
 * Satterthwaite (1946) df like the samples' terms: used for run-to-run
 * variation estimated outside the two samples.
 */
export function welchTTest(
  baseline: readonly number[],
  candidate: readonly number[],
  extra: { variance: number; df: number } = { variance: 0, df: 1 },
): WelchTest {
  if (baseline.length < 2 || candidate.length < 2 || !isSample(baseline) || !isSample(candidate)) {
    return insufficient(
      `Welch's t-test needs at least 2 rounds per run (have ${baseline.length} and ${candidate.length})`,
    );
  }
  const bad = nonFinite([...baseline, ...candidate]);
  if (bad !== null) return insufficient(`a value is ${bad}: Welch's t-test needs finite values`);
  const seB = variance(baseline) / baseline.length;
  const seC = variance(candidate) / candidate.length;
  const se2 = seB + seC + extra.variance;
  if (se2 === 0) {
    return insufficient('every round of both runs has the same value: zero variance, t is undefined');
  }
  const t = (mean(candidate) - mean(baseline)) / Math.sqrt(se2);
  const df =
    (se2 * se2) / ((seB * seB) / (baseline.length - 1) + (seC * seC) / (candidate.length - 1) + (extra.variance * extra.variance) / extra.df);
  return { kind: 'ok', t, df, pValue: Math.min(1, 2 * studentTSf(Math.abs(t), df)) };
}

export type MannWhitneyTest =
  | { kind: 'ok'; u: number; pValue: number; method: 'exact' | 'normal-approximation'; ties: boolean }
  | InsufficientData;

/** Midranks (1-based, ties get the mean of their ranks) and the tie-group sizes. */
function rank(values: readonly number[]): { ranks: number[]; tieSizes: number[] } {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    const midrank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k]![1]] = midrank;
    if (j > i) tieSizes.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, tieSizes };
}

/**
 * Counts of each U value under H0 for sample sizes m and n without ties: the
 * coefficients of the Gaussian binomial [m+n choose m]_q, built as the
 * product over i = 1..m of (1 - q^(n+i)) / (1 - q^i) (Andrews, The Theory
 * of Partitions, 3.3; the Mann & Whitney 1947 recursion in closed form).
 * Every partial product is itself a Gaussian binomial, so all coefficients
 * stay non-negative integers below C(m+n, m).
 */
function exactUCounts(m: number, n: number): number[] {
  const size = m * n + 1;
  const c = new Array<number>(size).fill(0);
  c[0] = 1;
  for (let i = 1; i <= m; i++) {
    const up = n + i;
    for (let k = size - 1; k >= up; k--) c[k]! -= c[k - up]!;
    for (let k = i; k < size; k++) c[k]! += c[k - i]!;
  }
  return c;
}

/** C(m+n, m) as a float: the number of equally likely rank arrangements. */
function arrangements(m: number, n: number): number {
  let r = 1;
  for (let i = 1; i <= m; i++) r = (r * (n + i)) / i;
  return r;
}

/** Exact counts are integers in doubles only below 2^53; beyond that use the normal approximation. */
const EXACT_LIMIT = 2 ** 53;

/**
 * Mann-Whitney U test (Mann & Whitney 1947), two-sided. U counts the
 * (candidate, baseline) pairs where the candidate is larger, ties counting
 * 1/2. Without ties and with C(n1+n2, n1) < 2^53 the p-value comes from the
 * exact null distribution (p = 2 P(U >= max(U, n1 n2 - U)), capped at 1);
 * otherwise from the normal approximation with the tie-corrected variance
 * n1 n2 / 12 ((N+1) - Σ(t³-t) / (N(N-1))) and a continuity correction of 1/2.
 * Same as scipy.stats.mannwhitneyu(candidate, baseline, method='exact' or
 * 'asymptotic', use_continuity=True).
 */
export function mannWhitneyU(baseline: readonly number[], candidate: readonly number[]): MannWhitneyTest {
  const n1 = candidate.length;
  const n2 = baseline.length;
  if (n1 < 1 || n2 < 1) return insufficient(`Mann-Whitney U needs rounds in both runs (have ${n2} and ${n1})`);
  const bad = nonFinite([...baseline, ...candidate]);
  if (bad !== null) return insufficient(`a value is ${bad}: Mann-Whitney U needs finite values`);
  const { ranks, tieSizes } = rank([...candidate, ...baseline]);
  let rankSum = 0;
  for (let i = 0; i < n1; i++) rankSum += ranks[i]!;
  const u = rankSum - (n1 * (n1 + 1)) / 2;
  const uMax = Math.max(u, n1 * n2 - u);
  const ties = tieSizes.length > 0;
  if (!ties && arrangements(n1, n2) < EXACT_LIMIT) {
    const counts = exactUCounts(Math.min(n1, n2), Math.max(n1, n2));
    let atLeast = 0;
    for (let k = Math.ceil(uMax); k < counts.length; k++) atLeast += counts[k]!;
    const pValue = Math.min(1, (2 * atLeast) / arrangements(n1, n2));
    return { kind: 'ok', u, pValue, method: 'exact', ties };
  }
  const total = n1 + n2;
  const tieTerm = tieSizes.reduce((s, t) => s + t * t * t - t, 0) / (total * (total - 1));
  const sd = Math.sqrt(((n1 * n2) / 12) * (total + 1 - tieTerm));
  if (sd === 0) return insufficient('every round of both runs has the same value: the U statistic carries no information');
  const z = (uMax - (n1 * n2) / 2 - 0.5) / sd;
  return { kind: 'ok', u, pValue: Math.min(1, 2 * normalSf(z)), method: 'normal-approximation', ties };
}
