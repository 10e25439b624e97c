/**
 * Descriptive statistics over plain arrays of numbers. Callers guarantee a
 * non-empty array where the type says `Sample`; nothing here reorders the
 * caller's array.
 */

/** A sample with at least one value. */
export type Sample = readonly [number, ...number[]];

/** True when `xs` is non-empty (narrows to `Sample`). */
/** The first value that is NaN or infinite, as text, or null when every value is finite. */
export function nonFinite(xs: readonly number[]): string | null {
  const bad = xs.find((x) => !Number.isFinite(x));
  return bad === undefined ? null : String(bad);
}

export function isSample(xs: readonly number[]): xs is Sample {
  return xs.length > 0;
}

/** Arithmetic mean. Summed in order; ample for the ~1e6-range values and <1e4 rounds we see. */
export function mean(xs: Sample): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Median: the middle value, or the mean of the two middle values (Hyndman & Fan type 7 at p = 0.5). */
export function median(xs: Sample): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Unbiased sample variance (divisor n - 1), two-pass algorithm
 * (Chan, Golub & LeVeque 1983: subtracting the mean first avoids the
 * catastrophic cancellation of the one-pass sum-of-squares formula).
 * 0 for a single value.
 */
export function variance(xs: Sample): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return ss / (xs.length - 1);
}

/** Sample standard deviation, sqrt of the unbiased variance (n - 1). */
export function stdev(xs: Sample): number {
  return Math.sqrt(variance(xs));
}

/** Coefficient of variation in %: 100 * stdev / |mean|. NaN when the mean is 0. */
export function cvPct(xs: Sample): number {
  const m = mean(xs);
  return m === 0 ? Number.NaN : (100 * stdev(xs)) / Math.abs(m);
}

export function min(xs: Sample): number {
  return xs.reduce((a, b) => (b < a ? b : a));
}

export function max(xs: Sample): number {
  return xs.reduce((a, b) => (b > a ? b : a));
}

/**
 * Geometric mean exp(mean(ln x)) of positive values: the right average of
 * ratios (Fleming & Wallace 1986, "How not to lie with statistics: the
 * correct way to summarize benchmark results"). Throws on a value <= 0,
 * which is a caller bug for ratios of positive costs.
 */
export function geometricMean(xs: Sample): number {
  let logSum = 0;
  for (const x of xs) {
    if (!(x > 0)) throw new RangeError(`geometricMean: value ${x} is not positive`);
    logSum += Math.log(x);
  }
  return Math.exp(logSum / xs.length);
}
