/**
 * Turns a probe's framed output into stored rounds, one line at a time.
 * Shared by `hintlab bench` (probe on the host) and `hintlab vm` (probe as a
 * guest's /init on the serial console): the same validation, the same
 * storage, so both kinds of run compare alike.
 *
 * Invariant: a round reaches the store only from a checksum-verified line
 * that matches what was asked for (known profile, expected ops), and never
 * after the probe reported an error.
 */
import { constants } from 'node:os';
import { directionOf, type Unit } from '../model.ts';
import { type NewRun, type Store, StoreError } from '../store/store.ts';
import type { LineSession, SessionOutcome } from '../targets/driver.ts';
import type { TargetEnd, TargetExit } from '../targets/target.ts';
import { ConsoleLines, describeProbeError, parseProfileParams, type ProbeEvent } from '../launch/probe-protocol.ts';

/** ' (SIGTERM)' for 15: the name a user sent, beside the number the probe reports. */
function signalName(signo: number): string {
  const name = Object.entries(constants.signals).find(([, n]) => n === signo)?.[0];
  return name ? ` (${name})` : '';
}

type RoundEvent = Extract<ProbeEvent, { type: 'round' }>;


/** How the target ended a probe it had to stop, in a user's words. */
function stoppedEnd(end: Exclude<TargetEnd, { kind: 'exited' }>): string {
  if (end.kind === 'aborted') return 'interrupted (Ctrl-C): the probe did not stop by itself and was killed';
  if (end.kind === 'timeout') return `no complete result within ${end.seconds} s; the probe was killed`;
  return `the target went away under the probe: ${end.reason}`;
}

export interface SessionOptions {
  store: Store;
  runId: number;
  unit: Unit;
  /** Profile name -> calls per round the probe was asked for. */
  expectedOps: Map<string, number>;
  warmups: number;
  rounds: number;
  /**
   * Whether each probe process (segment) is a unit of replication of its
   * own (default). Not for a run that is one boot of a session: the boot is
   * the unit, its processes share it.
   */
  segmentsAreUnits?: boolean;
  onRound?: (e: RoundEvent, seq: number) => void;
}

export class ProbeSession implements LineSession {
  private seq = 0;
  private measured = 0;
  private failure: string | null = null;
  private done = false;
  /**
   * A run may be measured by several probe processes in turn (`--processes`),
   * each doing its own warm-ups and a share of the rounds; round indices
   * continue across them. One process is one segment, and its 0-based
   * position is the rounds' `replicate` (a guest boot has one segment).
   */
  private segment: { rounds: number; measuredBefore: number; idxBase: number; warmBase: number; replicate: number };
  private segments = 0;
  private hello: Extract<ProbeEvent, { type: 'hello' }> | null = null;
  private readonly corrupt: string[] = [];
  private readonly stop = new AbortController();
  private storeFailed: StoreError | null = null;

  constructor(private readonly o: SessionOptions) {
    this.segment = { rounds: o.rounds, measuredBefore: 0, idxBase: 0, warmBase: 0, replicate: 0 };
  }

  /** Start the next probe process's share: `rounds` measured rounds after its own warm-ups. */
  startSegment(rounds: number): void {
    const s = this.segment;
    const index = this.segments++;
    const first = index === 0;
    this.segment = {
      replicate: this.o.segmentsAreUnits === false ? 0 : index,
      rounds,
      measuredBefore: this.measured,
      idxBase: first ? 0 : s.idxBase + s.rounds,
      warmBase: first ? 0 : s.warmBase + this.o.warmups,
    };
    this.done = false;
  }

  /** The probe's `hello` line, once seen (kernel release inside a guest, etc.). */
  get helloEvent(): Extract<ProbeEvent, { type: 'hello' }> | null {
    return this.hello;
  }

  /**
   * Aborts when a round could not be stored (disk full, I/O error): the
   * caller stops the probe or the guest with it, since nothing more it
   * measures can be kept.
   */
  get stopped(): AbortSignal {
    return this.stop.signal;
  }

  /** The write that failed, once one did; the run then ends through `Store.abandonRun`. */
  get storeFailure(): StoreError | null {
    return this.storeFailed;
  }

  /** Lines that looked like probe lines but failed their checksum or format. */
  get corruptLines(): readonly string[] {
    return this.corrupt;
  }

  private readonly lines = new ConsoleLines();

  feed(line: string): void {
    for (const parsed of this.lines.push(line)) {
      if (parsed.kind === 'corrupt') this.corrupt.push(`${parsed.reason}: ${parsed.line}`);
      else if (parsed.kind === 'event') this.handle(parsed.event);
    }
  }

  private handle(e: ProbeEvent): void {
    if (this.failure) return; // nothing after an error is data
    switch (e.type) {
      case 'hello':
        this.hello = e;
        return;
      case 'prepared':
        this.storeProbeParams(e);
        return;
      case 'round':
        this.storeRound(e);
        return;
      case 'error':
        this.failure = `probe failed: ${describeProbeError(e)}`;
        return;
      case 'interrupted':
        this.failure = `interrupted by signal ${e.signal}${signalName(e.signal)}; the probe restored the task's affinity and scheduling parameters`;
        return;
      case 'done':
        this.done = true;
        return;
      default:
        return;
    }
  }

  private readonly paramsStored = new Set<string>();

  /**
   * What the probe says a profile runs with, fixed and read at run time
   * (custom slice, select's nfds, mincore's page size...), stored as the
   * subject's `probe` params once per run (every probe process of a run
   * prepares the same profile the same way), where compare checks them.
   */
  /**
   * Run one store write; a StoreError (disk full, I/O error) fails the
   * session, stops the probe and is kept for Store.abandonRun. False then.
   */
  private guardStore(write: () => void): boolean {
    try {
      write();
      return true;
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      this.storeFailed = err;
      this.failure = err.message;
      this.stop.abort();
      return false;
    }
  }

  private storeProbeParams(e: Extract<ProbeEvent, { type: 'prepared' }>): void {
    if (!this.o.expectedOps.has(e.profile) || this.paramsStored.has(e.profile)) return;
    this.paramsStored.add(e.profile);
    this.guardStore(() => this.o.store.mergeSubjectParams(this.o.runId, e.profile, { probe: parseProfileParams(e.params) }));
  }

  private storeRound(e: RoundEvent): void {
    const want = this.o.expectedOps.get(e.profile);
    if (want === undefined) {
      this.failure = `probe reported a round of '${e.profile}', which was not requested`;
      return;
    }
    if (e.ops !== want) {
      this.failure = `probe reported ${e.ops} calls for '${e.profile}', expected ${want}`;
      return;
    }
    if (!(e.elapsed > 0)) {
      this.failure = `probe reported a non-positive time (${e.elapsed}) for '${e.profile}' round ${e.idx}`;
      return;
    }
    const seq = this.seq++;
    if (!this.guardStore(() => this.addRound(e, seq))) return;
    if (!e.warmup) this.measured++;
    this.o.onRound?.(e, seq);
  }

  private addRound(e: RoundEvent, seq: number): void {
    this.o.store.addRound(this.o.runId, {
      seq,
      subject: e.profile,
      index: e.idx + (e.warmup ? this.segment.warmBase : this.segment.idxBase),
      replicate: this.segment.replicate,
      warmup: e.warmup,
      ops: e.ops,
      total: e.elapsed,
      value: e.elapsed / e.ops,
      unit: this.o.unit,
      direction: directionOf(this.o.unit),
    });
  }

  /** Decide how the segment ended, given how the target says the probe ended. */
  outcome(exit: Pick<TargetExit, 'end' | 'stderrTail' | 'describe'>): SessionOutcome {
    if (this.failure) return { state: 'failed', reason: this.failure };
    const end = exit.end;
    if (end.kind !== 'exited') return { state: 'failed', reason: exit.describe(stoppedEnd(end)) };
    const expected = this.o.expectedOps.size * this.segment.rounds;
    const measured = this.measured - this.segment.measuredBefore;
    const tail = exit.stderrTail.length ? `; stderr: ${exit.stderrTail.join(' | ')}` : '';
    if (end.signal) return { state: 'failed', reason: `probe killed by ${end.signal} after ${measured} of ${expected} measured rounds${tail}` };
    if (end.code !== 0) return { state: 'failed', reason: `probe exited with status ${end.code} after ${measured} of ${expected} measured rounds${tail}` };
    if (!this.done || measured !== expected) {
      const garbage = this.corrupt.length ? ` (${this.corrupt.length} corrupt lines, first: ${this.corrupt[0]})` : '';
      return { state: 'failed', reason: `probe output ended after ${measured} of ${expected} measured rounds${garbage}` };
    }
    return { state: 'complete', rounds: this.measured };
  }
}

/** The request fields a probe run is checked against. */
export interface ProbeRunShape {
  /** Profile name -> calls per round, in the order the probe runs them. */
  expectedOps: Map<string, number>;
  warmups: number;
  rounds: number;
  /** Probe processes sharing the rounds, each with its own warm-ups (default 1). */
  processes?: number;
  /** False when the processes share one unit of replication (a boot of a session); default true. */
  processesAreUnits?: boolean;
}

/**
 * Create the run and the session that will fill it. `onProgress(done, total,
 * profile)` sees every stored round (warm-ups included).
 */
export function startProbeRun(
  store: Store,
  run: NewRun,
  shape: ProbeRunShape,
  onProgress?: (done: number, total: number, profile: string) => void,
): { runId: number; session: ProbeSession } {
  const runId = store.createRun(run);
  const total = shape.expectedOps.size * (shape.warmups * (shape.processes ?? 1) + shape.rounds);
  let done = 0;
  const session = new ProbeSession({
    store,
    runId,
    unit: run.unit,
    expectedOps: shape.expectedOps,
    warmups: shape.warmups,
    rounds: shape.rounds,
    segmentsAreUnits: shape.processesAreUnits,
    onRound: (e) => onProgress?.(++done, total, e.profile),
  });
  return { runId, session };
}
