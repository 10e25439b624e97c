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
 * The display precision rule, in one place for every format (text, lkml,
 * Markdown, HTML, JSON prose, compare's table):
 * - a figure starts with about four significant digits (`decimalsFor`);
 *   figures read together (a before -> after pair, a change and its
 *   interval) share one number of decimals, taken from the smallest of them,
 *   so "1991 -> 605" is never printed next to "583.4 -> 607.5";
 * - an interval whose ends would print the same gets more decimals until
 *   they differ (never "CI -69.6 to -69.6 %");
 * - a nonzero value that would round to zero gets more decimals until a
 *   nonzero digit shows (never "detectable: 0.0 %" for 0.02 %);
 * - a value that still rounds to zero prints without a sign (never "-0.0").
 * Decimals never exceed MAX_DECIMALS.
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

/** A signed value: "+5.3", "-11.8" (a value printing as zero is unsigned). */
export function signed(v: number, decimals: number): string {
  const s = fixed(v, decimals);
  return v > 0 && /[1-9]/.test(s) ? `+${s}` : s;
}

/** Percent decimals for a change and its interval: two when all are below 1 %. */
export function pctDecimals(...values: number[]): number {
  return values.every((v) => Math.abs(v) < 1) ? 2 : 1;
}

/** A percentage alone in prose (a detectable change): "0.4", "12.3", "0.02", never "0.0" for a nonzero value. */
export function pctFixed(v: number): string {
  return fixed(v, readableDecimals(1, [v]));
}

/**
 * The decimals a contrast is printed with: `unit` for before, after and
 * change; `ci` for the ends of the % interval; `pct` for the % change (at
 * least `ci`, more when the change is smaller than the interval shows, so
 * a tiny drift does not drag its interval to five decimals).
 */
export interface ContrastDecimals {
  unit: number;
  pct: number;
  ci: number;
}

/** One rule per sentence or row: before -> after, the change and its interval (see the rule above). */
export function contrastDecimals(c: {
  baselineMeanInUnit: number;
  candidateMeanInUnit: number;
  changeInUnit: number;
  changePct: number;
  ciPct: Interval | InsufficientData;
}): ContrastDecimals {
  const before = c.baselineMeanInUnit;
  const after = c.candidateMeanInUnit;
  const unit = readableDecimals(decimalsFor(before, after), [c.changeInUnit], [[before, after]]);
  const ends: [number, number][] = isInterval(c.ciPct) ? [[c.ciPct.low, c.ciPct.high]] : [];
  const ci = readableDecimals(pctDecimals(c.changePct, ...ends.flat()), ends.flat(), ends);
  return { unit, pct: readableDecimals(ci, [c.changePct]), ci };
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
  const d = readableDecimals(1, runs.map((r) => r.cvPct));
  const cvs = runs.map((r) => fixed(r.cvPct, d));
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
