/**
 * A run-time switch between A and B by writing a value to a file (a sysctl,
 * `/sys/kernel/debug/sched/features`, a livepatch's `enabled`) and always
 * writing the original back: on normal exit, on error, on Ctrl-C/SIGTERM,
 * and after a kill -9 of hintlab, through a watchdog process in its own
 * session that restores the files when hintlab's pipe to it closes without
 * a `done`.
 *
 * Invariant: no file is written before the watchdog is armed with the
 * value to restore, and every write is read back and checked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** What the user asked for: B's value, and A's when the file's contents cannot be written back as read. */
export interface FileSwitchSpec {
  path: string;
  valueB: string;
  /** null = A is the file's contents as read at the start. */
  valueA: string | null;
}

/** A switch checked against the file: what A and B write, and what the file held. */
export interface PreparedSwitch {
  path: string;
  /** The contents at the start, as read. */
  original: string;
  valueA: string;
  valueB: string;
}

/** A file that cannot be switched or restored; the message names the file and the fix. */
export class SwitchError extends Error {}

function words(text: string): string[] {
  return text.trim().split(/\s+/).filter(Boolean);
}

/**
 * Whether `contents` shows `value` in force: the same words (a sysctl such
 * as `4096 131072 6291456` reads back with tabs), or one word of a list
 * (`NO_TTWU_QUEUE` in sched/features, which lists every feature).
 */
export function shows(contents: string, value: string): boolean {
  const have = words(contents);
  const want = words(value);
  if (have.join(' ') === want.join(' ')) return true;
  return want.length === 1 && have.includes(want[0]!);
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new SwitchError(`--switch-file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); hintlab switches only files it can read back and restore`);
  }
}

/** Write `value` and read it back; throws naming the file, the value and what it reads. */
export function writeVerified(path: string, value: string): void {
  try {
    writeFileSync(path, value);
  } catch (err) {
    throw new SwitchError(`--switch-file ${path}: cannot write '${value}' (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const back = readText(path);
  if (!shows(back, value)) {
    throw new SwitchError(`--switch-file ${path}: wrote '${value}' but it reads back '${back.trim()}'; the kernel did not take the value`);
  }
}

/** Read the file and check that A's value describes what it holds now, so restoring A restores it. */
export function prepareSwitch(spec: FileSwitchSpec): PreparedSwitch {
  const original = readText(spec.path);
  if (spec.valueA !== null && !shows(original, spec.valueA)) {
    throw new SwitchError(
      `--switch-file-a ${spec.path}=${spec.valueA}: the file holds '${original.trim()}', not that value, so writing it at the end would not restore the file; ` +
        'give the value it holds now',
    );
  }
  return { path: spec.path, original, valueA: spec.valueA ?? original, valueB: spec.valueB };
}

/** The watchdog process: armed with what to restore, released once hintlab restored the files itself. */
export interface Watchdog {
  readonly pid: number;
  /**
   * Close the pipe and wait for the watchdog to exit: with `restored` it
   * exits at once, without it writes every value back itself (a second try).
   */
  release(restored: boolean): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./watchdog-entry.mjs', import.meta.url));
const ARM_TIMEOUT_MS = 10_000;

/** Start a watchdog that restores `restores` if this process dies; resolves once it is armed. */
export function armWatchdog(restores: { path: string; value: string }[]): Promise<Watchdog> {
  const child = spawn(process.execPath, [ENTRY], { detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      child.kill('SIGKILL');
      reject(new SwitchError(`cannot start the restore watchdog: ${why}; no file was written`));
    };
    const timer = setTimeout(() => fail(`no answer within ${ARM_TIMEOUT_MS / 1000} s`), ARM_TIMEOUT_MS);
    let answered = false;
    child.on('error', (err) => {
      clearTimeout(timer);
      fail(err.message);
    });
    // a watchdog that dies before it is armed says so at once, not after the time-out
    child.once('exit', (code, signal) => {
      if (answered) return;
      clearTimeout(timer);
      fail(`it exited (${signal ?? `status ${code}`}) before it was armed`);
    });
    // its death is reported by 'exit'; a write into its closed pipe must not crash hintlab
    child.stdin!.on('error', () => {});
    createInterface({ input: child.stdout! }).once('line', (line) => {
      answered = true;
      clearTimeout(timer);
      if (line !== 'armed') return fail(`it said '${line}'`);
      child.stdout!.destroy();
      resolve(watchdog(child));
    });
    child.stdin!.write(`${JSON.stringify(restores)}\n`);
  });
}

function watchdog(child: ChildProcess): Watchdog {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    pid: child.pid!,
    async release(restored) {
      child.stdin!.end(restored ? 'done\n' : '');
      await exited;
    },
  };
}

/**
 * The file switches of one interleaved run: armed before the first write,
 * set per probe process, restored once at the end (then the watchdog is
 * released).
 */
export class FileSwitches {
  private constructor(
    readonly switches: PreparedSwitch[],
    private readonly dog: Watchdog | null,
  ) {}

  /**
   * Check every file, arm the watchdog, write A's value (what each file
   * holds: a file that refuses it was never changed), then try B and A (a
   * file that refuses either is restored and refused now).
   */
  static async prepare(specs: FileSwitchSpec[]): Promise<FileSwitches> {
    const switches = specs.map(prepareSwitch);
    if (switches.length === 0) return new FileSwitches([], null);
    const dog = await armWatchdog(switches.map((s) => ({ path: s.path, value: s.valueA })));
    const set = new FileSwitches(switches, dog);
    try {
      set.set('A');
    } catch (err) {
      await dog.release(true);
      throw err;
    }
    try {
      set.set('B');
      set.set('A');
    } catch (err) {
      const left = await set.restore().then(() => '', (e: unknown) => `\n${(e as Error).message}`);
      throw new SwitchError(`${(err as Error).message}${left}`);
    }
    return set;
  }

  /** Write every file's value for `side`, each read back. */
  set(side: 'A' | 'B'): void {
    for (const s of this.switches) writeVerified(s.path, side === 'A' ? s.valueA : s.valueB);
  }

  /** Write every A value back, then release the watchdog. A file that refuses is left to the watchdog's own try, and the error names it with the command to restore it by hand. */
  async restore(): Promise<void> {
    const failures: string[] = [];
    for (const s of this.switches) {
      try {
        writeVerified(s.path, s.valueA);
      } catch (err) {
        failures.push(`${(err as Error).message}; restore it by hand: echo '${s.valueA.trim()}' > ${s.path}`);
      }
    }
    await this.dog?.release(failures.length === 0);
    if (failures.length) throw new SwitchError(failures.join('\n'));
  }
}
