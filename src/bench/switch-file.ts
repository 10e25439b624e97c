/**
 * A run-time switch between A and B by writing a value to a file (a sysctl,
 * `/sys/kernel/debug/sched/features`, a livepatch's `enabled`) and always
 * writing the original back: on normal exit, on error, on Ctrl-C/SIGTERM,
 * and after a kill -9 of hintlab, through a watchdog process in its own
 * session that restores the files when hintlab's pipe to it closes without
 * a `done`.
 *
 * Invariant: no file is written before it is checked (./switch-check.ts),
 * its lock is held (./switch-lock.ts) and the watchdog is armed with the
 * bytes to restore; every write is read back and checked.
 */
import { realpathSync } from 'node:fs';
import { checkPlace, quoted, readBytes, SwitchError, writeBytes } from './switch-check.ts';
import { busyError, checkStale, lockFree, lockPathFor } from './switch-lock.ts';
import { armWatchdog, type Arming, type Watchdog, type WatchdogLocks } from './switch-watchdog.ts';


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
  /** The contents at the start, as read (decoded as UTF-8, for records and messages). */
  original: string;
  valueA: string;
  valueB: string;
  /** The contents at the start, byte for byte (set by prepareSwitch). */
  originalBytes?: Buffer;
  /** The file's real path, symlinks resolved: what its lock is named by (set by prepareSwitch). */
  realPath?: string;
  /** Whether A's value was given (--switch-file-a) rather than read (set by prepareSwitch). */
  givenA?: boolean;
}

/** A switch as prepareSwitch returns it: every field known. */
export interface CheckedSwitch extends PreparedSwitch {
  originalBytes: Buffer;
  realPath: string;
  givenA: boolean;
}

/** How a set of switches is taken: the --force rule, waiting for another run, the holder's command. */
export interface SwitchOptions {
  /** Allow files outside /proc/sys, /sys, debugfs and the user's own files. */
  force?: boolean;
  /** Wait for a run that holds a file's lock instead of refusing. */
  wait?: boolean;
  /** Told once per held file before waiting, and of a stale record taken over. */
  onNote?: (message: string) => void;
  /** Ends a wait (Ctrl-C). */
  signal?: AbortSignal;
  /** The command line recorded in each lock (default: this process's argv). */
  command?: string;
}

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

/** `shows` on bytes: identical, or the same by words, compared byte for byte (latin1 keeps every byte). */
function showsBytes(contents: Buffer, value: Buffer): boolean {
  return contents.equals(value) || shows(contents.toString('latin1'), value.toString('latin1'));
}

const asBytes = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value) : value);

/** Write `value` and read it back; throws naming the file, the value and what it reads. */
export function writeVerified(path: string, value: string | Buffer): void {
  const bytes = asBytes(value);
  writeBytes(path, bytes, bytes.toString('utf8'));
  const back = readBytes(path);
  if (!showsBytes(back, bytes)) {
    throw new SwitchError(`--switch-file ${path}: wrote '${quoted(bytes)}' but it reads back '${quoted(back)}'; the kernel did not take the value`);
  }
}

/**
 * Read the file (a regular file or kernel attribute, at most
 * SWITCH_MAX_BYTES, where --force is not needed or given) and check that
 * A's value describes what it holds now, so restoring A restores it.
 */
export function prepareSwitch(spec: FileSwitchSpec, opts: Pick<SwitchOptions, 'force'> = {}): CheckedSwitch {
  const originalBytes = readBytes(spec.path);
  const realPath = realpathSync(spec.path);
  checkPlace(spec.path, realPath, opts.force === true);
  const original = originalBytes.toString('utf8');
  if (spec.valueA !== null && !shows(original, spec.valueA)) {
    throw new SwitchError(
      `--switch-file-a ${spec.path}=${spec.valueA}: the file holds '${quoted(original)}', not that value, so writing it at the end would not restore the file; ` +
        'give the value it holds now',
    );
  }
  return { path: spec.path, original, originalBytes, realPath, valueA: spec.valueA ?? original, valueB: spec.valueB, givenA: spec.valueA !== null };
}

/** What side A writes: the given A value, or the original bytes exactly. */
export function bytesA(s: CheckedSwitch): Buffer {
  return s.givenA ? Buffer.from(s.valueA) : s.originalBytes;
}

/** The same file named twice (through a link or another spelling) would take its own lock twice. */
function refuseSameFile(switches: CheckedSwitch[]): void {
  const seen = new Map<string, string>();
  for (const s of switches) {
    const other = seen.get(s.realPath);
    if (other !== undefined) throw new SwitchError(`--switch-file ${s.path} and ${other} are the same file (${s.realPath}); give each file once`);
    seen.set(s.realPath, s.path);
  }
}

/** Each file's lock, in lock order; a held one refuses (or, with --wait, is noted and waited for). */
function lockOrder(switches: CheckedSwitch[], opts: SwitchOptions): WatchdogLocks {
  const locks = switches.map((s) => ({ lock: lockPathFor(s.realPath), path: s.path })).sort((x, y) => x.lock.localeCompare(y.lock));
  for (const l of locks) {
    if (lockFree(l.lock)) continue;
    if (!opts.wait) throw busyError(l.path, l.lock);
    opts.onNote?.(`waiting: ${busyError(l.path, l.lock).message.replace(/; wait for it to end.*$/, '')}`);
  }
  return { locks, wait: opts.wait === true, signal: opts.signal };
}

/**
 * Under the locks: read every file again (another run may have held it
 * until now), check records left by runs that died, and say what the
 * watchdog restores and records.
 */
function armingUnderLocks(specs: FileSwitchSpec[], opts: SwitchOptions, into: CheckedSwitch[]): Arming {
  into.push(...specs.map((spec) => prepareSwitch(spec, opts)));
  const command = opts.command ?? process.argv.join(' ');
  const since = new Date().toISOString();
  const records = into.map((s) => {
    const lock = lockPathFor(s.realPath);
    const note = checkStale(s.path, lock, (restore) => showsBytes(readBytes(s.path), restore));
    if (note) opts.onNote?.(note);
    return { lock, record: { path: s.realPath, pid: process.pid, command, restore: bytesA(s).toString('base64'), since } };
  });
  return { restores: into.map((s) => ({ path: s.path, value: s.valueA, bytes: bytesA(s) })), records };
}

/**
 * The file switches of one interleaved run: each file locked and the
 * watchdog armed before the first write, set per probe process, restored
 * once at the end (then the watchdog is released, which frees the locks).
 */
export class FileSwitches {
  private constructor(
    readonly switches: CheckedSwitch[],
    private readonly dog: Watchdog | null,
  ) {}

  /**
   * Check every file, lock it, read it again under the lock and arm the
   * watchdog with it, write A's value (a file
   * that refuses it was never changed; one that does not then read as it
   * did is written back and refused), then try B and A (a file that
   * refuses either is restored and refused now).
   */
  static async prepare(specs: FileSwitchSpec[], opts: SwitchOptions = {}): Promise<FileSwitches> {
    // every file checked before waiting for any lock, so bad input fails at once
    const checked = specs.map((spec) => prepareSwitch(spec, opts));
    if (checked.length === 0) return new FileSwitches([], null);
    refuseSameFile(checked);
    const locks = lockOrder(checked, opts);
    const switches: CheckedSwitch[] = [];
    const dog = await armWatchdog(() => armingUnderLocks(specs, opts, switches), locks);
    const set = new FileSwitches(switches, dog);
    try {
      set.set('A');
      set.checkARestores();
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

  /**
   * A given A value must leave the file reading exactly as it did (true of
   * sched/features, where writing a feature that is on changes nothing; not
   * of a plain file holding `foo bar` given A = `bar`). Else the original
   * is written back byte for byte and the switch refused.
   */
  private checkARestores(): void {
    for (const s of this.switches) {
      if (!s.givenA) continue;
      const now = readBytes(s.path);
      if (now.equals(s.originalBytes)) continue;
      let back = '';
      try {
        writeBytes(s.path, s.originalBytes, s.original);
      } catch (err) {
        back = `; writing the original back failed too (${(err as Error).message}): restore it by hand`;
      }
      throw new SwitchError(
        `--switch-file-a ${s.path}=${s.valueA}: writing it leaves the file reading '${quoted(now)}', not '${quoted(s.original)}' as at the start, ` +
          `so the original would not be written back at the end${back}; leave --switch-file-a out (A then writes the contents as read)`,
      );
    }
  }

  /** Write every file's value for `side`, each read back. */
  set(side: 'A' | 'B'): void {
    for (const s of this.switches) writeVerified(s.path, side === 'A' ? bytesA(s) : s.valueB);
  }

  /** Write every A value back, then release the watchdog. A file that refuses is left to the watchdog's own try, and the error names it with the command to restore it by hand. */
  async restore(): Promise<void> {
    const failures: string[] = [];
    for (const s of this.switches) {
      try {
        writeVerified(s.path, bytesA(s));
      } catch (err) {
        failures.push(`${(err as Error).message}; restore it by hand: echo '${quoted(s.valueA)}' > ${s.path}`);
      }
    }
    await this.dog?.release(failures.length === 0);
    if (failures.length) throw new SwitchError(failures.join('\n'));
  }
}
