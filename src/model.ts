/**
 * The data model shared by every part of hintlab: what a run and a round
 * are, independent of how they were measured (host probe, VM probe,
 * stress-ng) and of how they are stored or presented.
 *
 * A *run* is one invocation that measures one or more *subjects* (a syscall
 * profile such as `getppid`, or a stressor at an instance count such as
 * `fifo@24`). A *round* is one measurement of one subject: `ops` operations
 * whose total cost was `total` in the run's unit, so `value = total / ops`.
 */
import type { RunExtra } from './run-record.ts';

/** What one round's primary value counts. Never mix units in one comparison. */
export type Unit =
  | 'ns/call' // wall-clock nanoseconds per syscall (host or KVM guest)
  | 'instructions/call' // guest instructions per syscall (qemu -icount)
  | 'emulated-time/call' // TCG guest clock without icount: emulation time, not real time
  | 'bogo-ops/s' // stress-ng throughput (host or KVM guest)
  | 'emulated-bogo-ops/s' // stress-ng throughput in a TCG guest: bogo-ops per emulated second
  | 'icount-bogo-ops/s'; // stress-ng throughput under qemu -icount: bogo-ops per guest second (10^9 guest instructions, idle skipped)

/** Whether smaller or larger values of a metric are better. */
export type Direction = 'lower-is-better' | 'higher-is-better';

export function directionOf(unit: Unit): Direction {
  return unit === 'bogo-ops/s' || unit === 'emulated-bogo-ops/s' || unit === 'icount-bogo-ops/s' ? 'higher-is-better' : 'lower-is-better';
}

/** Where a run's rounds came from. */
export type RunKind = 'bench' | 'vm' | 'macro';

/**
 * Lifecycle of a run. `running` is only ever seen while the process lives;
 * a run left `running` by a crash is reported as `incomplete` when read back.
 */
export type RunStatus = 'running' | 'complete' | 'incomplete' | 'failed';

/** A secondary metric recorded with a round (stress-ng's extra metrics). */
export interface Metric {
  name: string;
  value: number;
  unit: string;
  direction: Direction;
}

/**
 * The unit of replication of a run: what is started afresh between groups
 * of rounds, so that rounds of one unit share its state (memory layout, page
 * placement, host load, frequency) and units are the independent evidence.
 * `process`: one probe process (host bench, `--processes`); `boot`: one
 * guest boot (vm); `invocation`: one stress-ng invocation (macro).
 */
export type ReplicateUnit = 'process' | 'boot' | 'invocation';

/** One measured (or warm-up) round, as stored. */
export interface Round {
  /** Position in the run's measurement order, 0-based, across all subjects. */
  seq: number;
  subject: string;
  /** Index of this round within its subject, 0-based, warm-ups counted separately. */
  index: number;
  /**
   * 0-based index of the unit of replication (Run.replicateUnit) this round
   * belongs to, within its run. Runs recorded before units were stored
   * (schema 1, replicateUnit unknown) read back with 0 for every round: the
   * whole run is one unit.
   */
  replicate: number;
  warmup: boolean;
  ops: number;
  /** Total cost of the round in `unit` x ops (e.g. elapsed ns for ns/call). */
  total: number;
  /** total / ops, in `unit`. */
  value: number;
  unit: Unit;
  direction: Direction;
  /** ISO-8601 time the round was recorded. */
  recordedAt: string;
  metrics: Metric[];
}

/**
 * A value read from the machine, or `unknown` with the reason it could not
 * be read. Never guessed.
 */
export type Known<T> = { known: true; value: T } | { known: false; reason: string };

/** An environment record as stored (JSON); read it typed with src/environment/read.ts readEnvironment. */
export type Environment = Record<string, unknown>;

/**
 * The parameters that define what a run measured. Two runs are comparable
 * only when the `checked` parameters agree (see src/compare/).
 */
export interface RunParams {
  subjects: string[];
  ops: number | null;
  warmups: number;
  rounds: number;
  cpu: number | null;
  /** Per-subject parameters (profile sizes, stressor options...). */
  subjectParams: Record<string, Record<string, unknown>>;
  /** What the run records beyond its rounds (design, clock, stopping, kernel label...): src/run-record.ts. */
  extra: RunExtra;
}

/** A run as read back from the store. */
export interface Run {
  id: number;
  label: string | null;
  kind: RunKind;
  status: RunStatus;
  unit: Unit;
  /** What one unit of replication is; unknown for runs recorded before schema 2. */
  replicateUnit: Known<ReplicateUnit>;
  startedAt: string;
  finishedAt: string | null;
  /** Why the run failed or stopped early, when it did. */
  error: string | null;
  /** The command line that produced the run, for reproduction. */
  command: string;
  hintlabVersion: string;
  params: RunParams;
  environment: Environment;
}

/** A run together with its rounds, in measurement order. */
export interface RunWithRounds extends Run {
  rounds: Round[];
}

/** The measured (non-warm-up) values of one subject, in measurement order. */
export function measuredValues(run: RunWithRounds, subject: string): number[] {
  return run.rounds.filter((r) => r.subject === subject && !r.warmup).map((r) => r.value);
}
