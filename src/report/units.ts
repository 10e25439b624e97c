/**
 * How a value in a run's unit is written. The unit travels with every
 * number, so an instruction-counted run can never be printed as ns.
 */
import type { Unit } from '../model.ts';

/** Short suffix printed after a per-call value. */
export function unitSuffix(unit: Unit): string {
  switch (unit) {
    case 'ns/call':
      return 'ns';
    case 'instructions/call':
      return 'instr';
    case 'emulated-ns/call':
      return 'emu-ns';
    case 'bogo-ops/s':
      return 'bogo-ops/s';
  }
}

/** A value with a sensible number of digits for its size. */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 100_000) return Math.round(v).toLocaleString('en-US');
  if (a >= 1000) return v.toFixed(0);
  if (a >= 100) return v.toFixed(1);
  if (a >= 10) return v.toFixed(2);
  return v.toFixed(3);
}

/** `166.2 ns`, `1234 instr`, `10,867,835 bogo-ops/s`. */
export function formatValue(v: number, unit: Unit): string {
  return `${formatNumber(v)} ${unitSuffix(unit)}`;
}

/** A percentage with two decimals below 10 %, one above. */
export function formatPct(p: number): string {
  if (!Number.isFinite(p)) return 'n/a';
  return `${Math.abs(p) < 10 ? p.toFixed(2) : p.toFixed(1)} %`;
}
