/**
 * The guest side of `hintlab vm --macro`, seen from the host: the plan the
 * probe runs (one stress-ng invocation per line), the lines it prints while
 * doing so, and the rounds those lines make.
 *
 * Invariant: a round is stored only for an invocation whose `exec` line
 * says status 0 and whose YAML file arrived whole (size and CRC-32 checked
 * by the transfer); the first failed invocation ends the boot as a failed
 * run whose reason is stress-ng's own message from its log file.
 */
import type { StressNgFacts } from '../environment/record.ts';
import { ConsoleLines, describeProbeError, type ProbeEvent } from '../launch/probe-protocol.ts';
import { GcdaReceiver } from '../hints/collect/transfer.ts';
import { stressNgArgs } from '../macro/executor.ts';
import { invocationFailure, withStderr } from '../macro/failure.ts';
import { macroRound } from '../macro/metrics.ts';
import type { PlanItem } from '../macro/plan.ts';
import { parseStressNgYaml, StressNgYamlError } from '../macro/yaml.ts';
import type { Unit } from '../model.ts';
import { shellLine } from '../shell.ts';
import { type NewRound, type Store, StoreError } from '../store/store.ts';
import type { LineSession, SessionOutcome } from '../targets/driver.ts';
import type { TargetExit } from '../targets/target.ts';
import { GUEST_STRESS_NG } from '../launch/stress-ng-image.ts';

/** Where the guest writes stress-ng's YAML and log files (a tmpfs the probe mounts). */
export const GUEST_OUT_DIR = '/tmp/hintlab';
export const GUEST_PLAN = '/hintlab.plan';

export const guestYamlPath = (seq: number): string => `${GUEST_OUT_DIR}/round-${seq}.yaml`;
export const guestLogPath = (seq: number): string => `${GUEST_OUT_DIR}/round-${seq}.log`;

/** The stress-ng arguments of one planned invocation in the guest (no --taskset: the guest's CPUs are all its own). */
export function guestStressNgArgs(item: PlanItem, seconds: number): string[] {
  return stressNgArgs({ stressor: item.stressor, instances: item.instances, seconds, cpuList: null, yamlPath: guestYamlPath(item.seq) });
}

/** The probe's plan file: `LOGPATH PROGRAM ARG...` per invocation, in plan order. */
export function guestPlanText(items: PlanItem[], seconds: number): string {
  return items.map((i) => `${[guestLogPath(i.seq), GUEST_STRESS_NG, ...guestStressNgArgs(i, seconds)].join(' ')}\n`).join('');
}

/** The probe's arguments for a macro boot. */
export const MACRO_PROBE_ARGS = ['--run-plan', GUEST_PLAN, '--dump-files', GUEST_OUT_DIR];

/** What one macro boot's run is: where its rounds go and what they are checked against. */
export interface MacroBootRun {
  store: Store;
  runId: number;
  items: PlanItem[];
  repeats: number;
  unit: Unit;
  /** stress-ng's record in the run's environment, to which metrics left out of the rounds are added. */
  stressNg: StressNgFacts;
  /**
   * Boots as units (a trial's stressors): the 0-based boot of the kernel's
   * run this session reads. Its rounds are that boot's replicate, after
   * the rounds of the boots before it. Absent: the boot is its own run.
   */
  boot?: number;
}

/** A round of one boot placed in a run that pools every boot of its kernel: the boot is the unit. */
export function pooledRound(r: NewRound, boot: number, items: number, repeats: number): NewRound {
  return { ...r, seq: boot * items + r.seq, index: boot * repeats + r.index, replicate: boot };
}

/**
 * Collects one macro boot's probe lines: invocation statuses, then the file
 * transfer. At the end of the boot (`outcome`) the rounds the files make are
 * stored, and the boot is judged.
 */
export class MacroGuestSession implements LineSession {
  readonly receiver = new GcdaReceiver();
  hello: Extract<ProbeEvent, { type: 'hello' }> | null = null;
  /** Exit status of each invocation, in plan order. */
  readonly statuses: number[] = [];
  done = false;
  error: string | null = null;
  readonly corrupt: string[] = [];

  private readonly stop = new AbortController();
  private storeFailed: StoreError | null = null;

  constructor(
    private readonly run: MacroBootRun | null = null,
    private readonly onInvocation?: (done: number) => void,
  ) {}

  /** Aborts when a round could not be stored. */
  get stopped(): AbortSignal {
    return this.stop.signal;
  }

  get storeFailure(): StoreError | null {
    return this.storeFailed;
  }

  /** Store the boot's rounds, then say why it is not data, if it is not. */
  outcome(exit: TargetExit): SessionOutcome {
    if (!this.run) throw new Error('a macro session without a run has no outcome');
    const { items, repeats, boot } = this.run;
    const guest = guestRounds(this, items, repeats, this.run.unit);
    const { unclassified, failure } = guest;
    const rounds = boot === undefined ? guest.rounds : guest.rounds.map((r) => pooledRound(r, boot, items.length, repeats));
    if (!this.storeRounds(rounds, unclassified)) return { state: 'failed', reason: this.storeFailed!.message };
    const end = exit.end;
    const reason =
      end.kind === 'aborted'
        ? exit.describe('interrupted (Ctrl-C): qemu was killed')
        : end.kind === 'timeout'
          ? exit.describe(`no complete result within ${end.seconds} s (--timeout; ${this.statuses.length} of ${this.run.items.length} invocations had finished); qemu was killed`)
          : failure?.by === 'stress-ng'
            ? `${failure.reason}${exit.command ? `\nqemu command: ${shellLine(exit.command)}` : ''}`
            : failure && exit.describe(failure.reason);
    return reason ? { state: 'failed', reason } : { state: 'complete', rounds: rounds.length };
  }

  /** Commit the rounds and any unclassified metrics; false (and stopped) when the store failed. */
  private storeRounds(rounds: NewRound[], unclassified: string[]): boolean {
    const { store, runId, stressNg } = this.run!;
    try {
      for (const r of rounds) store.addRound(runId, r);
      if (unclassified.length) store.updateEnvironment(runId, { stressNg: { ...stressNg, unclassifiedMetrics: unclassified } });
      return true;
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      this.storeFailed = err;
      this.stop.abort();
      return false;
    }
  }

  private readonly lines = new ConsoleLines();

  feed(raw: string): void {
    for (const p of this.lines.push(raw)) {
      if (p.kind === 'event') this.handle(p.event);
      else if (p.kind === 'corrupt') this.corrupt.push(`${p.reason}: ${p.line.slice(0, 120)}`);
    }
  }

  private handle(e: ProbeEvent): void {
    switch (e.type) {
      case 'hello':
        this.hello = e;
        return;
      case 'exec':
        this.statuses.push(e.status);
        this.onInvocation?.(this.statuses.length);
        return;
      case 'error':
        this.error ??= `the probe failed in the guest: ${describeProbeError(e)}`;
        return;
      case 'done':
        this.done = true;
        return;
      case 'file':
      case 'chunk':
      case 'files':
        this.receiver.feed(e);
        return;
      default:
        return;
    }
  }
}

/**
 * The boot's rounds, and why the boot is not data if it is not: the guest
 * (probe, console, transfer) or stress-ng itself, whose message needs no
 * console lines around it.
 */
export type GuestRounds = {
  rounds: NewRound[];
  /** stress-ng metrics left out of the rounds: their names give no unit or direction (as in a host macro run). */
  unclassified: string[];
  failure: { by: 'guest' | 'stress-ng'; reason: string } | null;
};

/** Turn a finished session into rounds in `unit`; stops at the first invocation that is not data. */
export function guestRounds(session: MacroGuestSession, items: PlanItem[], repeats: number, unit: Unit): GuestRounds {
  const rounds: NewRound[] = [];
  const unclassified = new Set<string>();
  const result = (failure: GuestRounds['failure']): GuestRounds => ({ rounds, unclassified: [...unclassified], failure });
  const fail = (reason: string): GuestRounds => result({ by: 'guest', reason });
  const stressNgFail = (reason: string): GuestRounds => result({ by: 'stress-ng', reason });
  if (session.error) return fail(session.error);
  if (!session.hello) return fail('the probe never started in the guest (no hello line)');
  if (session.corrupt.length) return fail(`the guest printed ${session.corrupt.length} corrupt probe line(s), first: ${session.corrupt[0]}`);
  const transfer = session.receiver.outcome();
  if (transfer.state === 'failed') return fail(`stress-ng's files did not arrive whole: ${transfer.reason.replace('.gcda transfer', 'file transfer')}`);
  const files = new Map(transfer.files.map((f) => [f.guestPath, f.data.toString('utf8')]));
  for (const [i, item] of items.entries()) {
    const status = session.statuses[i];
    const where = `${item.subject} repeat ${item.repeat + 1}/${repeats}`;
    if (status === undefined) return fail(`the guest ran ${session.statuses.length} of ${items.length} stress-ng invocations`);
    const log = files.get(guestLogPath(item.seq)) ?? '';
    const failure = invocationFailure({ kind: 'exited', code: status, stderr: log });
    if (failure !== null) return stressNgFail(`${where} in the guest: ${failure}`);
    const yamlPath = guestYamlPath(item.seq);
    const yaml = files.get(yamlPath);
    if (yaml === undefined) return stressNgFail(withStderr(`${where}: guest:${yamlPath}: stress-ng wrote no YAML file`, log));
    try {
      const metrics = parseStressNgYaml(yaml, `guest:${yamlPath}`, item.stressor);
      if (metrics.bogoOps === 0 || metrics.bogoOpsPerSecRealTime === 0) {
        return stressNgFail(withStderr(`${where}: guest:${yamlPath}: stress-ng reported 0 bogo ops (the stressor did no work)`, log));
      }
      const made = macroRound(metrics, { seq: item.seq, subject: item.subject, repeat: item.repeat });
      rounds.push({ ...made.round, unit });
      for (const name of made.unclassified) unclassified.add(name);
    } catch (err) {
      if (err instanceof StressNgYamlError) return stressNgFail(withStderr(`${where}: ${err.message}`, log));
      throw err;
    }
  }
  return result(null);
}

/**
 * The session of a run that pools every boot of its kernel (boots as
 * units): each boot is read by a fresh MacroGuestSession whose rounds are
 * that boot's replicate; `startBoot` is called before each boot.
 */
export class PooledMacroSession implements LineSession {
  private current: MacroGuestSession;

  constructor(
    private readonly run: MacroBootRun,
    private readonly onInvocation?: (done: number) => void,
  ) {
    this.current = new MacroGuestSession({ ...run, boot: 0 }, onInvocation);
  }

  /** The 0-based boot of this kernel about to start. */
  startBoot(boot: number): void {
    this.current = new MacroGuestSession({ ...this.run, boot }, this.onInvocation);
  }

  get hello(): MacroGuestSession['hello'] {
    return this.current.hello;
  }

  feed(line: string): void {
    this.current.feed(line);
  }

  get stopped(): AbortSignal {
    return this.current.stopped;
  }

  get storeFailure(): StoreError | null {
    return this.current.storeFailure;
  }

  outcome(exit: TargetExit): SessionOutcome {
    return this.current.outcome(exit);
  }
}
