/**
 * What a run stores beyond its rounds and its environment: `params.extra`,
 * one declared type (`RunExtra`) and one reader (`readRunExtra`), as
 * src/environment/ has for the environment. Every writer builds a
 * RunExtra; the store reads every run's back through readRunExtra, so no
 * consumer casts it. Bottom floor: imports nothing of hintlab.
 *
 * Every field is optional: each kind of run writes its own part, and runs
 * stored before a field existed lack it (the reader keeps fields it does
 * not declare as they are, so older records print as they did). A
 * declared field of the wrong JSON type, or an enum value this hintlab
 * does not know, is a damaged record: StoredRecordError names the run and
 * the field.
 *
 * Format history (stored as JSON in runs.params_json, never rewritten):
 * - `interleave` without `design`: `bench --label-b` before the paired
 *   designs (read as design 'processes' by src/compare/design.ts);
 * - `clock`, `interleave.clock`: from the probe's `--clock` on (runs
 *   without it were timed on the wall clock, src/compare/clock.ts);
 * - `stopping`: paired invocations that watched `--precision`;
 * - `invocation`: from the version that records the arguments as typed;
 * - `interleave.workBase`: known-work runs whose processes all ran a
 *   base of additions before B's own (absent: a base of 0);
 * - `interleave.design` 'abbaab' with `interleave.processesPerRun`: the
 *   six-run A B B A A B design (src/bench/design.ts).
 */
import { UserError } from './errors.ts';

/**
 * What a host round's time counts: `wall` (CLOCK_MONOTONIC_RAW) or
 * `thread-cpu` (the probe thread's own CPU time, CLOCK_THREAD_CPUTIME_ID:
 * the time other tasks held the CPU is left out).
 */
export type RoundClock = 'wall' | 'thread-cpu';
export const ROUND_CLOCKS: readonly RoundClock[] = ['wall', 'thread-cpu'];

/** The design of an A/B invocation of `hintlab bench` (src/bench/design.ts). */
export type DesignKind = 'processes' | 'duet' | 'alternation' | 'abbaab';
export const DESIGNS: readonly DesignKind[] = ['processes', 'duet', 'alternation', 'abbaab'];

/** A qemu accelerator as a vm run records it. */
export type RunAccel = 'kvm' | 'tcg';

/**
 * How a run was started, so reports can print a command a reader can run:
 * the arguments after `hintlab` exactly as typed, and the directory
 * relative paths among them are relative to.
 */
export interface RunInvocation {
  argv: string[];
  cwd: string;
}

/** A paired invocation that watched a precision target (`--precision`), recorded by both of its runs. */
export interface Stopping {
  rule: 'confidence-sequence';
  /** Level of the confidence sequence. */
  alpha: number;
  /** The half-width asked for, in percent of A. */
  precisionPct: number;
  /** True when the target was reached; false when the time budget ran out first. */
  reached: boolean;
  /** Pairs measured when it stopped (the fewest of any profile). */
  pairs: number;
}

/** One `--switch-file` as the run records it: the original value, each side's, and what this side wrote. */
export interface SwitchedFile {
  path: string;
  original: string;
  A: string;
  B: string;
  wrote: string;
}

/**
 * What each run of a `bench --label-b` invocation records about both sides
 * and the design. The design's own facts are added when it ends: a duet's
 * CPUs, an alternation's seed; a run whose invocation failed early may
 * lack them.
 */
/**
 * How `--inject-work-b PCT%` chose B's additions: the pilot's A level and
 * cost of one addition (ns per call) per profile; with two processes taking
 * turns, the N each generation ran (recalibrated from A's level as measured
 * so far), whose mean over the pairs is `injectWork.B`.
 */
export interface WorkCalibrationRecord {
  pct: number;
  levelNs: Record<string, number>;
  perAddNs: Record<string, number>;
  /** Per profile, B's N in each generation, in order (absent: one N for the whole run). */
  perGeneration?: Record<string, number[]>;
  /** Per profile and generation, the cost of one addition (ns) the run's gauges gave its N, null where the pilot's did (absent before the gauges of 2026-12-05). */
  gaugedPerAddNs?: Record<string, (number | null)[]>;
}

export interface InterleaveRecord {
  side: 'A' | 'B';
  /** The sides' order: `ABBA...` (processes, alternation), or the design's name (a duet's blocks run at once). */
  order: string;
  labels: { A: string; B: string };
  /** Each side's seccomp filter (absent in records written by tests of compare alone). */
  injectSeccomp?: { A: number | null; B: number | null };
  /** Known work per profile of each side (`--inject-work-b`), when either had any: additions beyond `workBase`. */
  injectWork?: { A: Record<string, number> | null; B: Record<string, number> | null };
  /** Additions per call every process of both sides ran before its side's own (src/bench/known-work.ts); absent: 0. */
  workBase?: number;
  /** `--inject-work-b PCT%`: what the pilot measured, and B's N per generation where they were recalibrated (absent before 2026-12-05). */
  workCalibration?: WorkCalibrationRecord;
  clock?: RoundClock;
  files?: SwitchedFile[];
  /** Absent in runs stored before the paired designs: read as 'processes'. */
  design?: DesignKind;
  /** duet: the CPUs A and B ran on in the first block. */
  cpus?: [number, number];
  /** duet: blocks between swaps of the CPUs. */
  swapEvery?: number;
  /** duet, alternation: measured rounds per block. */
  blockRounds?: number;
  /** alternation: seed of the random ABBA order. */
  seed?: number;
  /** alternation: 2 when an A and a B process take turns (absent: one process, a switched file). */
  processes?: number;
  /** alternation in two processes: the CPU they take turns on, and the pairs one generation measures. */
  cpu?: number;
  pairsPerProcess?: number;
  /** abbaab: probe processes in each of the six runs (a side's unit k belongs to its run floor(k / processesPerRun)). */
  processesPerRun?: number;
}

/** A stressor a macro run asked for (through a set) and did not run. */
export interface UnavailableStressor {
  stressor: string;
  reason: string;
}

/** What a run stores beyond its rounds; each part says which runs write it. */
export interface RunExtra {
  /** Every command from the version that records it. */
  invocation?: RunInvocation;
  /** Probe runs: the partner thread's CPU, or null. */
  otherCpu?: number | null;
  /** bench: probe processes per run (a paired design: its pairs). */
  processes?: number;
  /** bench: what a round's time counts. */
  clock?: RoundClock;
  /** bench --label-b: both sides and the design. */
  interleave?: InterleaveRecord;
  /** bench --label-b with --precision: how measuring stopped. */
  stopping?: Stopping;
  /** session: the session, its step (1-based) and the token the boot carried. */
  session?: number;
  step?: number;
  bootToken?: string;
  /** vm, vm --macro, session: the kernel's label, and which of its boots (or how many, pooled). */
  kernelLabel?: string;
  bootIndex?: number;
  boots?: number;
  /** vm, vm --macro, session: the boot order, comma-separated. */
  order?: string;
  /** vm, vm --macro. */
  accel?: RunAccel;
  icount?: boolean;
  guestCpus?: number;
  /** vm: known work per call in this kernel's boots (`--inject-work`). */
  injectWork?: number;
  /** macro, vm --macro: seconds per invocation, instance counts as asked, sets, and what could not run. */
  seconds?: number;
  instances?: string;
  sets?: string[];
  unavailable?: UnavailableStressor[];
  /** macro: seconds between invocations, and the CPUs stress-ng was confined to. */
  cooldownSeconds?: number;
  cpuList?: string | null;
}

/** `{ invocation }` for a run's params.extra when it is known, else nothing. */
export function invocationExtra(req: { invocation?: RunInvocation }): Pick<RunExtra, 'invocation'> {
  return req.invocation === undefined ? {} : { invocation: req.invocation };
}

/** A stored record that does not have the shape its type declares. */
export class StoredRecordError extends UserError {}

type Check = (v: unknown, at: string) => void;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const DAMAGED = 'the record is damaged or was written by a newer hintlab';

function fail(at: string, v: unknown, want: string): never {
  throw new StoredRecordError(`${at} is ${JSON.stringify(v)}, not ${want}: ${DAMAGED}`);
}

const str: Check = (v, at) => {
  if (typeof v !== 'string') fail(at, v, 'a string');
};
const num: Check = (v, at) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(at, v, 'a number');
};
const bool: Check = (v, at) => {
  if (typeof v !== 'boolean') fail(at, v, 'true or false');
};
const nullable = (c: Check): Check => (v, at) => {
  if (v !== null) c(v, at);
};
const oneOf = (values: readonly string[]): Check => (v, at) => {
  if (typeof v !== 'string' || !values.includes(v)) fail(at, v, `one of ${values.join(', ')}`);
};
const list = (c: Check): Check => (v, at) => {
  if (!Array.isArray(v)) fail(at, v, 'a list');
  v.forEach((x, i) => c(x, `${at}[${i}]`));
};
const numbers: Check = (v, at) => {
  if (!isObject(v)) fail(at, v, 'an object of numbers');
  for (const [k, x] of Object.entries(v)) num(x, `${at}.${k}`);
};
/** An object whose named fields pass their checks; `required` fields must be there. */
const shape = (fields: Record<string, Check>, required: readonly string[] = []): Check => (v, at) => {
  if (!isObject(v)) fail(at, v, 'an object');
  for (const k of required) if (v[k] === undefined) throw new StoredRecordError(`${at}.${k} is missing: ${DAMAGED}`);
  for (const [k, c] of Object.entries(fields)) if (v[k] !== undefined) c(v[k], `${at}.${k}`);
};
const sides = (c: Check): Check => shape({ A: c, B: c }, ['A', 'B']);

const INTERLEAVE: Check = shape(
  {
    side: oneOf(['A', 'B']),
    order: str,
    labels: sides(str),
    injectSeccomp: sides(nullable(num)),
    injectWork: sides(nullable(numbers)),
    workBase: num,
    workCalibration: shape({ pct: num, levelNs: numbers, perAddNs: numbers, perGeneration: (v, at) => {
      if (!isObject(v)) fail(at, v, 'an object');
      for (const [k, xs] of Object.entries(v)) list(num)(xs, `${at}.${k}`);
    }, gaugedPerAddNs: (v, at) => {
      if (!isObject(v)) fail(at, v, 'an object');
      for (const [k, xs] of Object.entries(v)) list(nullable(num))(xs, `${at}.${k}`);
    } }, ['pct', 'levelNs', 'perAddNs']),
    clock: oneOf(ROUND_CLOCKS),
    files: list(shape({ path: str, original: str, A: str, B: str, wrote: str }, ['path', 'original', 'A', 'B', 'wrote'])),
    design: oneOf(DESIGNS),
    cpus: (v, at) => {
      list(num)(v, at);
      if ((v as unknown[]).length !== 2) fail(at, v, 'two CPUs');
    },
    swapEvery: num,
    blockRounds: num,
    seed: num,
    processes: num,
    cpu: num,
    pairsPerProcess: num,
    processesPerRun: num,
  },
  ['side', 'order', 'labels'],
);

/** The declared fields of RunExtra and their checks. */
const EXTRA: Record<keyof RunExtra, Check> = {
  invocation: shape({ argv: list(str), cwd: str }, ['argv', 'cwd']),
  otherCpu: nullable(num),
  processes: num,
  clock: oneOf(ROUND_CLOCKS),
  interleave: INTERLEAVE,
  stopping: shape({ rule: oneOf(['confidence-sequence']), alpha: num, precisionPct: num, reached: bool, pairs: num }, ['rule', 'alpha', 'precisionPct', 'reached', 'pairs']),
  session: num,
  step: num,
  bootToken: str,
  kernelLabel: str,
  bootIndex: num,
  boots: num,
  order: str,
  accel: oneOf(['kvm', 'tcg']),
  icount: bool,
  guestCpus: num,
  injectWork: num,
  seconds: num,
  instances: str,
  sets: list(str),
  unavailable: list(shape({ stressor: str, reason: str }, ['stressor', 'reason'])),
  cooldownSeconds: num,
  cpuList: nullable(str),
};

/**
 * A run's stored `params.extra`, checked against RunExtra. `where` names the
 * record in errors (`results database PATH: run #12`). Absent (records that
 * have none) reads as empty; fields RunExtra does not declare are kept.
 */
export function readRunExtra(stored: unknown, where: string): RunExtra {
  if (stored === undefined || stored === null) return {};
  if (!isObject(stored)) fail(`${where}: params.extra`, stored, 'an object');
  for (const [k, check] of Object.entries(EXTRA)) {
    if (stored[k] !== undefined) check(stored[k], `${where}: params.extra.${k}`);
  }
  // every declared field was checked above
  return stored;
}
