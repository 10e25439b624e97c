/**
 * Bootstrap confidence interval of the % change between two means.
 *
 * Which bootstrap: the two-sample (stratified) *percentile* bootstrap
 * (Efron & Tibshirani 1993, An Introduction to the Bootstrap, §8.3 and
 * §13.3). Each resample draws, with replacement, as many rounds as each run
 * has *from that run only* (rounds are never moved between runs; a pooled
 * baseline A+A2 is resampled run by run), computes
 * 100 * (mean(candidate*) / mean(baseline*) - 1), and the interval is the
 * (1-level)/2 and (1+level)/2 percentiles of those resampled changes
 * (linear interpolation between order statistics, Hyndman & Fan type 7).
 * Caveat: with very few rounds (< 10) percentile intervals are somewhat too
 * narrow; the verdict also requires Welch's p < alpha.
 */
import { type Sample } from './descriptive.ts';
import { type Random, mulberry32, randomIndex } from './random.ts';
import { type InsufficientData, type Interval, insufficient } from './result.ts';

export interface BootstrapOptions {
  resamples: number;
  seed: number;
  /** Confidence level, e.g. 0.95. */
  level: number;
}

function resampleSum(sample: readonly number[], random: Random): number {
  let sum = 0;
  for (let i = 0; i < sample.length; i++) sum += sample[randomIndex(random, sample.length)]!;
  return sum;
}

/** The type-7 percentile of already sorted values, 0 <= p <= 1. */
export function sortedPercentile(sorted: Sample, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Percentile-bootstrap interval of the % change of the candidate's mean over
 * the baseline's mean. `baseline` is one or more runs (A, or A and A2 for a
 * pooled baseline), each resampled separately. Deterministic for a seed.
 */
export function bootstrapChangePct(
  baseline: readonly (readonly number[])[],
  candidate: readonly number[],
  options: BootstrapOptions,
): Interval | InsufficientData {
  const baseN = baseline.reduce((s, run) => s + run.length, 0);
  if (candidate.length < 2 || baseline.some((run) => run.length < 2)) {
    return insufficient('the bootstrap interval needs at least 2 rounds in every run');
  }
  if (!(options.resamples >= 100)) return insufficient(`${options.resamples} bootstrap resamples are too few (use >= 100)`);
  const random = mulberry32(options.seed);
  const changes = new Float64Array(options.resamples);
  for (let r = 0; r < options.resamples; r++) {
    let baseSum = 0;
    for (const run of baseline) baseSum += resampleSum(run, random);
    const candidateMean = resampleSum(candidate, random) / candidate.length;
    changes[r] = 100 * (candidateMean / (baseSum / baseN) - 1);
  }
  changes.sort();
  const sorted = Array.from(changes) as unknown as Sample;
  const tail = (1 - options.level) / 2;
  return {
    kind: 'ok',
    low: sortedPercentile(sorted, tail),
    high: sortedPercentile(sorted, 1 - tail),
    level: options.level,
  };
}
