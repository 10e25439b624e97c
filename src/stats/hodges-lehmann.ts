/**
 * The Hodges-Lehmann estimate of a centre of symmetry and its distribution-
 * free confidence interval, the interval that goes with Wilcoxon's
 * signed-rank test (Hodges & Lehmann 1963; Hollander & Wolfe, Nonparametric
 * Statistical Methods, 2nd ed. 1999, §3.2-3.3). For per-pair log ratios of a
 * paired design in random AB/BA order, the pairs' signs are coin flips under
 * no change, so the test and the interval are exact whatever the shape of
 * the noise; with the heavy tails measured here (robust spread about half
 * the SD) they are narrower than the paired t's.
 *
 * With the M = n(n+1)/2 Walsh averages (x_i + x_j)/2, i <= j, sorted as
 * W(1) <= ... <= W(M):
 *   - the estimate is their median;
 *   - the (1 - alpha) interval is [W(C), W(M + 1 - C)], where C = M + 1 - t
 *     and t is the smallest value with P(T+ >= t) <= alpha/2 under the null
 *     (exact counts of T+ up to 50 values without ties), else C = the
 *     integer part of n(n+1)/4 - z(1 - alpha/2) sqrt(n(n+1)(2n+1)/24)
 *     (H&W eq. 3.27);
 *   - W(C) > mu0 exactly when T+ computed on x - mu0 reaches the critical
 *     value (Tukey's duality), so the interval excludes mu0 exactly when the
 *     exact test rejects it.
 * Walsh averages are selected without listing them (O(n log n) per order
 * statistic), so 10 000 pairs cost what 10 000 values do.
 */
import { formatP } from '../format/numbers.ts';
import { normalQuantile, normalSf } from './distributions.ts';
import { type InsufficientData, insufficient } from './result.ts';
import { absRanks, EXACT_PAIRS, signedRankCounts } from './paired.ts';

export type HodgesLehmann =
  | {
      kind: 'ok';
      /** The median of the Walsh averages. */
      estimate: number;
      low: number;
      high: number;
      /** The level the interval was asked for (its achieved level is at least this with exact counts). */
      level: number;
      method: 'exact' | 'normal-approximation';
    }
  | InsufficientData;

/** Walsh averages (x_i + x_j)/2, i <= j, of sorted xs that are <= v. */
function countAtMost(sorted: readonly number[], v: number): number {
  const n = sorted.length;
  let count = 0;
  let j = n - 1;
  // for each i, the j >= i with x_i + x_j <= 2v form a prefix of i..n-1; j only moves down as i grows
  for (let i = 0; i < n; i++) {
    while (j >= i && sorted[i]! + sorted[j]! > 2 * v) j--;
    if (j < i) break;
    count += j - i + 1;
  }
  return count;
}

/** The first j in [from, n) with (x_i + x_j)/2 > lo, by bisection (sorted ascending). */
function firstAbove(sorted: readonly number[], i: number, lo: number): number {
  let a = i;
  let b = sorted.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if ((sorted[i]! + sorted[mid]!) / 2 > lo) b = mid;
    else a = mid + 1;
  }
  return a;
}

/** The Walsh averages in (lo, hi], sorted: per i a bisection to the first above lo, then those up to hi. */
function walshBetween(sorted: readonly number[], lo: number, hi: number): number[] {
  const out: number[] = [];
  const n = sorted.length;
  for (let i = 0; i < n; i++) {
    for (let j = firstAbove(sorted, i, lo); j < n; j++) {
      const w = (sorted[i]! + sorted[j]!) / 2;
      if (w > hi) break;
      out.push(w);
    }
  }
  return out.sort((a, b) => a - b);
}

/** The k-th smallest (1-based) Walsh average of sorted xs: bisect on the value, then list the few left in the bracket. */
export function walshOrderStatistic(sorted: readonly number[], k: number): number {
  const n = sorted.length;
  let lo = sorted[0]! - 1;
  let hi = sorted[n - 1]!;
  let below = 0;
  // invariant: countAtMost(lo) = below < k <= countAtMost(hi)
  for (;;) {
    const atHi = countAtMost(sorted, hi);
    if (atHi - below <= 4 * n) break;
    const mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    const atMid = countAtMost(sorted, mid);
    if (atMid >= k) hi = mid;
    else {
      lo = mid;
      below = atMid;
    }
  }
  return walshBetween(sorted, lo, hi)[k - below - 1]!;
}

/** The exact C of the interval for n untied values: M + 1 - (smallest t with P(T+ >= t) <= alpha/2). */
function exactC(n: number, alpha: number): number {
  const counts = signedRankCounts(n);
  const total = 2 ** n;
  const m = (n * (n + 1)) / 2;
  let tail = 0;
  let t = m + 1;
  while (t > 0 && tail + counts[t - 1]! <= (alpha / 2) * total) tail += counts[--t]!;
  return m + 1 - t;
}

/**
 * Hodges-Lehmann estimate and (1 - alpha) interval of the centre of
 * symmetry of xs (see the file comment). Exact without ties (equal values
 * or zeros) up to 50 values; otherwise the normal approximation. With too
 * few values to reach the level (C < 1: 5 values at 95 %), the interval is
 * the whole line and the result says why.
 */
export function hodgesLehmann(xs: readonly number[], level: number): HodgesLehmann {
  const n = xs.length;
  if (n < 2) return insufficient(`the Hodges-Lehmann interval needs at least 2 pairs (have ${n})`);
  if (xs.some((x) => !Number.isFinite(x))) return insufficient('a difference is not finite: the Hodges-Lehmann interval needs finite values');
  const sorted = [...xs].sort((a, b) => a - b);
  const m = (n * (n + 1)) / 2;
  const median = m % 2 === 1 ? walshOrderStatistic(sorted, (m + 1) / 2) : (walshOrderStatistic(sorted, m / 2) + walshOrderStatistic(sorted, m / 2 + 1)) / 2;
  const alpha = 1 - level;
  const ties = absRanks(xs).tieSizes.length > 0 || xs.includes(0);
  const exact = !ties && n <= EXACT_PAIRS;
  const c = exact ? exactC(n, alpha) : Math.floor(m / 2 - normalQuantile(1 - alpha / 2) * Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24));
  if (c < 1) return insufficient(`${n} pairs cannot give a ${Math.round(level * 100)} % signed-rank interval: the smallest two-sided p they allow is ${formatP(2 / 2 ** n)}`);
  return { kind: 'ok', estimate: median, low: walshOrderStatistic(sorted, c), high: walshOrderStatistic(sorted, m + 1 - c), level, method: exact ? 'exact' : 'normal-approximation' };
}

/**
 * One-sided Wilcoxon signed-rank p of "the centre is at most mu0"
 * (`greater`) or "at least mu0" (`less`), on xs - mu0 with zeros dropped:
 * exact without ties up to 50 values, else normal with the tie-corrected
 * variance and a continuity correction of 1/2 (as
 * scipy.stats.wilcoxon(x - mu0, alternative=...)). 1 when nothing differs.
 */
export function signedRankOneSided(xs: readonly number[], mu0: number, alternative: 'greater' | 'less'): number {
  const shifted = xs.map((x) => x - mu0).filter((x) => x !== 0);
  const n = shifted.length;
  if (n === 0) return 1;
  const { ranks, tieSizes } = absRanks(shifted);
  let wPlus = 0;
  shifted.forEach((x, i) => {
    if (x > 0) wPlus += ranks[i]!;
  });
  const total = (n * (n + 1)) / 2;
  const w = alternative === 'greater' ? wPlus : total - wPlus;
  if (tieSizes.length === 0 && n <= EXACT_PAIRS) {
    const counts = signedRankCounts(n);
    let atLeast = 0;
    for (let k = Math.ceil(w); k < counts.length; k++) atLeast += counts[k]!;
    return Math.min(1, atLeast / 2 ** n);
  }
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieSizes.reduce((s, t) => s + t * t * t - t, 0) / 48);
  if (sd === 0) return 1;
  return Math.min(1, normalSf((w - total / 2 - 0.5) / sd));
}
