/**
 * Reads one host `hintlab macro` run, one stress-ng invocation (segment)
 * at a time: when an invocation ends, its exit and the YAML file the target
 * collected back make one round, stored at once, or the reason the run
 * stops, in stress-ng's own words.
 *
 * Invariant: a round is stored only for an invocation that exited 0, whose
 * YAML parsed whole and reported work, and never after the abort fired.
 */
import type { Store } from '../store/store.ts';
import { StoreError } from '../store/store.ts';
import type { LineSession, SessionOutcome } from '../targets/driver.ts';
import type { TargetExit } from '../targets/target.ts';
import { HANG_GRACE_SECONDS, type InvocationResult } from './executor.ts';
import { invocationFailure, withStderr } from './failure.ts';
import { macroRound } from './metrics.ts';
import type { PlanItem } from './plan.ts';
import { parseStressNgYaml, StressNgYamlError } from './yaml.ts';

/** How the target says stress-ng ended, as the failure messages read it. */
export function invocationResult(exit: TargetExit, seconds: number): InvocationResult {
  const stderr = exit.stderrTail.map((l) => `${l}\n`).join('');
  const end = exit.end;
  switch (end.kind) {
    case 'exited':
      return end.signal !== null ? { kind: 'signalled', signal: end.signal, stderr } : { kind: 'exited', code: end.code ?? 0, stderr };
    case 'timeout':
      return { kind: 'hung', afterSeconds: seconds + HANG_GRACE_SECONDS, stderr };
    case 'aborted':
      return { kind: 'aborted', stderr };
    case 'lost':
      return { kind: 'signalled', signal: `a lost target (${end.reason})`, stderr };
  }
}

export interface MacroSessionOptions {
  store: Store;
  runId: number;
  items: PlanItem[];
  repeats: number;
  seconds: number;
  abort: AbortSignal;
  /** The YAML path the invocation of `item` writes, as its job names it in `collect`. */
  yamlPath: (item: PlanItem) => string;
}

export class MacroHostSession implements LineSession {
  private item: PlanItem | null = null;
  private done = 0;
  readonly unclassified = new Set<string>();
  private readonly stop = new AbortController();
  private storeFailed: StoreError | null = null;

  constructor(private readonly o: MacroSessionOptions) {}

  /** The next invocation starts. */
  start(item: PlanItem): void {
    this.item = item;
  }

  get stopped(): AbortSignal {
    return this.stop.signal;
  }

  get storeFailure(): StoreError | null {
    return this.storeFailed;
  }

  /** stress-ng's stdout says nothing hintlab reads: its numbers are in the YAML file. */
  feed(): void {}

  /** Why the run stops at `item` after an abort. */
  interrupted(item: PlanItem): string {
    return `interrupted during ${item.subject} repeat ${item.repeat + 1}/${this.o.repeats}; ${this.done} of ${this.o.items.length} rounds stored, the run is incomplete`;
  }

  outcome(exit: TargetExit): SessionOutcome {
    const item = this.item!;
    if (exit.end.kind === 'aborted' || this.o.abort.aborted) return { state: 'failed', reason: this.interrupted(item) };
    const where = `${item.subject} repeat ${item.repeat + 1}/${this.o.repeats}`;
    const result = invocationResult(exit, this.o.seconds);
    const failure = invocationFailure(result);
    if (failure !== null) return { state: 'failed', reason: `${where}: ${failure}` };
    const yamlPath = this.o.yamlPath(item);
    const yaml = exit.collected.get(yamlPath);
    if (yaml === undefined) return { state: 'failed', reason: withStderr(`${where}: ${yamlPath}: stress-ng wrote no YAML file`, result.stderr) };
    try {
      const metrics = parseStressNgYaml(yaml.toString('utf8'), yamlPath, item.stressor);
      if (metrics.bogoOps === 0 || metrics.bogoOpsPerSecRealTime === 0) {
        return { state: 'failed', reason: withStderr(`${where}: ${yamlPath}: stress-ng reported 0 bogo ops (the stressor did no work)`, result.stderr) };
      }
      const { round, unclassified } = macroRound(metrics, { seq: item.seq, subject: item.subject, repeat: item.repeat });
      this.o.store.addRound(this.o.runId, round);
      for (const name of unclassified) this.unclassified.add(name);
      this.done++;
      return { state: 'complete', rounds: 1 };
    } catch (err) {
      if (err instanceof StressNgYamlError) return { state: 'failed', reason: withStderr(`${where}: ${err.message}`, result.stderr) };
      if (!(err instanceof StoreError)) throw err;
      this.storeFailed = err;
      this.stop.abort();
      return { state: 'failed', reason: err.message };
    }
  }
}
