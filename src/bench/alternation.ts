/**
 * Fine-grained alternation (randomized multiple interleaved trials, Abedi
 * and Brecht, ICPE 2017): one long-lived probe process measures many short
 * blocks; hintlab switches the files to a block's side, then lets the probe
 * go (probes/sync.c: `wait block=K`, one byte on a FIFO). Blocks come in
 * pairs, each pair AB or BA at random from a recorded seed, so a drift
 * within a pair favours neither side on average; pair k is replicate k of
 * both runs. The process and its memory layout are the same for both
 * sides, so only the switch differs between them.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePidDir } from '../proc/pid-dirs.ts';
import type { LineSession, SessionOutcome } from '../targets/driver.ts';
import type { TargetExit } from '../targets/target.ts';
import { mulberry32 } from '../stats/random.ts';
import { ConsoleLines, frameLine } from '../launch/probe-protocol.ts';
import type { SideName, SideRun } from './sides.ts';

/** The sides of pairs 0..n-1 in random ABBA order: each pair AB or BA, reproducible from the seed. */
export function alternationOrder(seed: number, pairs: number): string {
  const random = mulberry32(seed);
  return Array.from({ length: pairs }, () => (random() < 0.5 ? 'AB' : 'BA')).join('');
}

/** The FIFO's directory: `hintlab-go-PID-XXXXXX` (src/proc/pid-dirs.ts). */
export const GO_DIR_PREFIX = 'hintlab-go';

/** The go channel to the probe: a FIFO held open read-write, so writing never blocks and the probe sees EOF only when hintlab is gone. */
export class GoFifo {
  readonly path: string;
  private readonly dir: string;
  private readonly fd: number;
  constructor(tmp: string = tmpdir()) {
    // one a hintlab killed with SIGKILL left holds the FIFO only
    this.dir = makePidDir(GO_DIR_PREFIX, ['go'], tmp);
    this.path = join(this.dir, 'go');
    execFileSync('mkfifo', ['-m', '600', this.path]);
    this.fd = openSync(this.path, 'r+');
  }
  send(c: 'g' | 's'): void {
    writeSync(this.fd, c);
  }
  close(): void {
    closeSync(this.fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** What the session asks at each block boundary. */
export interface AlternationControl {
  /** Before the first block of a new pair (`pair` > 0): false to stop after the pairs done. */
  goOn(pair: number): boolean;
  /** Switch the files to a side before its block; throws a SwitchError when a file refuses. */
  switchTo(side: SideName): void;
  send(c: 'g' | 's'): void;
}

/**
 * The line session of the one probe process: it routes each block's
 * rounds to the run of the block's side (as replicate `pair`, indices
 * counted per side), warm-ups to A, and the other lines to both.
 */
export class AlternationSession implements LineSession {
  private readonly lines = new ConsoleLines();
  private block = -1;
  private current: SideRun | null = null;
  private failure: string | null = null;
  private readonly random: () => number;
  /** The sides of the blocks started so far: alternationOrder(seed, pairs). */
  order = '';

  constructor(private readonly sides: [SideRun, SideRun], private readonly blockRounds: number, seed: number, private readonly control: AlternationControl) {
    this.random = mulberry32(seed);
  }

  get stopped(): AbortSignal {
    return AbortSignal.any(this.sides.map((s) => s.session.stopped));
  }

  get storeFailure() {
    return this.sides[0].session.storeFailure ?? this.sides[1].session.storeFailure;
  }

  /** Pairs whose both blocks started. */
  get pairs(): number {
    return Math.floor((this.block + 1) / 2);
  }

  feed(line: string): void {
    for (const parsed of this.lines.push(line)) {
      if (parsed.kind !== 'event') {
        for (const s of this.sides) s.session.feed(line);
      } else if (parsed.event.type === 'wait') {
        this.gate(parsed.event.block);
      } else if (parsed.event.type === 'round' && !parsed.event.warmup && this.current) {
        const e = parsed.event;
        const idx = e.idx - this.block * this.blockRounds;
        this.current.session.feed(frameLine(`@hl1 round profile=${e.profile} idx=${idx} warmup=0 ops=${e.ops} elapsed=${e.elapsed} cpu=${e.cpu}${e.start === null ? '' : ` start=${e.start}`}`));
      } else if (parsed.event.type === 'round') {
        this.sides[0].session.feed(line);
      } else {
        for (const s of this.sides) s.session.feed(line);
      }
    }
  }

  /** The probe waits before block `block`: stop at a pair boundary when the budget says so, else switch and go. */
  private gate(block: number): void {
    // a round that could not be stored stops the probe: no further block starts meanwhile
    if (this.storeFailure) { this.control.send('s'); return; }
    if (block % 2 === 0 && block > 0 && !this.control.goOn(block / 2)) { this.control.send('s'); return; }
    if (block % 2 === 0) this.order += this.random() < 0.5 ? 'AB' : 'BA';
    const side = this.order[block] as SideName;
    try {
      this.control.switchTo(side);
    } catch (err) {
      this.failure = `switching the files to ${side} before block ${block}: ${(err as Error).message}`;
      this.control.send('s'); return;
    }
    this.block = block;
    this.current = this.sides[side === 'A' ? 0 : 1];
    this.current.session.startSegment(this.blockRounds);
    this.control.send('g');
  }

  outcome(exit: TargetExit): SessionOutcome {
    if (this.failure) return { state: 'failed', reason: this.failure };
    const [a, b] = this.sides.map((s) => s.session.outcome(exit));
    // both sides read the same process: its failure is the same on both
    if (a!.state === 'failed') return a!;
    if (b!.state === 'failed') return b!;
    if (this.block % 2 === 0) return { state: 'failed', reason: `the probe ended after block ${this.block}, in the middle of pair ${this.pairs}` };
    return { state: 'complete', rounds: a!.rounds + b!.rounds };
  }
}
