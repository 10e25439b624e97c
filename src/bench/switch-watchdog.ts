/**
 * The restore watchdog (./watchdog-entry.mjs), started in its own session
 * before any file is written. With locks it runs under a chain of `flock`
 * commands (./switch-lock.ts), so it holds every switched file's lock from
 * before the first write until after the last restore, even when hintlab
 * itself died.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SwitchError } from './switch-check.ts';
import { busyError, CONFLICT_BASE, lockChain, lockFree, SwitchBusyError, type SwitchRecord } from './switch-lock.ts';

/** The watchdog process: armed with what to restore, released once hintlab restored the files itself. */
export interface Watchdog {
  readonly pid: number;
  /**
   * Close the pipe and wait for the watchdog to exit: with `restored` it
   * exits at once, without it writes every value back itself (a second try).
   */
  release(restored: boolean): Promise<void>;
}

/** A file the watchdog writes back: `value`, or `bytes` exactly when given. */
export interface Restore {
  path: string;
  value: string;
  bytes?: Buffer;
}

/** The locks the watchdog's `flock` chain takes, in this order, before the watchdog starts. */
export interface WatchdogLocks {
  locks: { lock: string; path: string }[];
  /** Wait for a held lock instead of refusing; `signal` ends the wait. */
  wait: boolean;
  signal?: AbortSignal;
}

/** What the watchdog is armed with once it holds the locks: the files to restore and each lock's record. */
export interface Arming {
  restores: Restore[];
  records: { lock: string; record: SwitchRecord }[];
}

const ENTRY = fileURLToPath(new URL('./watchdog-entry.mjs', import.meta.url));
const ARM_TIMEOUT_MS = 10_000;

/**
 * Start a watchdog that restores files if this process dies; resolves once
 * it is armed. With `locking`, it starts only once its `flock` chain holds
 * every lock, and `arming` is called then: what is read inside it (the
 * files' contents) is read under the locks. An error thrown by `arming`
 * ends the watchdog and rejects.
 */
export function armWatchdog(arming: Restore[] | (() => Arming), locking?: WatchdogLocks): Promise<Watchdog> {
  const inner = [process.execPath, ENTRY];
  const argv = locking ? lockChain(locking.locks.map((l) => l.lock), locking.wait, inner) : inner;
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let answered = false;
    // set once the flock chain holds every lock ('ready'): a refusal after that frees them before it is said
    let holding = false;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const stop = (err: Error): void => {
      answered = true;
      clearTimeout(timer);
      locking?.signal?.removeEventListener('abort', onAbort);
      killGroup(child);
      if (!holding || !locking) { reject(err); return; }
      void exited.then(() => untilFree(locking.locks.map((l) => l.lock))).then(() => reject(err));
    };
    const fail = (why: string): void => stop(new SwitchError(`cannot start the restore watchdog: ${why}; no file was written`));
    const onAbort = (): void => stop(new SwitchBusyError('interrupted while waiting for another run to release a switched file; no file was written'));
    // waiting for another run's lock may take its whole run: no time-out then
    const timer = locking?.wait ? undefined : setTimeout(() => fail(`no answer within ${ARM_TIMEOUT_MS / 1000} s`), ARM_TIMEOUT_MS);
    if (locking?.signal?.aborted) { onAbort(); return; }
    locking?.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => fail(argv[0] === 'flock' ? `flock (util-linux) cannot run: ${err.message}` : err.message));
    // a watchdog that dies before it is armed says so at once, not after the time-out
    child.once('exit', (code, signal) => {
      if (answered) return;
      const held = code === null ? undefined : locking?.locks[code - CONFLICT_BASE];
      if (held) { stop(busyError(held.path, held.lock)); return; }
      fail(`it exited (${signal ?? `status ${code}`}) before it was armed`);
    });
    // its death is reported by 'exit'; a write into its closed pipe must not crash hintlab
    child.stdin.on('error', () => {});
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (answered) return;
      if (line === 'ready') {
        holding = true;
        try {
          child.stdin.write(`${initLine(typeof arming === 'function' ? arming() : { restores: arming, records: [] })}\n`);
        } catch (err) {
          stop(err as Error);
        }
        return;
      }
      if (line !== 'armed') { fail(`it said '${line}'`); return; }
      answered = true;
      clearTimeout(timer);
      locking?.signal?.removeEventListener('abort', onAbort);
      lines.close();
      child.stdout.destroy();
      resolve(watchdog(child));
    });
  });
}

function initLine(a: Arming): string {
  return JSON.stringify({
    restores: a.restores.map((r) => ({ path: r.path, value: r.value, ...(r.bytes ? { base64: r.bytes.toString('base64') } : {}) })),
    locks: a.records.map((l) => ({ path: l.lock, record: l.record })),
  });
}

/**
 * Wait (at most about 2 s) until the kernel has dropped the locks of a
 * killed chain: its flock processes die a moment after SIGKILL, and a
 * caller told "refused" may try the same file at once.
 */
async function untilFree(locks: string[]): Promise<void> {
  for (let i = 0; i < 80 && !locks.every((l) => lockFree(l)); i++) await new Promise((r) => setTimeout(r, 25));
}

/** The watchdog runs detached, as its own process group: end the whole chain (flock and node). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
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
