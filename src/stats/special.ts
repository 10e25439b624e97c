/**
 * Special functions behind the t and normal distributions: log-gamma, the
 * regularized incomplete beta function and the regularized upper incomplete
 * gamma function. Accurate to about 1e-14 relative, checked against scipy in
 * test/stats/distributions.test.ts.
 */

const LANCZOS_G = 7;
// Lanczos coefficients for g = 7, n = 9 (Numerical Recipes 3rd ed. / Godfrey), ~1e-15 relative.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0, Lanczos approximation (g = 7, n = 9) with the reflection formula below 0.5. */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lnGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + LANCZOS_G + 0.5;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const EPS = Number.EPSILON;
const TINY = 1e-300;
const MAX_ITER = 100_000;

/**
 * Continued fraction of the incomplete beta function, evaluated with the
 * modified Lentz method (Numerical Recipes 3rd ed. §6.4 `betacf`). Converges
 * fast for x < (a + 1) / (a + b + 2).
 */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITER; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) return h;
  }
  throw new Error(`incomplete beta: no convergence for a=${a} b=${b} x=${x}`);
}

/**
 * Regularized incomplete beta function I_x(a, b) for a, b > 0 and
 * 0 <= x <= 1 (Numerical Recipes 3rd ed. §6.4 `betai`), using the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) where the continued fraction converges faster.
 */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0)) throw new RangeError(`regularizedBeta: a=${a}, b=${b} must be > 0`);
  if (!(x >= 0 && x <= 1)) throw new RangeError(`regularizedBeta: x=${x} outside [0, 1]`);
  if (x === 0 || x === 1) return x;
  const lnFront = lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/**
 * Regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a) for
 * a > 0, x >= 0: series for P when x < a + 1, Lentz continued fraction for Q
 * otherwise (Numerical Recipes 3rd ed. §6.2 `gser`/`gcf`).
 */
export function regularizedGammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`regularizedGammaQ: a=${a}, x=${x}`);
  if (x === 0) return 1;
  const lnFront = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    let ap = a;
    let del = 1 / a;
    let sum = del;
    for (let n = 0; n < MAX_ITER; n++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * EPS) return 1 - sum * Math.exp(lnFront);
    }
    throw new Error(`incomplete gamma series: no convergence for a=${a} x=${x}`);
  }
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i <= MAX_ITER; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) return Math.exp(lnFront) * h;
  }
  throw new Error(`incomplete gamma fraction: no convergence for a=${a} x=${x}`);
}
