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
 *
 * compare resamples units of replication, not rounds (the hierarchical
 * bootstrap below): rounds of one probe process or boot are not independent.
 */
import { type Sample, mean } from './descriptive.ts';
import { type Random, mulberry32, randomIndex } from './random.ts';
import { type InsufficientData, type Interval, insufficient } from './result.ts';

export interface BootstrapOptions {
  resamples: number;
  seed: number;
  /** Confidence level, e.g. 0.95. */
  level: number;
}

/** The type-7 percentile of already sorted values, 0 <= p <= 1. */
export function sortedPercentile(sorted: Sample, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Rounds of one run grouped by unit of replication (probe process, boot,
 * stress-ng invocation): `units[u]` holds the rounds of unit u. Rounds of one
 * unit share its state, so the unit, not the round, is the independent
 * observation.
 */
export type Units = readonly Sample[];

/** The mean of each unit's rounds. */
export function unitMeans(units: Units): number[] {
  return units.map((u) => mean(u));
}

/**
 * The level of one or more runs: the unweighted mean of all their unit means
 * (each unit counts once however many rounds it has; with one round per unit
 * it is the mean of the rounds).
 */
export function meanOfUnitMeans(runs: readonly Units[]): number {
  let sum = 0;
  let n = 0;
  for (const run of runs) {
    for (const u of run) {
      sum += mean(u);
      n++;
    }
  }
  return sum / n;
}

/**
 * One two-stage resample of a run: draw as many units as it has, with
 * replacement, then each drawn unit's rounds with replacement; returns the
 * sum of the resampled unit means. A unit of one round needs no second draw
 * (so with one round per unit this is the ordinary bootstrap, draw for draw).
 */
function resampleUnitMeansSum(units: Units, random: Random): number {
  let sum = 0;
  for (let i = 0; i < units.length; i++) {
    const unit = units[randomIndex(random, units.length)]!;
    if (unit.length === 1) {
      sum += unit[0];
      continue;
    }
    let s = 0;
    for (let j = 0; j < unit.length; j++) s += unit[randomIndex(random, unit.length)]!;
    sum += s / unit.length;
  }
  return sum;
}

/**
 * Hierarchical (two-stage) percentile-bootstrap interval of the % change of
 * the candidate's level over the baseline's, levels being means of unit
 * means. Davison & Hinkley (1997), Bootstrap Methods and their Application,
 * §3.8: resampling units, then rounds within the drawn units, puts the
 * variation between units into the interval; it slightly overstates the
 * within-unit part (counted at both stages), which errs on the wide side.
 * `baseline` is one or more runs (A, or A and A2), each resampled on its
 * own: units never move between runs. Deterministic for a seed.
 */
export function hierarchicalBootstrapChangePct(
  baseline: readonly Units[],
  candidate: Units,
  options: BootstrapOptions,
): Interval | InsufficientData {
  if (candidate.length < 2 || baseline.some((run) => run.length < 2)) {
    return insufficient('the bootstrap interval needs at least 2 units of replication in every run');
  }
  if (!(options.resamples >= 100)) return insufficient(`${options.resamples} bootstrap resamples are too few (use >= 100)`);
  const baseUnits = baseline.reduce((s, run) => s + run.length, 0);
  const random = mulberry32(options.seed);
  const changes = new Float64Array(options.resamples);
  for (let r = 0; r < options.resamples; r++) {
    let baseSum = 0;
    for (const run of baseline) baseSum += resampleUnitMeansSum(run, random);
    const candidateLevel = resampleUnitMeansSum(candidate, random) / candidate.length;
    changes[r] = 100 * (candidateLevel / (baseSum / baseUnits) - 1);
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
