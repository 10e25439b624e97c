/**
 * How a number is written, in one place for every format (text, lkml,
 * Markdown, HTML, JSON prose, compare's reasons, macro, vm and hints
 * tables). Bottom floor: imports nothing, so every layer may use it.
 * Numbers are only formatted here, never computed.
 *
 * The display precision rule:
 * - a figure starts with about four significant digits (`decimalsFor`);
 *   figures read together (a before -> after pair, a change and its
 *   interval) share one number of decimals, taken from the smallest of them,
 *   so "1991 -> 605" is never printed next to "583.4 -> 607.5";
 * - an interval whose ends would print the same gets more decimals until
 *   they differ (never "CI -69.6 to -69.6 %");
 * - a nonzero value that would round to zero gets more decimals until a
 *   nonzero digit shows (never "detectable: 0.0 %" for 0.02 %);
 * - a value that still rounds to zero prints without a sign (never "-0.0").
 * Decimals never exceed MAX_DECIMALS. Digits are never grouped (no thousands
 * separators), so a figure reads the same in every column and format.
 */
export const MAX_DECIMALS = 6;

/**
 * Decimals that show about four significant digits of the smallest nonzero
 * |value| (182.4, 45.23, 1534), at most three; one when there is none.
 */
export function decimalsFor(...values: number[]): number {
  const sizes = values.filter((v) => Number.isFinite(v) && v !== 0).map(Math.abs);
  if (sizes.length === 0) return 1;
  return Math.min(3, Math.max(0, 3 - Math.floor(Math.log10(Math.min(...sizes)))));
}

/** True when `v` at `decimals` prints only zeros although it is not zero. */
function roundsToZero(v: number, decimals: number): boolean {
  return Number.isFinite(v) && v !== 0 && Number(Math.abs(v).toFixed(decimals)) === 0;
}

/** True when the two ends of a finite, non-degenerate interval print the same at `decimals`. */
function endsMeet(low: number, high: number, decimals: number): boolean {
  return Number.isFinite(low) && Number.isFinite(high) && low !== high && low.toFixed(decimals) === high.toFixed(decimals);
}

/**
 * The decimals for figures read together: `base`, raised until every
 * nonzero value of `show` prints a nonzero digit and the ends of every
 * interval in `apart` print differently (see the rule above).
 */
export function readableDecimals(base: number, show: readonly number[], apart: readonly (readonly [number, number])[] = []): number {
  let d = Math.max(0, base);
  while (d < MAX_DECIMALS && (show.some((v) => roundsToZero(v, d)) || apart.some(([lo, hi]) => endsMeet(lo, hi, d)))) d++;
  return d;
}

/** A value with fixed decimals; non-finite values print as "n/a", a value rounding to zero as unsigned zero. */
export function fixed(v: number, decimals: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  const s = v.toFixed(decimals);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A value rounded to `decimals` places, as a number (for a coordinate or a figure printed as `String(n)`, without trailing zeros). */
export function roundTo(v: number, decimals: number): number {
  return Number(v.toFixed(decimals));
}

/** A value with `digits` significant digits: 0.00041, 1.2e+5 where the digits need it (`Number.prototype.toPrecision`). */
export function significant(v: number, digits: number): string {
  return v.toPrecision(digits);
}

/** A value in scientific notation with `decimals` decimals in the mantissa: `1.2e+5`. */
export function scientific(v: number, decimals: number): string {
  return v.toExponential(decimals);
}

/** A signed value: "+5.3", "-11.8" (a value printing as zero is unsigned). */
export function signed(v: number, decimals: number): string {
  const s = fixed(v, decimals);
  return v > 0 && /[1-9]/.test(s) ? `+${s}` : s;
}

/** `digits` (an unsigned figure) with '+' or '-' from `v`, or '±' when the digits are all zero. */
export function plusMinus(v: number, digits: string): string {
  const sign = /[1-9]/.test(digits) ? (v > 0 ? '+' : '-') : '±';
  return `${sign}${digits}`;
}

/**
 * A value with about four significant digits (the reports' rule). Digits
 * are never grouped, in any format: a separator on some numbers only
 * ("119,626" next to "45.20") breaks a column's alignment and the
 * copy-paste of a figure into a shell or a script.
 */
export function formatNumber(v: number): string {
  return fixed(v, readableDecimals(decimalsFor(v), [v]));
}

/** A p-value: 2 significant digits, scientific below 0.001, '< 1e-16' at the limit of doubles. */
export function formatP(p: number): string {
  if (p < 1e-16) return '< 1e-16';
  if (p < 0.001) return p.toExponential(1);
  return p.toPrecision(2);
}

/** 'p = 0.29' or 'p < 1e-16', for sentences. */
export function pClause(p: number): string {
  const text = formatP(p);
  return text.startsWith('<') ? `p ${text}` : `p = ${text}`;
}
