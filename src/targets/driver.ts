/**
 * The one run driver: a target's lines become stored rounds. Every command
 * that measures (bench, bench --label-b, vm, vm --repeat, vm --macro, macro)
 * lays out its work as segments (a probe process, a boot, a stress-ng
 * invocation), each feeding one run through that run's line session, and
 * hands them here. The driver runs them in order on their targets, decides
 * each outcome from the session and the target's exit, and ends every run:
 * complete, failed with its own reason, or failed because the drive stopped.
 *
 * Invariants: a run is created only when its first segment starts; a run
 * whose round could not be stored (disk full) is abandoned through
 * `Store.abandonRun` after the segment running alongside it has ended and
 * its partners are marked failed; every run the
 * drive opened is finished (complete or failed) before it returns, except
 * one the store could no longer write.
 */
import type { EnvironmentPatch } from '../environment/record.ts';
import { type Store, StoreError } from '../store/store.ts';
import type { Target, TargetExit, TargetJob } from './target.ts';

/** How a segment (or a whole session) ended. */
export type SessionOutcome =
  | { state: 'complete'; rounds: number }
  | { state: 'failed'; reason: string };

/** What the driver needs of a measurement's reader of lines (ProbeSession, the guest and macro sessions). */
export interface LineSession {
  /** Every line the job printed, as it arrives. */
  feed(line: string): void;
  /** Aborts when nothing more can be kept (a store write failed): the driver stops the job with it. */
  readonly stopped: AbortSignal;
  /** The store write that failed, once one did: the run is then abandoned. */
  readonly storeFailure: StoreError | null;
  /** How the segment that just ran ended, from its lines and the target's exit. */
  outcome(exit: TargetExit): SessionOutcome;
}

export interface OpenedRun {
  runId: number;
  session: LineSession;
}

/** One run the drive fills. */
export interface DrivenRun {
  /** Create the run and its session; called when its first segment starts (or at once, if the caller created it already). */
  open(): OpenedRun;
  /**
   * The caller created the run before the drive (interleaved sides are
   * stored together): the drive finishes it even when none of its
   * segments ran, so an interrupt in the first segment fails both sides.
   */
  createdBefore?: boolean;
  /** Added to the run's environment just before it is finished (the load at the end, warnings). */
  finalEnvironment?(): EnvironmentPatch;
}

/** One program run on one target, feeding one run. */
export interface DriverSegment {
  /** Index of the run in `DriveSpec.runs`. */
  run: number;
  target: Target;
  /** What runs, for messages: `the probe`, `stress-ng`. */
  what: string;
  job: TargetJob;
  /** A wait before the segment (macro's cool-down), which ends early on abort; the abort is checked after it. */
  pause?(): Promise<void>;
  /** Before the job starts (the session's share of rounds, switched files); a throw fails the segment with its message. */
  begin?(opened: OpenedRun): void;
  /** After the job ended, before its outcome counts: record what it saw (the guest's kernel, boot seconds). */
  ended?(opened: OpenedRun, exit: TargetExit | null): void;
  /** The failure as stored with the run (default: the reason itself). */
  storedReason?(reason: string): string;
  /**
   * A segment of another run that runs at the same time as this one (a
   * duet's other side): both start together, a failure of either stops the
   * other, and the first failure is the drive's.
   */
  alongside?: DriverSegment;
  /** The `alongside` partner is another experiment's unit (two boots on two lab devices): a failure of one does not stop the other. */
  independent?: boolean;
}

/** Why a drive stopped before its last segment. */
export type DriveStop =
  | { kind: 'failed'; segment: number; run: number; runId: number; reason: string }
  | { kind: 'interrupted'; done: number; total: number };

export interface SegmentResult {
  index: number;
  /** The result of the segment's `alongside` partner (same index), not of the segment itself. */
  alongside?: boolean;
  runId: number;
  outcome: SessionOutcome;
  /** Null when the job could not be started at all. */
  exit: TargetExit | null;
}

export interface DriveSpec {
  store: Store;
  abort: AbortSignal;
  runs: DrivenRun[];
  segments: DriverSegment[];
  /** A failed segment ends the drive (bench, interleaved sides, pooled boots); otherwise the next segment runs. */
  stopOnFailure: boolean;
  /**
   * The runs are one experiment (interleaved sides, pooled boots): none is
   * complete unless every segment is, so all are finished after the drive.
   * Otherwise a run is finished as soon as its last segment ends.
   */
  together: boolean;
  /**
   * An abort between two segments fails the next segment (its index given)
   * with this reason, since a signal there reaches no job; without it the
   * drive just stops.
   */
  interruptedBefore?: (segment: number) => string;
  /** Why a run with no failure of its own ends failed when the drive stopped (default: the stop's reason). */
  stoppedReason?(stop: DriveStop, run: number): string;
  onSegmentStart?(index: number): void;
  onSegmentEnd?(result: SegmentResult): void;
}

export interface DriveResult {
  /** The run id of each entry of `runs`, null for one whose segments never started. */
  runIds: (number | null)[];
  results: SegmentResult[];
  stop: DriveStop | null;
  /** The abort fired during the drive. */
  interrupted: boolean;
}

/** Run one segment: start it on its session, stream the target's lines in, decide its outcome. */
async function runSegment(seg: DriverSegment, index: number, opened: OpenedRun, abort: AbortSignal): Promise<SegmentResult> {
  const { session, runId } = opened;
  try {
    seg.begin?.(opened);
  } catch (err) {
    return { index, runId, outcome: { state: 'failed', reason: (err as Error).message }, exit: null };
  }
  let exit: TargetExit | null = null;
  let outcome: SessionOutcome | undefined;
  try {
    // a round that cannot be stored (disk full) stops the job as Ctrl-C would
    exit = await seg.target.run(seg.job, (l) => session.feed(l), AbortSignal.any([abort, session.stopped]));
  } catch (err) {
    outcome = { state: 'failed', reason: `cannot run ${seg.what}: ${(err as Error).message}` };
  }
  if (!session.storeFailure) seg.ended?.(opened, exit);
  // a write that failed (during the job, or when `ended` stored what it read: vm --macro's files) fails the segment; runGroup abandons the run
  outcome ??= session.storeFailure ? { state: 'failed', reason: session.storeFailure.message } : session.outcome(exit!);
  return { index, runId, outcome, exit };
}

/**
 * A segment and the one alongside it, at once: the first to fail stops the
 * other, and its result comes first. Both have ended before a store
 * failure of either abandons its run: a partner still running would write
 * to a store its caller is about to close.
 */
async function runGroup(spec: DriveSpec, runs: Runs, group: DriverSegment[], index: number): Promise<SegmentResult[]> {
  const partner = new AbortController();
  const abort = group.length === 1 ? spec.abort : AbortSignal.any([spec.abort, partner.signal]);
  const ended: SegmentResult[] = [];
  const settled = await Promise.allSettled(
    group.map(async (seg, k) => {
      try {
        const result: SegmentResult = { ...(await runSegment(seg, index, runs.open(seg.run), abort)), ...(k === 1 ? { alongside: true } : {}) };
        if (result.outcome.state === 'failed' && !group[0]!.independent) partner.abort();
        ended.push(result);
      } catch (err) {
        partner.abort();
        throw err;
      }
    }),
  );
  const broken = group.map((seg) => runs.open(seg.run)).find((o) => o.session.storeFailure);
  if (broken) abandon(spec, runs, index, broken, broken.session.storeFailure!);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  // in the order they ended: the first failure is the cause, a partner it stopped follows
  return [...ended.filter((r) => r.outcome.state === 'failed'), ...ended.filter((r) => r.outcome.state !== 'failed')];
}

/** The drive's state: which runs are open and which are finished. */
class Runs {
  readonly opened: (OpenedRun | null)[];
  readonly finished = new Set<number>();
  constructor(private readonly spec: DriveSpec) {
    this.opened = spec.runs.map((r) => (r.createdBefore ? r.open() : null));
  }

  open(run: number): OpenedRun {
    return (this.opened[run] ??= this.spec.runs[run]!.open());
  }

  finish(run: number, status: 'complete' | 'failed', reason: string | null = null): void {
    const opened = this.opened[run];
    if (!opened || this.finished.has(run)) return;
    this.finished.add(run);
    const patch = this.spec.runs[run]!.finalEnvironment?.();
    if (patch) this.spec.store.updateEnvironment(opened.runId, patch);
    this.spec.store.finishRun(opened.runId, status, reason);
  }

  /** Open runs not finished yet, in run order. */
  unfinished(): number[] {
    return this.opened.flatMap((o, i) => (o && !this.finished.has(i) ? [i] : []));
  }
}

/**
 * A round could not be stored: mark the open partners failed if the
 * database still takes it, then end this run the way Store.abandonRun does
 * (it throws the StoreError naming the round, the run and the file system).
 */
function abandon(spec: DriveSpec, runs: Runs, segment: number, broken: OpenedRun, failure: StoreError): never {
  const run = runs.opened.indexOf(broken);
  const stop: DriveStop = { kind: 'failed', segment, run, runId: broken.runId, reason: 'a round could not be stored' };
  for (const other of runs.unfinished().filter((i) => i !== run)) {
    try {
      runs.finish(other, 'failed', spec.stoppedReason?.(stop, other) ?? stop.reason);
    } catch (err) {
      // no space for that either: the partner reads back incomplete, its rounds intact
      if (!(err instanceof StoreError)) throw err;
    }
  }
  spec.store.abandonRun(broken.runId, failure);
}

function lastSegments(spec: DriveSpec): Map<number, number> {
  const last = new Map<number, number>();
  spec.segments.forEach((s, i) => last.set(s.run, i));
  return last;
}

/** Run every segment in order and end every run it opened. */
export async function drive(spec: DriveSpec): Promise<DriveResult> {
  const runs = new Runs(spec);
  const last = lastSegments(spec);
  const results: SegmentResult[] = [];
  let stop: DriveStop | null = null;
  for (const [index, seg] of spec.segments.entries()) {
    await seg.pause?.();
    if (spec.abort.aborted) {
      stop = interruption(spec, runs, seg, index);
      break;
    }
    spec.onSegmentStart?.(index);
    const group = seg.alongside ? [seg, seg.alongside] : [seg];
    for (const result of await runGroup(spec, runs, group, index)) {
      const done = group.find((s) => runs.opened[s.run]?.runId === result.runId)!;
      results.push(result);
      if (result.outcome.state === 'failed' && !stop) {
        runs.finish(done.run, 'failed', done.storedReason?.(result.outcome.reason) ?? result.outcome.reason);
        if (spec.stopOnFailure) stop = { kind: 'failed', segment: index, run: done.run, runId: result.runId, reason: result.outcome.reason };
      } else if (result.outcome.state !== 'failed' && !spec.together && last.get(done.run) === index) {
        runs.finish(done.run, 'complete');
      }
      spec.onSegmentEnd?.(result);
    }
    if (stop) break;
  }
  endRuns(spec, runs, stop);
  return { runIds: runs.opened.map((o) => o?.runId ?? null), results, stop, interrupted: spec.abort.aborted };
}

/** An abort between segments: the next segment fails (`interruptedBefore`) or the drive just stops. */
function interruption(spec: DriveSpec, runs: Runs, seg: DriverSegment, index: number): DriveStop {
  if (spec.interruptedBefore === undefined) return { kind: 'interrupted', done: index, total: spec.segments.length };
  const opened = runs.open(seg.run);
  const reason = spec.interruptedBefore(index);
  runs.finish(seg.run, 'failed', reason);
  return { kind: 'failed', segment: index, run: seg.run, runId: opened.runId, reason };
}

/** Finish what is still open: complete after a full drive, else failed with why the drive stopped. */
function endRuns(spec: DriveSpec, runs: Runs, stop: DriveStop | null): void {
  for (const run of runs.unfinished()) {
    if (!stop) runs.finish(run, 'complete');
    else runs.finish(run, 'failed', spec.stoppedReason?.(stop, run) ?? (stop.kind === 'failed' ? stop.reason : `interrupted after ${stop.done} of ${stop.total} segments`));
  }
}
