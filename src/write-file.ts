/**
 * The one writer for files a user names (`-o FILE`, `hints --apply`).
 *
 * What the path is decides how it is written, so nothing the user did not
 * name is replaced:
 *   - a regular file or a new path: atomically (a temporary file in the same
 *     directory, created exclusively under a random name, see
 *     `writeAtomically`, renamed over it), keeping an existing file's mode;
 *   - a symlink: followed; its final target is written as above, the link
 *     stays a link;
 *   - a FIFO, a character or block device: written through with a plain
 *     write (`-o /dev/null` means what it says), the node is never replaced;
 *   - an open file of the process (`/dev/stdout`, `/dev/fd/N`): appended
 *     to through that name, whatever the shell connected it to;
 *   - a directory or a socket: refused.
 * Files the caller protects (the open results database and its -wal/-shm)
 * are refused by device and inode, so a hard link or a symlink to them is
 * caught too, and by canonical path when they do not exist yet.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, lstatSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, type Stats, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { OutputClosed, UserError } from './errors.ts';

/** A file that must not be overwritten, and what it is (for the message). */
export interface ProtectedFile {
  path: string;
  what: string;
}

export interface WriteOptions {
  /** Refuse to write onto any of these (compared by device and inode). */
  protect?: readonly ProtectedFile[];
  /** The name the user gave, for messages (default: `path`). */
  shownAs?: string;
}

/**
 * Follow symlinks to the final path (which may not exist yet); Linux's own
 * limit of 40 hops. A link inside /proc (`/dev/stdout` is one, to
 * /proc/self/fd/1) is an open file of the process, not a path: null says
 * "write through the name as given".
 */
export function followLinks(path: string, shownAs: string = path): string | null {
  let at = resolve(path);
  for (let hops = 0; hops <= 40; hops++) {
    let st: Stats;
    try {
      st = lstatSync(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return at;
      throw cannotWrite(shownAs, err);
    }
    if (!st.isSymbolicLink()) return at;
    if (canonicalPath(at).startsWith('/proc/')) return null;
    at = resolve(dirname(at), readlinkSync(at));
  }
  throw new UserError(`cannot write ${shownAs}: too many levels of symbolic links; point it at a file`, 2);
}

/** Write `data` to `path` as the module comment describes. */
export function writeFileSafely(path: string, data: string | Uint8Array, opts: WriteOptions = {}): void {
  const shown = opts.shownAs ?? path;
  const target = followLinks(path, shown);
  refuseProtected(target ?? path, shown, opts.protect ?? []);
  if (target === null) { writeThrough(path, data, shown); return; }
  const st = statOrNull(target, shown);
  if (st?.isDirectory()) throw new UserError(`cannot write ${shown}: it is a directory; name a file inside it, e.g. ${join(shown, 'out.txt')}`, 2);
  if (st?.isSocket()) throw new UserError(`cannot write ${shown}: it is a socket; name a regular file, a FIFO or a device`, 2);
  try {
    if (st && !st.isFile()) {
      // FIFO, character or block device: the node stays, the data goes through it
      writeFileSync(target, data);
      return;
    }
    writeAtomically(target, data, st ? st.mode & 0o7777 : undefined);
  } catch (err) {
    throw cannotWrite(shown, err);
  }
}

/**
 * An open file of the process (the shell's `>`, `>>`, a pipe or a terminal):
 * appended to, so `>>` keeps what was there and `>` (already emptied by the
 * shell) gets exactly the text.
 */
function writeThrough(path: string, data: string | Uint8Array, shown: string): void {
  try {
    writeFileSync(path, data, { flag: 'a' });
  } catch (err) {
    throw cannotWrite(shown, err);
  }
}

/**
 * Put `data` at `target` through a new file beside it: created exclusively
 * (O_CREAT|O_EXCL|O_NOFOLLOW) under a random name with mode 0600, so
 * nothing planted in the directory (a symlink, a file of another user) is
 * ever opened or followed; given `mode` (default: a new file's, 0666 less
 * the umask) only once written, then renamed over `target` (a rename
 * replaces a link at `target` itself, never its target).
 */
export function writeAtomically(target: string, data: string | Uint8Array, mode?: number): void {
  const { fd, path: tmp } = createExclusive(dirname(target), `.${basename(target)}`);
  try {
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- reading the umask takes the no-argument call; no worker thread creates files meanwhile
      fchmodSync(fd, mode ?? 0o666 & ~process.umask());
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * A new, empty file in `dir` named `<prefix>.<random>.tmp`, opened for
 * writing with O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600: it is this
 * process's own file whatever else the directory holds.
 */
export function createExclusive(dir: string, prefix: string): { fd: number; path: string } {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  for (let attempt = 0; ; attempt++) {
    const path = join(dir, `${prefix}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      return { fd: openSync(path, flags, 0o600), path };
    } catch (err) {
      // a name taken already (by chance or planted): draw another
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 16) throw err;
    }
  }
}

function refuseProtected(target: string, shown: string, protect: readonly ProtectedFile[]): void {
  const st = statOrNull(target, shown);
  const canonical = canonicalPath(target);
  for (const p of protect) {
    const other = statQuiet(p.path);
    const same = st && other ? st.dev === other.dev && st.ino === other.ino : canonical === canonicalPath(resolve(p.path));
    if (same) {
      throw new UserError(`refusing to write ${shown}: it is ${p.what} (${p.path}); name another output file`, 2);
    }
  }
}

/** The path with its directory's symlinks resolved (the file itself may not exist). */
function canonicalPath(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

function statQuiet(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function statOrNull(path: string, shown: string): Stats | null {
  try {
    return statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cannotWrite(shown, err);
  }
}

function cannotWrite(shown: string, err: unknown): UserError {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EPIPE') return new OutputClosed(shown);
  const why: Record<string, string> = {
    ENOENT: 'its directory does not exist; create it first',
    ENOTDIR: 'a part of the path is a file, not a directory; fix the path',
    EACCES: 'permission denied; choose a writable location',
    EPERM: 'operation not permitted; choose a writable location',
    EROFS: 'the file system is read-only; choose a writable location',
    ENOSPC: 'no space left on the device; free space or write elsewhere',
    EISDIR: 'it is a directory; name a file inside it',
  };
  // a path that cannot hold the file is a wrong -o (exit 2); a full disk or an I/O error is a failure (exit 1)
  const wrongPath = ['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'EROFS'].includes(e.code ?? '');
  return new UserError(`cannot write ${shown}: ${(e.code && why[e.code]) ?? e.message}`, wrongPath ? 2 : 1);
}
