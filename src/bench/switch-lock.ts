/**
 * One switch per file at a time. Each switched file has a lock file (named
 * by a hash of the file's real path) in a directory shared by every hintlab
 * of this user: /run/hintlab/switch for root (cleared at boot, as sysctls
 * are), /tmp/hintlab-switch-UID otherwise. The lock is a flock(2) held by
 * the restore watchdog's process chain (`flock LOCK ... node watchdog`), so
 * the kernel drops it when the last holder dies: a dead holder never
 * blocks, and there is no pid file to take over by guesswork.
 *
 * The lock file is also the restore record: while held it says who holds it
 * (pid, command) and what the file gets back; a clean end empties it. A
 * record left in a free lock means hintlab and its watchdog both died: the
 * next run proceeds only if the file holds the recorded value again.
 *
 * Invariant: locks are always taken in the same (sorted) order, so two
 * runs waiting on overlapping files cannot deadlock.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { quoted, SwitchError } from './switch-check.ts';

/** Another run holds the lock of a file (exit 1: not a usage error; `--wait` waits instead). */
export class SwitchBusyError extends SwitchError {}

/** What a lock file holds while its switch runs. */
export interface SwitchRecord {
  path: string;
  /** hintlab's pid and command line. */
  pid: number;
  command: string;
  /** The bytes the file gets back, base64. */
  restore: string;
  since: string;
  /** The watchdog's pid, written by the watchdog itself. */
  watchdog?: number;
}

/** The flock exit status for a lock already held: the i-th lock of a chain exits CONFLICT_BASE + i. */
export const CONFLICT_BASE = 75;

export function lockDir(): string {
  const uid = process.geteuid?.() ?? 0;
  const dir = uid === 0 ? '/run/hintlab/switch' : `/tmp/hintlab-switch-${uid}`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (st.uid !== uid) throw new SwitchError(`the switch lock directory ${dir} belongs to uid ${st.uid}, not to you; remove it`);
  if (uid !== 0) chmodSync(dir, 0o700);
  return dir;
}

export function lockPathFor(realPath: string, dir: string = lockDir()): string {
  return join(dir, `${createHash('sha256').update(realPath).digest('hex').slice(0, 16)}.lock`);
}

/** The record in a lock file; null when empty, missing or not one. */
export function readRecord(lock: string): SwitchRecord | null {
  try {
    const text = readFileSync(lock, 'utf8').trim();
    if (text === '') return null;
    const r = JSON.parse(text) as SwitchRecord;
    return typeof r.pid === 'number' && typeof r.restore === 'string' ? r : null;
  } catch {
    return null;
  }
}

/** Whether the lock is free now (a non-blocking flock that is given up at once). */
export function lockFree(lock: string): boolean {
  // only flock's conflict status means held; anything else (a signal, another failure) is asked again
  let last = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const r = spawnSync('flock', ['-n', '-E', String(CONFLICT_BASE), lock, 'true'], { stdio: 'ignore' });
    if (r.error) throw new SwitchError(`cannot run flock (util-linux), which holds the switch locks: ${r.error.message}`);
    if (r.status === 0) return true;
    if (r.status === CONFLICT_BASE) return false;
    last = r.signal ? `signal ${r.signal}` : `status ${r.status}`;
  }
  throw new SwitchError(`flock on ${lock} failed three times (${last}); check the lock directory`);
}

/** "hintlab pid N (COMMAND), since T", or what is known of the holder. */
export function holderOf(lock: string): string {
  const r = readRecord(lock);
  if (!r) return 'another hintlab (it has not written its record yet)';
  return `hintlab pid ${r.pid}${r.watchdog ? ` (its watchdog: pid ${r.watchdog})` : ''}, command: ${r.command}, since ${r.since}`;
}

export function busyError(path: string, lock: string): SwitchBusyError {
  return new SwitchBusyError(`--switch-file ${path}: another run is switching this file: ${holderOf(lock)}; wait for it to end, or pass --wait to start when it does (lock ${lock})`);
}

/**
 * The argv that runs `inner` holding every lock: nested `flock` commands in
 * the order given; with `wait` false, a lock already held ends the chain
 * with CONFLICT_BASE + its index before `inner` starts.
 */
export function lockChain(locks: string[], wait: boolean, inner: string[]): string[] {
  const argv = locks.flatMap((lock, i) => ['flock', ...(wait ? [] : ['-n']), '-E', String(CONFLICT_BASE + i), lock]);
  return [...argv, ...inner];
}

/**
 * A record left in a free lock (its run and watchdog both died): fine when
 * the file reads as its recorded value again (`holds`), else refused with
 * what to do. Returns a note for the user, or null when there was no record.
 */
export function checkStale(path: string, lock: string, holds: (restore: Buffer) => boolean): string | null {
  const r = readRecord(lock);
  if (!r) return null;
  const restore = Buffer.from(r.restore, 'base64');
  if (holds(restore)) return `--switch-file ${path}: hintlab pid ${r.pid} (${r.command}) ended without releasing this file; it holds its recorded value '${quoted(restore)}' again, so this run takes the lock over`;
  throw new SwitchError(
    `--switch-file ${path}: hintlab pid ${r.pid} (${r.command}, since ${r.since}) switched this file and died without restoring it (its watchdog too); ` +
      `its value before that run was '${quoted(restore)}'. Write that back, or, to keep what the file holds now, empty the record with ': > ${lock}'; then run again`,
  );
}
