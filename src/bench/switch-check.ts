/**
 * What a switched file may be, checked before hintlab writes it: a regular
 * file (sysfs, procfs and debugfs attributes are regular files to fstat),
 * opened without blocking, read with a size cap, and, outside the kernel's
 * knobs and the user's own files, only with --force.
 *
 * Invariant: nothing here blocks on a FIFO or a device, and nothing reads
 * more than SWITCH_MAX_BYTES + 1 bytes of any file.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, statfsSync, writeSync, type Stats } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { sep } from 'node:path';

/** A file that cannot be switched or restored; the message names the file and the fix. */
export class SwitchError extends Error {}

/**
 * The largest file a switch reads: a kernel knob is a few bytes (a sysctl)
 * to a page (a sysfs attribute, sched/features); anything larger is not a
 * knob, and its contents are held in memory and written back many times.
 */
export const SWITCH_MAX_BYTES = 64 * 1024;

const MAGIC = { debugfs: 0x64626720, tracefs: 0x74726163 } as const;

/** Text of a file as a message quotes it: control characters escaped, at most 80 characters. */
export function quoted(bytes: Buffer | string): string {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  const t = JSON.stringify(text.trim()).slice(1, -1);
  return t.length > 80 ? `${t.slice(0, 77)}...` : t;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a directory';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function errCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

function refuseKind(path: string, st: Stats): void {
  if (!st.isFile()) {
    throw new SwitchError(`--switch-file ${path}: it is ${kindOf(st)}; hintlab switches only regular files and kernel attributes (sysctl, sysfs, debugfs), which it can read back and restore`);
  }
}

/**
 * Open `path` without blocking (a FIFO or a device would block or act on
 * open) and refuse it unless fstat says it is a regular file. stat() first,
 * so a device is never opened at all; fstat() after, on what was opened.
 */
export function openRegular(path: string, flags: number, doing: string): number {
  let fd: number;
  try {
    refuseKind(path, statSync(path));
    fd = openSync(path, flags | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    if (err instanceof SwitchError) throw err;
    throw new SwitchError(`--switch-file ${path}: cannot ${doing} it (${errCode(err)}); hintlab switches only files it can read back and restore`);
  }
  try {
    refuseKind(path, fstatSync(fd));
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** The whole file as bytes, refused when it holds more than SWITCH_MAX_BYTES. */
export function readBytes(path: string): Buffer {
  const fd = openRegular(path, constants.O_RDONLY, 'read');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(16 * 1024, SWITCH_MAX_BYTES + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > SWITCH_MAX_BYTES) {
        throw new SwitchError(`--switch-file ${path}: it holds more than ${SWITCH_MAX_BYTES / 1024} KiB; a kernel knob is a few bytes to a page, so this is not one (hintlab switches files up to ${SWITCH_MAX_BYTES / 1024} KiB)`);
      }
    }
    return Buffer.concat(chunks);
  } catch (err) {
    if (err instanceof SwitchError) throw err;
    throw new SwitchError(`--switch-file ${path}: cannot read it (${errCode(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** Write `bytes` as the file's whole contents through a checked, non-blocking descriptor (never creating the file). */
export function writeBytes(path: string, bytes: Buffer, shown: string): void {
  const fd = openRegular(path, constants.O_WRONLY | constants.O_TRUNC, `write '${quoted(shown)}' to`);
  try {
    let done = 0;
    // a kernel attribute takes the value in one write; a short write is finished like any file
    do done += writeSync(fd, bytes, done, bytes.length - done);
    while (done < bytes.length);
  } catch (err) {
    throw new SwitchError(`--switch-file ${path}: cannot write '${quoted(shown)}' (${errCode(err)})`);
  } finally {
    closeSync(fd);
  }
}

/** Where a file lives, for the --force rule: a kernel knob, the user's own file, or anything else. */
export type SwitchPlace = 'kernel' | 'own' | 'other';

function under(path: string, dir: string): boolean {
  return dir !== '' && (path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`));
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * A kernel knob: under /proc/sys or /sys, or on a debugfs or tracefs mount
 * wherever it is mounted. The user's own file: owned by the effective user;
 * for root, who owns every system file, only under $HOME or the temporary
 * directories.
 */
export function placeOf(realPath: string, st: Stats, env: NodeJS.ProcessEnv = process.env): SwitchPlace {
  if (under(realPath, '/proc/sys') || under(realPath, '/sys')) return 'kernel';
  try {
    const type = statfsSync(realPath).type;
    if (type === MAGIC.debugfs || type === MAGIC.tracefs) return 'kernel';
  } catch {
    // not a mount we can ask about: judged by owner below
  }
  const uid = process.geteuid?.() ?? -1;
  if (st.uid !== uid) return 'other';
  if (uid !== 0) return 'own';
  const scratch = [env.HOME ?? homedir(), tmpdir(), '/tmp', '/var/tmp'].map(realOr);
  return scratch.some((d) => d !== '/' && under(realPath, d)) ? 'own' : 'other';
}

/** Refuse a file outside the kernel's knobs and the user's own files unless `force`. */
export function checkPlace(path: string, realPath: string, force: boolean): void {
  if (force) return;
  const place = placeOf(realPath, statSync(realPath));
  if (place !== 'other') return;
  throw new SwitchError(
    `--switch-file ${path}${realPath !== path ? ` (${realPath})` : ''}: not a kernel knob (/proc/sys, /sys, debugfs) nor a file of your own; ` +
      'such a file is usually configuration or data other programs read while hintlab rewrites it before every probe process; pass --force if that is what you mean',
  );
}
