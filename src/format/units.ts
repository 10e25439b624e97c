/**
 * How a value in a run's unit is written. The unit travels with every
 * number, so an instruction-counted run can never be printed as ns.
 * Bottom floor: imports only the model's unit names.
 */
import type { ReplicateUnit, Unit } from '../model.ts';
import { decimalsFor, fixed, plusMinus, readableDecimals } from './numbers.ts';

/** How a unit is spoken about in prose and field names. */
export interface UnitWords {
  /** After a per-op value: "182.4 ns/call". */
  perOp: string;
  /** After an absolute change: "-11.8 ns". */
  change: string;
  /** What one op of a round is: "20000 calls". */
  ops: string;
  /** Replaces `InUnit` in JSON field names: `meanNsPerCall`. */
  fieldSuffix: string;
  /** What the figure is when it is not a wall-clock time, or null. */
  caution: string | null;
}

const UNIT_WORDS: Record<Unit, UnitWords> = {
  'ns/call': { perOp: 'ns/call', change: 'ns', ops: 'calls', fieldSuffix: 'NsPerCall', caution: null },
  'instructions/call': {
    perOp: 'instructions/call',
    change: 'instructions',
    ops: 'calls',
    fieldSuffix: 'InstructionsPerCall',
    caution: 'guest instructions per call counted by qemu -icount: a count, not a time',
  },
  'emulated-time/call': {
    perOp: 'emulated-time/call',
    change: 'emulated-time units',
    ops: 'calls',
    fieldSuffix: 'EmulatedTimePerCall',
    caution: 'emulated guest clock (qemu TCG): emulation time, not real time',
  },
  'bogo-ops/s': {
    perOp: 'bogo-ops/s',
    change: 'bogo-ops/s',
    ops: 'bogo ops',
    fieldSuffix: 'BogoOpsPerSecond',
    caution: 'stress-ng throughput: higher is better',
  },
  'emulated-bogo-ops/s': {
    perOp: 'emulated-bogo-ops/s',
    change: 'emulated-bogo-ops/s',
    ops: 'bogo ops',
    fieldSuffix: 'EmulatedBogoOpsPerSecond',
    caution: 'stress-ng throughput in a TCG guest, per emulated second (not real time): higher is better, useful only as ratios between kernels',
  },
  'icount-bogo-ops/s': {
    perOp: 'bogo-ops/guest-s',
    change: 'bogo-ops/guest-s',
    ops: 'bogo ops',
    fieldSuffix: 'BogoOpsPerGuestSecond',
    caution: 'stress-ng throughput per second of the guest clock under qemu -icount (a guest second is 10^9 guest instructions, idle time skipped): not real time; higher is better, a ratio between kernels',
  },
};

export function unitWords(unit: Unit): UnitWords {
  return UNIT_WORDS[unit];
}

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
    case 'icount-bogo-ops/s':
      return 'bogo-ops/guest-s';
  }
}

/** 'process'/'processes', 'boot'/'boots', 'invocation'/'invocations'. */
export function unitNounOf(unit: ReplicateUnit, plural: boolean): string {
  const nouns: Record<ReplicateUnit, [string, string]> = { process: ['process', 'processes'], boot: ['boot', 'boots'], invocation: ['invocation', 'invocations'] };
  return nouns[unit][plural ? 1 : 0];
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
  return `${plusMinus(change, fixed(Math.abs(change), decimals))} ${unitSuffix(unit)}`;
}
