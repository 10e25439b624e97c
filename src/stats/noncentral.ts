/**
 * Exact power of the t test, from the noncentral t distribution: with
 * T = (Z + ncp) / S, Z standard normal and S = sqrt(V / df), V chi-square
 * with df degrees of freedom,
 *   P(T > q)  = E_S[ Phi(ncp - q S) ],
 *   P(T < -q) = E_S[ Phi(-q S - ncp) ],
 * integrated over the density of S by Simpson's rule (the integrand is
 * smooth and S concentrates within a few 1/sqrt(2 df) of 1). The usual
 * approximation (t(1 - alpha/2, df) + t(power, df)) x SE (Julious 2004)
 * understates the needed change at few degrees of freedom: by 16 % at 1 df
 * (16.3 against 14.1 standard errors), the A/B/A run-level test's df.
 * Same as scipy.stats.nct.sf(q, df, ncp) (+ nct.cdf(-q, df, ncp) two-sided),
 * checked in test/stats/noncentral.test.ts.
 */
import { studentTQuantile } from './distributions.ts';
import { lnGamma } from './special.ts';

/**
 * Phi(x) from erfc by Chebyshev fitting (Numerical Recipes 2nd ed. §6.2
 * `erfcc`, fractional error below 1.2e-7 everywhere): the integrand is
 * evaluated a few thousand times per solution, where the 1e-14 erfc of
 * ./distributions.ts would cost a hundred times more than the figures need.
 */
function phi(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const erfc = t * Math.exp(-z * z + poly);
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** Simpson steps per scale of the integrand (the spread of S, or 1/q over which Phi(ncp - q S) turns). */
const STEPS_PER_SCALE = 8;
/** Beyond these degrees of freedom S is 1 to within 1e-3 and the normal limit is used. */
const NORMAL_DF = 1e6;

/** E[g(S)] for S = sqrt(chi2_df / df), by Simpson's rule over where S has its mass. */
function expectOverS(df: number, q: number, g: (s: number) => number): number {
  const spread = 1 / Math.sqrt(2 * df);
  const lo = Math.max(0, 1 - 14 * spread);
  const hi = 1 + 14 * spread;
  const steps = 2 * Math.ceil(((hi - lo) * STEPS_PER_SCALE) / Math.min(spread, 1 / q) / 2);
  const h = (hi - lo) / steps;
  const logC = Math.log(2) + (df / 2) * Math.log(df / 2) - lnGamma(df / 2);
  const f = (s: number) => (s <= 0 ? (df === 1 ? Math.exp(logC) * g(0) : 0) : Math.exp(logC + (df - 1) * Math.log(s) - (df * s * s) / 2) * g(s));
  let sum = f(lo) + f(hi);
  for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * f(lo + i * h);
  return (sum * h) / 3;
}

/**
 * Power of the t test with `df` degrees of freedom at level `alpha` when the
 * true effect is `ncp` standard errors: two-sided (rejects |T| > t(1 -
 * alpha/2)) or one-sided (T > t(1 - alpha)).
 */
export function tTestPower(ncp: number, df: number, alpha: number, sides: 1 | 2): number {
  const q = studentTQuantile(1 - alpha / sides, df);
  if (df >= NORMAL_DF) return phi(ncp - q) + (sides === 2 ? phi(-q - ncp) : 0);
  return expectOverS(df, q, (s) => phi(ncp - q * s) + (sides === 2 ? phi(-q * s - ncp) : 0));
}

/**
 * The noncentrality (true effect in standard errors) at which the t test
 * reaches `power`: the exact multiplier of the standard error in a minimum
 * detectable effect. Power grows with ncp, so bisection finds it.
 */
export function detectableNcp(df: number, alpha: number, power: number, sides: 1 | 2): number {
  if (!(df > 0)) throw new RangeError(`detectableNcp: df=${df} must be > 0`);
  const dfKey = flooredDf(df);
  const key = `${dfKey} ${alpha} ${power} ${sides}`;
  const known = solved.get(key);
  if (known !== undefined) return known;
  const ncp = solveNcp(dfKey, alpha, power, sides);
  if (solved.size > MAX_SOLVED) solved.clear();
  solved.set(key, ncp);
  return ncp;
}

/**
 * df floored to 3 significant digits: fewer df need a larger change, so the
 * figure errs on the side of more units, by under 0.1 % of it, and Welch's
 * fractional df share solutions.
 */
function flooredDf(df: number): number {
  if (df >= NORMAL_DF) return NORMAL_DF;
  const step = 10 ** (Math.floor(Math.log10(df)) - 2);
  return Math.max(step, Math.floor(df / step + 1e-9) * step);
}

/** Solved multipliers: a comparison asks for the same few df again and again. */
const solved = new Map<string, number>();
const MAX_SOLVED = 10_000;

/**
 * The root of power(ncp) = target by the secant method from the textbook
 * t + t figure, which is within 20 % of it at every df, kept inside a
 * bracket that bisection narrows whenever a secant step leaves it.
 */
function solveNcp(df: number, alpha: number, power: number, sides: 1 | 2): number {
  const f = (ncp: number) => tTestPower(ncp, df, alpha, sides) - power;
  let lo = 0;
  let hi = studentTQuantile(1 - alpha / sides, df) + Math.max(0, studentTQuantile(power, df));
  while (f(hi) < 0) {
    lo = hi;
    hi *= 2;
  }
  let x0 = hi;
  let f0 = f(x0);
  let x1 = (lo + hi) / 2;
  for (let i = 0; i < 100; i++) {
    const f1 = f(x1);
    if (f1 < 0) lo = x1;
    else hi = x1;
    if (Math.abs(f1) < 1e-10 || hi - lo < 1e-9 * hi) return x1;
    let next = x1 - (f1 * (x1 - x0)) / (f1 - f0);
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    [x0, f0, x1] = [x1, f1, next];
  }
  return (lo + hi) / 2;
}
