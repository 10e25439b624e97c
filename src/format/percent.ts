/**
 * How a percentage is written. Each name has one meaning; the kinds differ
 * on purpose (a change is signed, a spread is not, a table column is short,
 * a share of branch outcomes has no space before '%'). Bottom floor.
 */
import { fixed, plusMinus, readableDecimals } from './numbers.ts';

/**
 * A change in percent, signed, with 2 decimals: '+3.10 %', '-0.42 %'; more
 * when a nonzero value would print as zero ('+0.004 %'), '±0.00 %' for zero.
 */
export function formatChangePct(pct: number, decimals = 2): string {
  const d = readableDecimals(decimals, [pct]);
  return `${plusMinus(pct, fixed(Math.abs(pct), d))} %`;
}

/** An interval of changes, both ends with one number of decimals that tells them apart: '-69.62 % to -69.58 %'. */
export function formatChangePctRange(low: number, high: number, separator: string, decimals = 2): string {
  const d = readableDecimals(decimals, [low, high], [[low, high]]);
  return `${formatChangePct(low, d)}${separator}${formatChangePct(high, d)}`;
}

/** An unsigned percentage in prose (a spread, a CV) with 2 decimals, more when a nonzero value would print as zero: '0.004 %'. */
export function formatSpreadPct(pct: number): string {
  return `${fixed(pct, readableDecimals(2, [pct]))} %`;
}

/**
 * An unsigned percentage in a table column (a CV, a spread): two decimals
 * below 10 %, one above, more when a nonzero value would print as zero
 * ("0.004 %"); 'n/a' when not finite.
 */
export function formatColumnPct(p: number): string {
  if (!Number.isFinite(p)) return 'n/a';
  return `${fixed(p, readableDecimals(Math.abs(p) < 10 ? 2 : 1, [p]))} %`;
}

/** Percent decimals for a change and its interval: two when all are below 1 %. */
export function pctDecimals(...values: number[]): number {
  return values.every((v) => Math.abs(v) < 1) ? 2 : 1;
}

/** A percentage alone in prose (a detectable change): "0.4", "12.3", "0.02", never "0.0" for a nonzero value. */
export function pctFixed(v: number): string {
  return fixed(v, readableDecimals(1, [v]));
}

/** A share (0..1) of branch outcomes as a percentage with enough digits to tell 99.9 % from 100 %: '42.00%', '<0.01%'. */
export function formatSharePct(share: number): string {
  const p = share * 100;
  if (p > 0 && p < 0.01) return '<0.01%';
  if (p < 100 && p > 99.99) return '>99.99%';
  return `${p.toFixed(2)}%`;
}
