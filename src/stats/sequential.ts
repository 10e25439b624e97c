/**
 * Anytime-valid confidence sequences: an interval for a mean that holds
 * simultaneously at every sample size, so a measurement may look at it after
 * every pair and stop whenever it likes (a precision target reached, a time
 * budget spent) without raising the false-claim rate above alpha. A fixed-n
 * t interval looked at after every pair does not hold its level: stopping at
 * the first n where it excludes 0 claims a difference in far more than alpha
 * of identical comparisons (test/stats/sequential.test.ts shows both).
 */

/** A confidence-sequence interval for the mean after `n` values; lo/hi are ±Infinity while n is too small to bound it. */
export interface AnytimeInterval {
  centre: number;
  lo: number;
  hi: number;
  n: number;
}

/** Tuning of the mixture: the sample size at which the interval is made narrowest. */
export interface SequenceOptions {
  /** Default 50: narrowest near 50 values, valid at every n; width grows only like sqrt(log n) away from it. */
  tuneAtN?: number;
}

const DEFAULT_TUNE_AT_N = 50;

/**
 * Mixture precision lambda making the boundary narrowest near n = m, from
 * the normal-mixture tuning of Howard, Ramdas, McAuliffe & Sekhon (2021,
 * "Time-uniform, nonparametric, nonasymptotic confidence sequences", Annals
 * of Statistics 49(2)) for their normal-mixture boundary:
 * rho = m / (2 ln(1/alpha) + ln(1 + 2 ln(1/alpha))), with m counted in values
 * because theta is in units of sigma.
 */
export function mixturePrecision(tuneAtN: number, alpha: number): number {
  const l = Math.log(1 / alpha);
  return tuneAtN / (2 * l + Math.log(1 + 2 * l));
}

/**
 * The half-width of the sequence at n values whose sum of squared deviations
 * from their mean is q (Infinity while n is too small to bound the mean).
 */
export function sequenceHalfWidth(n: number, q: number, alpha: number, options: SequenceOptions = {}): number {
  const lambda = mixturePrecision(options.tuneAtN ?? DEFAULT_TUNE_AT_N, alpha);
  // R = ((n + lambda)/(lambda alpha²))^(1/n), computed in logs.
  const r = Math.exp((Math.log((n + lambda) / lambda) - 2 * Math.log(alpha)) / n);
  const denominator = 1 - (r * lambda) / (n + lambda);
  if (!(denominator > 0)) return Number.POSITIVE_INFINITY;
  return Math.sqrt((q * (r - 1)) / (n * denominator));
}

/**
 * A (1 - alpha) confidence sequence for the mean of xs (e.g. per-pair log
 * ratios ln(B_k/A_k)), valid simultaneously at every n, so a run may stop at
 * any n it chooses; null when n < 3.
 *
 * Estimator: Lai's (1976, "On confidence sequences", Annals of Statistics
 * 4(2):265-280) t confidence sequence for a normal mean with unknown
 * variance, as reviewed by Wang & Ramdas (2023, "Anytime-valid t-tests and
 * confidence sequences for Gaussian means with unknown variance"). The data
 * are reduced by scale invariance (Wijsman's representation of the
 * likelihood ratio of the maximal invariant) and the standardized effect
 * theta = (mean - mu)/sigma is mixed over a N(0, 1/lambda) prior, which gives
 * the nonnegative null martingale
 *   M_n(mu) = sqrt(lambda/(n+lambda)) * (V / (V - S²/(n+lambda)))^(n/2),
 *   S = sum(x_i - mu), V = sum((x_i - mu)²).
 * Ville's inequality bounds P(exists n: M_n(mu) >= 1/alpha) by alpha, so
 * {mu : M_n(mu) < 1/alpha} covers the true mean at all n at once. With
 * Q = sum((x_i - mean)²) and R = ((n+lambda)/(lambda alpha²))^(1/n), the set is
 *   |mean - mu| < sqrt(Q (R - 1) / (n (1 - R lambda/(n+lambda))))
 * and the whole line while R lambda >= n + lambda. Assumes independent,
 * roughly normal values with a common variance: log ratios of round means
 * over many calls are close to normal by the central limit theorem.
 */
export function confidenceSequence(
  xs: readonly number[],
  alpha: number,
  options: SequenceOptions = {},
): AnytimeInterval | null {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`confidenceSequence: alpha=${alpha} outside (0, 1)`);
  const n = xs.length;
  if (n < 3) return null;
  let sum = 0;
  for (const x of xs) sum += x;
  const centre = sum / n;
  let q = 0;
  for (const x of xs) q += (x - centre) * (x - centre);
  const half = sequenceHalfWidth(n, q, alpha, options);
  if (half === Number.POSITIVE_INFINITY) return { centre, lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY, n };
  return { centre, lo: centre - half, hi: centre + half, n };
}
