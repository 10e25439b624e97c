/** Number formatting shared by verdict reasons and every report format. */
import type { Unit } from '../model.ts';
import { decimalsFor, fixed, readableDecimals } from '../report/format.ts';
import { unitSuffix } from '../report/units.ts';
import type { AdjustedP } from './types.ts';

/**
 * A signed percentage with 2 decimals: '+3.10 %', '-0.42 %'; more when a
 * nonzero value would print as zero ('+0.004 %'), and '±0.00 %' for zero.
 */
export function formatPct(pct: number, decimals = 2): string {
  const d = readableDecimals(decimals, [pct]);
  const digits = fixed(Math.abs(pct), d);
  const sign = /[1-9]/.test(digits) ? (pct > 0 ? '+' : '-') : '±';
  return `${sign}${digits} %`;
}

/** An unsigned percentage (a spread, a CV) with 2 decimals, more when a nonzero value would print as zero: '0.004 %'. */
export function formatSpreadPct(pct: number): string {
  return `${fixed(pct, readableDecimals(2, [pct]))} %`;
}

/** An interval of percentages, both ends with one number of decimals that tells them apart: '-69.62 % to -69.58 %'. */
export function formatPctRange(low: number, high: number, separator: string, decimals = 2): string {
  const d = readableDecimals(decimals, [low, high], [[low, high]]);
  return `${formatPct(low, d)}${separator}${formatPct(high, d)}`;
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

/**
 * 'Welch p = 0.028', followed by the corrected value when a correction
 * applies: 'Welch p = 0.028 (Holm-adjusted over 24 subjects: 0.67)'.
 */
export function welchClause(rawP: number, adjusted: AdjustedP): string {
  const raw = `Welch ${pClause(rawP)}`;
  if (adjusted.kind !== 'adjusted' || adjusted.correction === 'none') return raw;
  const n = adjusted.familySize;
  return `${raw} (Holm-adjusted over ${n} subject${n === 1 ? '' : 's'}: ${formatP(adjusted.welchPValue)})`;
}

/**
 * A figure with its unit: '166.2 ns', '1841.0 instr', '48211 bogo-ops/s'.
 * Instruction counts and emulated time are never labelled 'ns' (unitSuffix).
 * `scale` picks the decimals, so a stdev prints as precisely as its mean.
 */
export function formatValue(value: number, unit: Unit, scale: number = value): string {
  return `${fixed(value, readableDecimals(decimalsFor(scale), [value]))} ${unitSuffix(unit)}`;
}

/** A signed change with its unit: '+57.2 ns', '-0.14 instr'. Decimals follow `scale` (the baseline). */
export function formatChange(change: number, unit: Unit, scale: number): string {
  return formatChangeAt(change, unit, readableDecimals(decimalsFor(scale), [change]));
}

/** A signed change with its unit at given decimals: '+57.2 ns'; '±0.0 ns' when it prints as zero. */
export function formatChangeAt(change: number, unit: Unit, decimals: number): string {
  const digits = fixed(Math.abs(change), decimals);
  const sign = /[1-9]/.test(digits) ? (change > 0 ? '+' : '-') : '±';
  return `${sign}${digits} ${unitSuffix(unit)}`;
}
