/**
 * How the parts of a Comparison are worded (a contrast's decimals, its
 * interval, the runs' CVs and units) in every report format, on top of the
 * bottom floor's number rule (src/format/). Numbers are only formatted here,
 * never computed (they come from a Comparison).
 */
import { directionOf, type Known, type Unit } from '../model.ts';
import type { Comparison, DesignKind, RunSummary } from '../compare/types.ts';
import type { Interval, InsufficientData } from '../stats/result.ts';
import type { ProcessesPerSide } from '../compare/design.ts';
import type { RunClock } from '../compare/clock.ts';
import { decimalsFor, fixed, readableDecimals, signed } from '../format/numbers.ts';
import { pctDecimals } from '../format/percent.ts';
import { unitNounOf, unitWords } from '../format/units.ts';

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

/** One rule per sentence or row: before -> after, the change and its interval (the rule in src/format/numbers.ts). */
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

/** "round CV 0.3 %" (the spread of rounds, not of unit means) when every run shows the same CV, else "round CV A/B/A2 0.3/0.4/0.3 %". */
export function cvText(runs: RunSummary[]): string {
  const d = readableDecimals(1, runs.map((r) => r.cvPct));
  const cvs = runs.map((r) => fixed(r.cvPct, d));
  if (new Set(cvs).size === 1) return `round CV ${cvs[0]} %`;
  return `round CV ${runs.map((r) => r.role).join('/')} ${cvs.join('/')} %`;
}

/** "1 subject", "15 subjects". */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * What a comparison's design says about its units: its kind and, for the
 * paired designs, the probe processes per side (documents of schema 6 and
 * older carry no processesPerSide, older ones no design at all).
 */
export interface UnitsDesign {
  kind?: DesignKind;
  processesPerSide?: ProcessesPerSide;
  cpus?: number[] | null;
}

/** The design a comparison document carries; none in documents of schema 5 and older. */
export function designOf(c: Comparison): UnitsDesign | undefined {
  const d: unknown = (c as { design?: unknown }).design;
  return typeof d === 'object' && d !== null ? (d) : undefined;
}

function isPairedKind(d: UnitsDesign | undefined): boolean {
  return d?.kind === 'duet' || d?.kind === 'alternation';
}

/** Units of runs measured together belong to a side; with A2, or runs measured apart, to each run. */
function perWhom(runs: RunSummary[], d: UnitsDesign | undefined): string {
  const together = d?.kind === 'processes' || d?.kind === 'abbaab' || d?.kind === 'boots';
  return together && !runs.some((r) => r.role === 'A2') ? 'per side' : 'per run';
}

/** ", 4 processes per side", ", one process for both sides", or nothing when not recorded. */
function processesText(d: UnitsDesign | undefined): string {
  const p = d?.processesPerSide;
  if (p === undefined || p === null) return '';
  return p === 'shared' ? ', one process for both sides' : `, ${countOf(p, 'process', 'processes')} per side`;
}

/**
 * The units of replication and rounds behind each run: "3 processes per
 * side x 5 rounds", "A/B 3/1 processes per run x 5/15 rounds", "5
 * invocations per run" (one round each), "82 pairs of 2-round blocks" (a
 * paired design: unit k of A and of B are pair k), "15 rounds (units not
 * recorded)" for runs stored before units were.
 */
export function unitsText(runs: RunSummary[], design?: UnitsDesign): string {
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
  const perUnit = same((r) => {
    const lo = Math.min(...r.roundsPerUnit);
    const hi = Math.max(...r.roundsPerUnit);
    return lo === hi ? String(lo) : `${lo}-${hi}`;
  });
  const plural = runs.some((r) => r.units !== 1);
  if (isPairedKind(design)) return `${lead}${same((r) => String(r.units))} pair${plural ? 's' : ''} of ${perUnit}-round blocks`;
  const units = `${same((r) => String(r.units))} ${unitNounOf(first.replicateUnit.value, plural)} ${perWhom(runs, design)}`;
  if (runs.every((r) => r.n === r.units)) return `${lead}${units}`;
  return `${lead}${units} x ${perUnit} rounds`;
}

/**
 * "3 processes per side x 5 rounds x 20000 calls", "82 pairs of 2-round
 * blocks x 20000 calls, 4 processes per side": the units, the calls per
 * round (of `ops`, every subject's by default) and a paired design's processes.
 */
export function roundsText(runs: RunSummary[], unit: Unit, design?: UnitsDesign, ops: readonly number[] = runs.flatMap((r) => r.opsPerRound)): string {
  const rounds = unitsText(runs, design);
  const calls = directionOf(unit) === 'higher-is-better' || ops.length === 0 ? '' : ` x ${rangeText(ops)} ${unitWords(unit).ops}`;
  return `${rounds}${calls}${isPairedKind(design) ? processesText(design) : ''}`;
}

/**
 * "3 processes per side x 5 rounds x 20000 calls" for a whole comparison:
 * the units and rounds of the first subject (every subject of a run shares
 * them), the calls per round as a range when the subjects differ.
 */
export function tableRoundsText(c: Comparison): string {
  const ops = c.subjects.flatMap((s) => s.runs.flatMap((r) => r.opsPerRound));
  return roundsText(c.subjects[0]?.runs ?? [], c.unit, designOf(c), ops);
}

/** "20000", or "500-100000" when they differ. */
function rangeText(xs: readonly number[]): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? String(lo) : `${lo}-${hi}`;
}

/** The clocks in a few words, for a table's caption or header; the long form says what each leaves in or out. */
const CLOCK_WORDS: Record<RunClock, { short: string; long: string }> = {
  wall: { short: 'wall clock', long: 'wall clock (CLOCK_MONOTONIC_RAW): includes the time other tasks held the CPU' },
  'thread-cpu': { short: 'thread CPU clock', long: "the probe thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the time other tasks held the CPU left out" },
  'guest-icount': { short: 'guest clock under -icount', long: "the guest's clock under qemu -icount: one ns per guest instruction, a count" },
  'guest-emulated': { short: 'emulated guest clock', long: "the TCG guest's clock: emulation time, not real time" },
};

/** A run's clock: "thread CPU clock", or "clock not recorded (why)". `long` adds what the clock leaves in or out. */
export function clockText(clock: Known<RunClock>, long = false): string {
  if (!clock.known) return `clock not recorded (${clock.reason})`;
  return long ? CLOCK_WORDS[clock.value].long : CLOCK_WORDS[clock.value].short;
}

/**
 * The clock of a comparison's runs: one when they share it, else "CLOCKS
 * DIFFER: A wall clock, B thread CPU clock" (compared only with
 * --allow-mismatch); "clock not recorded" for a document of schema 6 or
 * older, which carries none.
 */
export function comparisonClockText(c: Comparison, long = false): string {
  const clocks = c.runs.map((r) => ({ role: r.role, clock: (r as { clock?: Known<RunClock> }).clock }));
  if (clocks.some((x) => x.clock === undefined)) return 'clock not recorded';
  const texts = clocks.map((x) => clockText(x.clock!, long));
  if (new Set(texts).size === 1) return texts[0]!;
  return `CLOCKS DIFFER: ${clocks.map((x, i) => `${x.role} ${texts[i]}`).join(', ')}`;
}
