/**
 * Alternation with two processes: when A and B differ inside each process
 * (a seccomp filter, known work), an A probe and a B probe, pinned to the
 * same CPU, take turns: each prints `wait block=K` before its blocks and
 * sleeps on its own go FIFO until hintlab lets it run one block of R rounds
 * (probes/sync.c). Blocks come in pairs, each AB or BA at random from the
 * recorded seed, exactly as in one-process alternation; pair k is
 * replicate k of both runs. Only one side runs at any instant, so neither
 * slows the other (on a 2-vCPU guest two probes at once cost each about
 * 28 % more, and the pair-to-pair spread of a duet was twice this one's),
 * and whatever drifts slowly falls on both blocks of a pair.
 *
 * Every PAIRS_PER_PROCESS pairs both processes are replaced by fresh ones,
 * so a process's own state (address-space layout, page placement) is
 * replicated with the pairs instead of favouring one side for the whole
 * run. A switched file, if any, is set to the block's side before each
 * block as well.
 */
import type { LineSession, SessionOutcome } from '../targets/driver.ts';
import type { TargetExit } from '../targets/target.ts';
import { mulberry32 } from '../stats/random.ts';
import { GoFifo } from './alternation.ts';
import { PAIRS_PER_PROCESS } from './design.ts';
import { ConsoleLines, frameLine } from '../launch/probe-protocol.ts';
import type { SideName, SideRun } from './sides.ts';


/** What the turns ask of hintlab at each pair boundary and block. */
export interface TurnsControl {
  /** Before pair `pair` (> 0) starts: false to stop after the pairs done. */
  goOn(pair: number): boolean;
  /** Switch the files (if any) to a side before its block; throws when a file refuses. */
  switchTo(side: SideName): void;
}

const index = (s: SideName) => (s === 'A' ? 0 : 1);

/**
 * The turn-taking of one pair of processes after another: which side runs
 * the next block, and when a generation of processes ends. One instance
 * for the whole invocation (the order and the pair count go on across
 * generations); `startGeneration` gives it the FIFOs of the new processes.
 */
export class Turns {
  private readonly random: () => number;
  /** The sides of the blocks started so far (two per pair). */
  order = '';
  /** Global index of the block running or last run; -1 before the first. */
  private block = -1;
  private running: SideName | null = null;
  /** The block each side's process waits to run, or null while it runs (or before its first wait). */
  private waiting: [number | null, number | null] = [null, null];
  private fifos: [GoFifo, GoFifo] | null = null;
  /** Pairs this generation may start: it ends before pair `generationEnd`. */
  private generationEnd = 0;
  private stopped = false;
  failure: string | null = null;

  constructor(private readonly sides: [SideRun, SideRun], private readonly blockRounds: number, seed: number, private readonly control: TurnsControl) {
    this.random = mulberry32(seed);
  }

  /** Pairs whose both blocks started. */
  get pairs(): number {
    return Math.floor((this.block + 1) / 2);
  }

  /** True once no further generation should start (budget spent, a failure, or a stop). */
  get finished(): boolean {
    return this.stopped;
  }

  startGeneration(fifos: [GoFifo, GoFifo]): void {
    this.fifos = fifos;
    this.waiting = [null, null];
    this.running = null;
    this.generationEnd = this.pairs + PAIRS_PER_PROCESS;
  }

  /** A side's process waits before its own block `own`: it ended its last block, or it just started. */
  onWait(side: SideName, own: number): void {
    this.waiting[index(side)] = own;
    if (this.running === side) this.running = null;
    this.step();
  }

  private endGeneration(stop: boolean): void {
    if (stop) this.stopped = true;
    for (const f of this.fifos ?? []) f.send('s');
    this.fifos = null;
  }

  /** Start the next block when the previous one ended and its side's process is at its gate. */
  private step(): void {
    if (this.running !== null || this.fifos === null) return;
    // a side whose round could not be stored is being stopped: its partner measures nothing more into that store
    if (this.sides.some((s) => s.session.storeFailure)) { this.endGeneration(true); return; }
    const next = this.block + 1;
    if (next % 2 === 0) {
      const pair = next / 2;
      if (this.order.length <= next) {
        if (pair >= this.generationEnd) { this.endGeneration(false); return; }
        if (pair > 0 && !this.control.goOn(pair)) { this.endGeneration(true); return; }
        this.order += this.random() < 0.5 ? 'AB' : 'BA';
      }
    }
    const side = this.order[next] as SideName;
    if (this.waiting[index(side)] === null) return; // its process has not reached its gate yet
    try {
      this.control.switchTo(side);
    } catch (err) {
      this.failure = `switching the files to ${side} before block ${next}: ${(err as Error).message}`;
      this.endGeneration(true); return;
    }
    this.block = next;
    this.running = side;
    this.waiting[index(side)] = null;
    this.sides[index(side)].session.startSegment(this.blockRounds);
    this.fifos[index(side)].send('g');
  }

  /** Stop at once (an abort, a failed partner): both processes read 's' at their next gate. */
  stop(): void {
    this.endGeneration(true);
  }

  /** A generation that ended in the middle of a pair is a failure: the pair has one side only. */
  midPair(): boolean {
    return this.block % 2 === 0;
  }
}

/**
 * The line session of one side across all its processes: `wait` lines go
 * to the turns, measured rounds to the side's run (indices counted per
 * block), everything else to the side's run as it is.
 */
export class TurnSession implements LineSession {
  private lines = new ConsoleLines();
  private own = 0;

  /** `onRound`: each measured round's profile and ns (or clock units) per call, as it arrives; `onGauge`: each `--work-gauge` line's ns per addition. */
  constructor(private readonly side: SideRun, private readonly turns: Turns, private readonly blockRounds: number, private readonly onRound?: (profile: string, perCall: number) => void, private readonly onGauge?: (profile: string, perAdd: number) => void) {}

  get stopped(): AbortSignal {
    return this.side.session.stopped;
  }

  get storeFailure() {
    return this.side.session.storeFailure;
  }

  /** A new process of this side starts: its lines and block numbers begin again. */
  restart(): void {
    this.lines = new ConsoleLines();
    this.own = 0;
  }

  feed(line: string): void {
    for (const parsed of this.lines.push(line)) {
      if (parsed.kind === 'event' && parsed.event.type === 'wait') {
        this.own = parsed.event.block;
        this.turns.onWait(this.side.name, parsed.event.block);
      } else if (parsed.kind === 'event' && parsed.event.type === 'gauge') {
        const g = parsed.event;
        this.onGauge?.(g.profile, g.elapsed / (g.adds * g.calls));
      } else if (parsed.kind === 'event' && parsed.event.type === 'round' && !parsed.event.warmup) {
        const e = parsed.event;
        const idx = e.idx - this.own * this.blockRounds;
        this.onRound?.(e.profile, e.elapsed / e.ops);
        this.side.session.feed(frameLine(`@hl1 round profile=${e.profile} idx=${idx} warmup=0 ops=${e.ops} elapsed=${e.elapsed} cpu=${e.cpu}${e.start === null ? '' : ` start=${e.start}`}`));
      } else {
        this.side.session.feed(line);
      }
    }
  }

  outcome(exit: TargetExit): SessionOutcome {
    if (this.turns.failure) return { state: 'failed', reason: this.turns.failure };
    const own = this.side.session.outcome(exit);
    if (own.state === 'failed') return own;
    if (this.turns.midPair()) return { state: 'failed', reason: `the probes ended after block ${this.turns.order.length - 1}, in the middle of pair ${this.turns.pairs}` };
    return own;
  }
}
