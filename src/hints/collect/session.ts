/**
 * Follows the probe's lines through one coverage boot: the workload's
 * progress, then the .gcda transfer.
 *
 * A serial console can break a long line in two; ConsoleLines joins the
 * halves again when the joined line's CRC-32 matches.
 */
import { ConsoleLines, describeProbeError, type ProbeEvent } from '../../launch/probe-protocol.ts';
import { invocationFailure } from '../../macro/failure.ts';
import { GcdaReceiver } from './transfer.ts';

/** Console lines kept per stress-ng invocation (its own words, when it fails). */
const KEPT_OUTPUT_LINES = 40;

/** Follows the probe's lines through one boot: workload progress, then the .gcda transfer. */
export class CoverageSession {
  readonly receiver = new GcdaReceiver();
  hello: Extract<ProbeEvent, { type: 'hello' }> | null = null;
  rounds = 0;
  done = false;
  corrupt: string[] = [];
  /** Host clock (ms) at the workload's `done` line and at the dump's closing line. */
  doneAtMs: number | null = null;
  dumpedAtMs: number | null = null;
  private failure: string | null = null;
  private execStatus: number | null = null;
  /** Invocations of a plan that ended (`exec` lines). */
  private execs = 0;
  /** The console's other lines since the last `exec` line (stress-ng's output, kernel messages). */
  private output: string[] = [];

  /**
   * `stressors`: a stress-ng workload, one invocation per stressor in this
   * order. `dump`: whether the probe sends files after the workload (an
   * exact collect's counts come from the cost plugin instead).
   */
  constructor(
    private readonly onFile?: (files: number) => void,
    private readonly stressors?: readonly string[],
    private readonly dump = true,
  ) {}

  private readonly lines = new ConsoleLines();

  /** Probe lines the console broke in two and that were joined again (each verified by its CRC). */
  get rejoined(): number {
    return this.lines.rejoined;
  }

  feed(raw: string): void {
    if (this.stressors && !raw.includes('@hl1 ')) this.keepOutput(raw);
    for (const p of this.lines.push(raw)) {
      if (p.kind === 'event') this.handle(p.event);
      else if (p.kind === 'corrupt') this.corrupt.push(`${p.reason}: ${p.line.slice(0, 120)}`);
    }
  }

  private handle(e: ProbeEvent): void {
    if (this.failure) return;
    switch (e.type) {
      case 'hello':
        this.hello = e;
        return;
      case 'round':
        this.rounds++;
        return;
      case 'exec':
        this.execStatus = e.status;
        this.execs++;
        if (this.stressors) this.stressorEnded(e.status);
        else if (e.status !== 0) this.failure = `the workload program exited with status ${e.status}${e.status === 127 ? ' (127: it could not be executed; is it a static x86_64 binary?)' : ''}`;
        return;
      case 'error':
        this.failure = `the probe failed in the guest: ${describeProbeError(e)}`;
        return;
      case 'done':
        this.done = true;
        this.doneAtMs = Date.now();
        return;
      case 'file':
      case 'chunk':
      case 'files':
        this.receiver.feed(e);
        if (e.type === 'file') this.onFile?.(e.id + 1);
        if (e.type === 'files') this.dumpedAtMs = Date.now();
        return;
      default:
        return;
    }
  }

  private keepOutput(raw: string): void {
    this.output.push(raw.trimEnd());
    if (this.output.length > KEPT_OUTPUT_LINES) this.output.shift();
  }

  /** A stressor's invocation ended: a non-zero status fails the run with stress-ng's own words. */
  private stressorEnded(status: number): void {
    const n = this.stressors!.length;
    const name = this.stressors![this.execs - 1] ?? `invocation ${this.execs}`;
    const why = invocationFailure({ kind: 'exited', code: status, stderr: this.output.join('\n') });
    this.output = [];
    if (why !== null) this.failure = `stressor ${name} (${this.execs} of ${n}) failed in the guest: ${why}`;
  }

  /** Why this boot's output is not a complete profile, or null when it is. */
  problem(): string | null {
    for (const p of this.lines.flush()) this.corrupt.push(`${p.reason}: ${p.line.slice(0, 120)}`);
    if (this.failure) return this.failure;
    if (!this.hello) return 'the probe never started in the guest (no hello line)';
    if (!this.done && this.stressors) return `the workload did not finish (${this.execs} of ${this.stressors.length} stress-ng invocations ended)`;
    if (!this.done) return `the workload did not finish (${this.rounds} profile rounds${this.execStatus === null ? '' : ', program ran'})`;
    if (this.stressors && this.execs !== this.stressors.length) return `the guest ran ${this.execs} of ${this.stressors.length} stress-ng invocations`;
    if (!this.dump) return null;
    const t = this.receiver.outcome();
    if (t.state === 'failed') return `${t.reason}${this.corrupt.length ? `; ${this.corrupt.length} corrupt line(s), first: ${this.corrupt[0]}` : ''}`;
    return null;
  }
}
