/**
 * Minimum detectable effect and rounds needed: a change δ is detected with
 * power 1-β at two-sided level α when δ >= ncp(df, α, 1-β) · SE, where SE
 * is the standard error of the difference of means, df its
 * Welch-Satterthwaite degrees of freedom and ncp the noncentrality at which
 * the t test reaches that power (exact, from the noncentral t: ./noncentral.ts).
 * The textbook (t_{1-α/2, df} + t_{1-β, df}) · SE (Julious 2004, Statistics
 * in Medicine 23:1921-1986, eq. 5) is within 1 % of it from 28 df but 16 %
 * short at 1 df.
 *
 * compare passes units of replication (the spread of unit means and their
 * count) as the observations, so its answers count processes or boots.
 */
import { detectableNcp } from './noncentral.ts';
import { type InsufficientData, insufficient } from './result.ts';

/** Noise of one run: sample standard deviation and rounds. */
export interface RunNoise {
  stdev: number;
  n: number;
}

export interface PowerOptions {
  alpha: number;
  /** 1 - β, e.g. 0.8. */
  power: number;
  /** 2 (the default): the two-sided test at alpha; 1: the one-sided test at alpha (a minimum-effect test). */
  sides?: 1 | 2;
}

function welchDf(a: RunNoise, b: RunNoise): number {
  const va = (a.stdev * a.stdev) / a.n;
  const vb = (b.stdev * b.stdev) / b.n;
  return ((va + vb) * (va + vb)) / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
}

/** Standard errors a change must be to reach the power: the exact noncentral-t figure (./noncentral.ts). */
function multiplier(df: number, options: PowerOptions): number {
  return detectableNcp(df, options.alpha, options.power, options.sides ?? 2);
}

function checkNoise(a: RunNoise, b: RunNoise): InsufficientData | null {
  if (a.n < 2 || b.n < 2) return insufficient(`power needs at least 2 units of replication per run (have ${a.n} and ${b.n})`);
  if (a.stdev === 0 && b.stdev === 0) return insufficient('zero noise in both runs: the power approximation is undefined');
  return null;
}

/**
 * The smallest absolute change of means detectable with these rounds, in
 * the runs' unit: ncp(df) · sqrt(s_a²/n_a + s_b²/n_b).
 */
export function minimumDetectableEffect(
  a: RunNoise,
  b: RunNoise,
  options: PowerOptions,
): { kind: 'ok'; effect: number } | InsufficientData {
  const bad = checkNoise(a, b);
  if (bad) return bad;
  const se = Math.sqrt((a.stdev * a.stdev) / a.n + (b.stdev * b.stdev) / b.n);
  return { kind: 'ok', effect: multiplier(welchDf(a, b), options) * se };
}

/** Rounds beyond which we stop searching: a plan this long is no plan. */
const MAX_ROUNDS = 1_000_000;

/**
 * Rounds per run (the same for both) needed to detect an absolute change
 * `effect` (in the runs' unit) at the noise of `a` and `b`: the smallest n
 * with ncp(df(n)) · sqrt((s_a² + s_b²)/n) <= effect.
 */
export function roundsNeeded(
  a: RunNoise,
  b: RunNoise,
  effect: number,
  options: PowerOptions,
): { kind: 'ok'; rounds: number } | InsufficientData {
  const bad = checkNoise(a, b);
  if (bad) return bad;
  if (!(effect > 0)) return insufficient(`the effect to detect must be > 0 (got ${effect})`);
  const s2 = a.stdev * a.stdev + b.stdev * b.stdev;
  const enough = (n: number): boolean =>
    multiplier(welchDf({ stdev: a.stdev, n }, { stdev: b.stdev, n }), options) * Math.sqrt(s2 / n) <= effect;
  const n = smallestEnough(enough, 1);
  return n === null ? insufficient(`more than ${MAX_ROUNDS} units per run would be needed`) : { kind: 'ok', rounds: n };
}

/**
 * The smallest n > lo0 with enough(n), by doubling then bisection; null
 * beyond MAX_ROUNDS. The t multiplier only shrinks as n grows, so `enough`
 * is monotone.
 */
function smallestEnough(enough: (n: number) => boolean, lo0: number): number | null {
  let lo = lo0;
  let hi = lo0 + 1;
  while (!enough(hi)) {
    if (hi >= MAX_ROUNDS) return null;
    lo = hi;
    hi = Math.min(hi * 2, MAX_ROUNDS);
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (enough(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Pairs needed for a paired t-test (K - 1 df) to detect a mean difference
 * `effect` when the differences scatter with standard deviation `sd`: the
 * smallest K with ncp(K-1) · sd / sqrt(K) <= effect (as above, one sample).
 */
export function pairsNeeded(sd: number, effect: number, options: PowerOptions): { kind: 'ok'; pairs: number } | InsufficientData {
  if (!(sd > 0)) return insufficient('zero spread between pairs: the power approximation is undefined');
  if (!(effect > 0)) return insufficient(`the effect to detect must be > 0 (got ${effect})`);
  const enough = (k: number): boolean => multiplier(k - 1, options) * (sd / Math.sqrt(k)) <= effect;
  const k = smallestEnough(enough, 2);
  return k === null ? insufficient(`more than ${MAX_ROUNDS} pairs would be needed`) : { kind: 'ok', pairs: k };
}
