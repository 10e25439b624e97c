/**
 * Variance components of a balanced one-way random-effects model:
 * y_gj = mu + a_g + e_gj, a_g ~ N(0, sigma²_between), e_gj ~ N(0,
 * sigma²_within), g = 1..G groups of n values each (Searle, Casella &
 * McCulloch, *Variance Components*, Wiley 1992, §3.5-3.6). Used to ask
 * whether the pairs measured by one generation of probe processes share an
 * effect beyond what their own spread predicts (bench/process-effects.ts).
 */
import { regularizedBeta } from './special.ts';
import { insufficient, type InsufficientData } from './result.ts';

/** The one-way ANOVA table and the variance components it estimates. */
export interface OneWayRandomEffects {
  kind: 'ok';
  groups: number;
  perGroup: number;
  dfBetween: number;
  dfWithin: number;
  msBetween: number;
  msWithin: number;
  /** MS_between / MS_within: F(G-1, G(n-1)) when sigma²_between is 0. */
  f: number;
  /** One-sided p of sigma²_between = 0 (the upper tail of F). */
  pValue: number;
  /** The ANOVA (method-of-moments) estimate (MS_between - MS_within) / n, unclipped: negative when the groups agree better than their spread predicts. */
  sigma2Between: number;
  /** MS_within, the estimate of sigma²_within. */
  sigma2Within: number;
  /**
   * Exact interval for the ratio sigma²_between / sigma²_within at `level`,
   * ((F / F_hi - 1) / n, (F / F_lo - 1) / n) with F_lo, F_hi the F(G-1,
   * G(n-1)) quantiles at (1 - level)/2 and (1 + level)/2 (Searle et al. 1992,
   * §3.5d), clipped at 0 where the bound falls below.
   */
  ratio: { low: number; high: number; level: number };
}

/** P(F <= x) for Snedecor's F with d1 and d2 degrees of freedom: I_{d1 x / (d1 x + d2)}(d1/2, d2/2). */
export function fCdf(x: number, d1: number, d2: number): number {
  if (x <= 0) return 0;
  return regularizedBeta((d1 * x) / (d1 * x + d2), d1 / 2, d2 / 2);
}

/** The F(d1, d2) quantile at p, by bisection of the CDF (monotone) to 1e-12 relative. */
export function fQuantile(p: number, d1: number, d2: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`fQuantile: p=${p} outside (0, 1)`);
  let low = 0;
  let high = 1;
  while (fCdf(high, d1, d2) < p) high *= 2;
  while (high - low > 1e-12 * high) {
    const mid = (low + high) / 2;
    if (fCdf(mid, d1, d2) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * The balanced one-way random-effects ANOVA of `groups` (every group the
 * same size, at least 2 groups of at least 2 values). Normal theory: with
 * heavy-tailed values the F's distribution is only approximate, which a
 * caller can check by permuting values between groups.
 */
export function oneWayRandomEffects(groups: readonly (readonly number[])[], level = 0.95): OneWayRandomEffects | InsufficientData {
  const G = groups.length;
  const n = groups[0]?.length ?? 0;
  if (G < 2 || n < 2) return insufficient(`${G} groups of ${n} values: the ANOVA needs at least 2 groups of at least 2`);
  if (groups.some((g) => g.length !== n)) return insufficient('the groups differ in size: this ANOVA is for balanced groups');
  const means = groups.map(mean);
  const grand = mean(means);
  const ssBetween = n * means.reduce((s, m) => s + (m - grand) ** 2, 0);
  const ssWithin = groups.reduce((s, g, i) => s + g.reduce((t, y) => t + (y - means[i]!) ** 2, 0), 0);
  const dfBetween = G - 1;
  const dfWithin = G * (n - 1);
  const msBetween = ssBetween / dfBetween;
  const msWithin = ssWithin / dfWithin;
  if (!(msWithin > 0)) return insufficient('no spread within the groups');
  const f = msBetween / msWithin;
  const tail = (1 - level) / 2;
  const bound = (q: number) => Math.max(0, (f / fQuantile(q, dfBetween, dfWithin) - 1) / n);
  return {
    kind: 'ok',
    groups: G,
    perGroup: n,
    dfBetween,
    dfWithin,
    msBetween,
    msWithin,
    f,
    pValue: 1 - fCdf(f, dfBetween, dfWithin),
    sigma2Between: (msBetween - msWithin) / n,
    sigma2Within: msWithin,
    ratio: { low: bound(1 - tail), high: bound(tail), level },
  };
}
