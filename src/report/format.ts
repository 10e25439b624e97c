/**
 * Number and unit wording shared by the lkml, Markdown, JSON and HTML
 * reports, so every format prints the same figure the same way. Numbers are
 * only formatted here, never computed (they come from a Comparison).
 */
import { directionOf, type ReplicateUnit, type Unit } from '../model.ts';
import type { Interval, InsufficientData, RunSummary } from '../compare/types.ts';

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
};

export function unitWords(unit: Unit): UnitWords {
  return UNIT_WORDS[unit];
}

/**
 * Decimals that show about four significant digits of `reference`
 * (182.4, 45.23, 1534), at most three.
 */
export function decimalsFor(reference: number): number {
  if (!Number.isFinite(reference) || reference === 0) return 1;
  return Math.min(3, Math.max(0, 3 - Math.floor(Math.log10(Math.abs(reference)))));
}

/** A value with fixed decimals; non-finite values print as "n/a". */
export function fixed(v: number, decimals: number): string {
  return Number.isFinite(v) ? v.toFixed(decimals) : 'n/a';
}

/** A signed value: "+5.3", "-11.8" (zero prints unsigned). */
export function signed(v: number, decimals: number): string {
  const s = fixed(v, decimals);
  return v > 0 && Number.isFinite(v) && Number(s) !== 0 ? `+${s}` : s;
}

/** Percent decimals for a change and its interval: two when all are below 1 %. */
export function pctDecimals(...values: number[]): number {
  return values.every((v) => Math.abs(v) < 1) ? 2 : 1;
}

export function isInterval(x: Interval | InsufficientData): x is Interval {
  return x.kind !== 'insufficient-data';
}

/** "95 % CI -6.9 to -6.1 %", or why there is none. */
export function ciPctText(ci: Interval | InsufficientData, decimals: number): string {
  if (!isInterval(ci)) return `no CI: ${ci.reason}`;
  return `${Math.round(ci.level * 100)} % CI ${signed(ci.low, decimals)} to ${signed(ci.high, decimals)} %`;
}

/** "CV 0.3 %" when every run shows the same CV, else "CV A/B/A2 0.3/0.4/0.3 %". */
export function cvText(runs: RunSummary[]): string {
  const cvs = runs.map((r) => fixed(r.cvPct, 1));
  if (new Set(cvs).size === 1) return `CV ${cvs[0]} %`;
  return `CV ${runs.map((r) => r.role).join('/')} ${cvs.join('/')} %`;
}

/**
 * The units of replication and rounds behind each run: "3 processes x 5
 * rounds", "A/B 3/1 processes x 5/15 rounds", "5 invocations" (one round
 * each), "15 rounds (units not recorded)" for runs stored before units were.
 */
export function unitsText(runs: RunSummary[]): string {
  const first = runs[0];
  if (!first) return '';
  const same = (f: (r: RunSummary) => string) => {
    const xs = runs.map(f);
    return new Set(xs).size === 1 ? xs[0]! : xs.join('/');
  };
  const roles = runs.map((r) => r.role).join('/');
  const differ = new Set(runs.map((r) => `${r.units} ${r.n}`)).size > 1;
  const lead = differ ? `${roles} ` : '';
  if (!first.replicateUnit.known) return `${lead}${same((r) => String(r.n))} rounds (units not recorded)`;
  const units = `${same((r) => String(r.units))} ${unitNounOf(first.replicateUnit.value, runs.some((r) => r.units !== 1))}`;
  if (runs.every((r) => r.n === r.units)) return `${lead}${units}`;
  const perUnit = same((r) => {
    const lo = Math.min(...r.roundsPerUnit);
    const hi = Math.max(...r.roundsPerUnit);
    return lo === hi ? String(lo) : `${lo}-${hi}`;
  });
  return `${lead}${units} x ${perUnit} rounds`;
}

/** 'process'/'processes', 'boot'/'boots', 'invocation'/'invocations'. */
export function unitNounOf(unit: ReplicateUnit, plural: boolean): string {
  const nouns: Record<ReplicateUnit, [string, string]> = { process: ['process', 'processes'], boot: ['boot', 'boots'], invocation: ['invocation', 'invocations'] };
  return nouns[unit][plural ? 1 : 0];
}

/** "3 processes x 5 rounds x 20000 calls", or "A/B 3/3 processes x 5/4 rounds x 20000 calls". */
export function roundsText(runs: RunSummary[], unit: Unit): string {
  const rounds = unitsText(runs);
  const ops = runs.flatMap((r) => r.opsPerRound);
  if (directionOf(unit) === 'higher-is-better' || ops.length === 0) return rounds;
  const lo = Math.min(...ops);
  const hi = Math.max(...ops);
  return `${rounds} x ${lo === hi ? lo : `${lo}-${hi}`} ${unitWords(unit).ops}`;
}
