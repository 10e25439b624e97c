/**
 * How a value in a run's unit is written. The unit travels with every
 * number, so an instruction-counted run can never be printed as ns.
 */
import type { Unit } from '../model.ts';
import { decimalsFor, fixed, readableDecimals } from './format.ts';

/** Short suffix printed after a per-call value. */
export function unitSuffix(unit: Unit): string {
  switch (unit) {
    case 'ns/call':
      return 'ns';
    case 'instructions/call':
      return 'instr';
    case 'emulated-time/call':
      return 'emu-time';
    case 'bogo-ops/s':
      return 'bogo-ops/s';
    case 'emulated-bogo-ops/s':
      return 'emu-bogo-ops/s';
  }
}

/** A value with about four significant digits (the reports' rule); thousands grouped from 100,000. */
export function formatNumber(v: number): string {
  if (Number.isFinite(v) && Math.abs(v) >= 100_000) return Math.round(v).toLocaleString('en-US');
  return fixed(v, readableDecimals(decimalsFor(v), [v]));
}

/** `166.2 ns`, `1234 instr`, `10,867,835 bogo-ops/s`. */
export function formatValue(v: number, unit: Unit): string {
  return `${formatNumber(v)} ${unitSuffix(unit)}`;
}

/** A percentage with two decimals below 10 %, one above, more when a nonzero value would print as zero ("0.004 %"). */
export function formatPct(p: number): string {
  if (!Number.isFinite(p)) return 'n/a';
  return `${fixed(p, readableDecimals(Math.abs(p) < 10 ? 2 : 1, [p]))} %`;
}
