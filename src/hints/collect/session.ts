/**
 * Follows the probe's lines through one coverage boot: the workload's
 * progress, then the .gcda transfer.
 *
 * A serial console can break a long line in two (seen once in about twenty
 * transfers on a loaded host: the rest of a chunk line arrived as a line of
 * its own). A probe line without its checksum is therefore kept, and each of
 * the next few non-probe lines is tried as its tail; the joined line is used
 * only when its CRC-32 matches, so a wrong join cannot pass.
 */
import { describeProbeError, parseLine, type ProbeEvent } from '../../bench/protocol.ts';
import { GcdaReceiver } from './transfer.ts';

const PREFIX = '@hl1 ';
/** Non-probe lines tried as the tail of a broken line before it counts as corrupt. */
const REJOIN_TRIES = 3;

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

  constructor(private readonly onFile?: (files: number) => void) {}

  /** Probe lines the console broke in two and that were joined again (each verified by its CRC). */
  rejoined = 0;
  private broken: { head: string; tries: number } | null = null;

  feed(raw: string): void {
    const line = raw.replace(/\r+$/, '');
    if (this.broken && !line.includes(PREFIX) && this.rejoin(line)) return;
    const p = parseLine(line);
    if (p.kind === 'noise') return;
    this.giveUpBroken();
    if (p.kind === 'event') return this.handle(p.event);
    // a probe line without its checksum: the console may have broken it, the rest may follow
    if (p.reason === 'no checksum') this.broken = { head: line, tries: 0 };
    else this.corrupt.push(`${p.reason}: ${p.line.slice(0, 120)}`);
  }

  /**
   * Try the broken line's head with this line as its tail; a kernel message
   * may stand between them, so the next few lines are each tried. Only a
   * joined line whose CRC-32 matches is taken.
   */
  private rejoin(line: string): boolean {
    const broken = this.broken!;
    const p = parseLine(broken.head + line);
    if (p.kind === 'event') {
      this.broken = null;
      this.rejoined++;
      this.handle(p.event);
      return true;
    }
    if (++broken.tries >= REJOIN_TRIES) this.giveUpBroken();
    return false;
  }

  private giveUpBroken(): void {
    if (this.broken) this.corrupt.push(`no checksum: ${this.broken.head.slice(0, 120)}`);
    this.broken = null;
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
        if (e.status !== 0) this.failure = `the workload program exited with status ${e.status}${e.status === 127 ? ' (127: it could not be executed; is it a static x86_64 binary?)' : ''}`;
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

  /** Why this boot's output is not a complete profile, or null when it is. */
  problem(): string | null {
    this.giveUpBroken();
    if (this.failure) return this.failure;
    if (!this.hello) return 'the probe never started in the guest (no hello line)';
    if (!this.done) return `the workload did not finish (${this.rounds} profile rounds${this.execStatus === null ? '' : ', program ran'})`;
    const t = this.receiver.outcome();
    if (t.state === 'failed') return `${t.reason}${this.corrupt.length ? `; ${this.corrupt.length} corrupt line(s), first: ${this.corrupt[0]}` : ''}`;
    return null;
  }
}
