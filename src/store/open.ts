/**
 * Opening the results database, with every way it can fail told as one line
 * naming the file, the cause and the fix (exit 2), never as a stack trace.
 *
 * Order matters: the schema version is read before anything is written
 * (switching to WAL rewrites header bytes), so a database from a newer
 * hintlab is refused untouched; a command that only reads never creates a
 * database.
 */
import type Database from 'better-sqlite3';
import { accessSync, constants, mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../errors.ts';
import { describeFilesystem } from './filesystem.ts';
import { migrate, SCHEMA_VERSION } from './schema.ts';
import { sqlite } from './sqlite.ts';
import { DatabaseGone } from './watch.ts';

export interface OpenOptions {
  /** Create the database (and its directory) when missing; false for commands that only read. */
  create: boolean;
}

/** SQLite's result codes and errno values that mean "no space left". */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

/** The cause and the fix for a failed open or write of the database at `path`. */
export function describeStoreFailure(path: string, err: unknown): string {
  const code = (err as { code?: string }).code ?? '';
  const message = (err as Error).message;
  if (err instanceof DatabaseGone) return err.message;
  if (isDiskFull(err)) return `the disk is full; free space on ${describeFilesystem(path)}`;
  if (code === 'SQLITE_NOTADB') return 'it is not a SQLite database; pass --db with a hintlab results database, or move this file away';
  if (code.startsWith('SQLITE_CORRUPT')) return `the database is corrupt (${message}); restore it from a backup, or pass --db with another file`;
  if ((code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY')) && dirErrno(path) === 'EROFS') {
    return `${describeFilesystem(path)} is mounted read-only, and SQLite writes beside the database even to read it (its -shm file); copy it to a writable place and pass --db`;
  }
  if (code === 'EROFS') return `${describeFilesystem(path)} is mounted read-only; pass --db with a writable path, or set HINTLAB_DB`;
  if (code.startsWith('SQLITE_READONLY') || code === 'EACCES' || code === 'EPERM') {
    return 'the file or its directory is not writable (read-only file system or permissions); pass --db with a writable path, or set HINTLAB_DB';
  }
  if (code.startsWith('SQLITE_CANTOPEN')) return 'it cannot be opened (missing or unwritable directory); pass --db with a writable path, or set HINTLAB_DB';
  if (code.startsWith('SQLITE_IOERR')) return `an I/O error (${message}); check the device of ${describeFilesystem(path)}`;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'another process holds it locked; wait for it to finish, or pass --db with another file';
  return `${message}; pass --db with another file, or set HINTLAB_DB`;
}

/** Why the database's directory is not writable, or null when it is. */
function dirErrno(path: string): string | null {
  try {
    accessSync(dirname(path), constants.W_OK);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'unknown';
  }
}

function refuse(path: string, cause: string): UserError {
  return new UserError(`results database ${path}: ${cause}`, 2);
}

/** The first ancestor of `path` that exists and is not a directory, if any. */
function fileInTheWay(path: string): string | null {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      if (!statSync(dir).isDirectory()) return dir;
    } catch {
      // missing: keep looking further up
    }
  }
  return null;
}

/** Check the path itself before SQLite sees it; create the directory when asked to. */
function checkPath(path: string, opts: OpenOptions): void {
  let st: Stats | null = null;
  try {
    st = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const blocker = code === 'ENOTDIR' ? fileInTheWay(path) : null;
    if (blocker) throw refuse(path, `${blocker} is a file, not a directory; pass --db with a path inside a directory`);
    if (code !== 'ENOENT') throw refuse(path, describeStoreFailure(path, err));
    if (!opts.create) throw new UserError(`no results database at ${path} (run \`hintlab bench\` first, or pass --db)`, 2);
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (mkErr) {
      throw refuse(path, `cannot create its directory: ${describeStoreFailure(path, mkErr)}`);
    }
    try {
      accessSync(dirname(path), constants.W_OK);
    } catch (accessErr) {
      throw refuse(path, `cannot create it: ${describeStoreFailure(path, accessErr)}`);
    }
  }
  if (st?.isDirectory()) throw refuse(path, `it is a directory; pass --db with a file path, e.g. --db ${path.replace(/\/+$/, '')}/hintlab.db`);
  // SQLite would open a device or a FIFO, fail with an I/O error and leave a NAME-journal beside it
  if (st && !st.isFile()) throw refuse(path, `it is ${nodeKind(st)}, not a regular file; pass --db with a file path, e.g. --db results.db`);
}

/** What kind of file system node a non-regular file is, for messages. */
function nodeKind(st: Stats): string {
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  return 'a node of another kind';
}

/** How long an open keeps trying while other processes open the same file (a new database made by several at once). */
const OPEN_BUSY_MS = 10_000;

/** Sleep without yielding: opening is synchronous all the way up (better-sqlite3). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Open the database at `path` (or `:memory:`), checked, migrated and in WAL
 * mode. Several processes opening one new file at once can meet SQLite's
 * SQLITE_BUSY where its busy handler is not called (the switch of a fresh
 * file to WAL, a lock SQLite refuses to wait for to avoid a deadlock): the
 * whole open is tried again, with a random pause, for up to OPEN_BUSY_MS.
 */
export function openDatabase(path: string, opts: OpenOptions): Database.Database {
  if (path !== ':memory:') checkPath(path, opts);
  const deadline = Date.now() + OPEN_BUSY_MS;
  for (;;) {
    try {
      return openOnce(path, opts);
    } catch (err) {
      if (!(err instanceof BusyOpen) || Date.now() >= deadline) throw err instanceof BusyOpen ? err.refusal : err;
      sleepSync(10 + Math.random() * 90);
    }
  }
}

/** An open that met SQLITE_BUSY: tried again until the deadline, then `refusal` is what the user reads. */
class BusyOpen extends Error {
  constructor(readonly refusal: UserError) {
    super(refusal.message);
  }
}

function openOnce(path: string, opts: OpenOptions): Database.Database {
  let db: Database.Database;
  try {
    db = new (sqlite())(path, { fileMustExist: !opts.create });
  } catch (err) {
    throw refuse(path, describeStoreFailure(path, err));
  }
  try {
    // first: every later step (the reads, the switch to WAL, the migrations) may meet another
    // process opening the same new file, and waits for it instead of failing at once
    db.pragma('busy_timeout = 5000');
    // reads only: a newer database is refused before any byte of it changes
    const version = db.pragma('user_version', { simple: true }) as number;
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    if (version > SCHEMA_VERSION) {
      throw new UserError(
        `${path}: database schema version ${version} is newer than this hintlab understands (${SCHEMA_VERSION}). ` +
          'Upgrade hintlab, or pass --db with another file.',
        2,
      );
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db, path);
  } catch (err) {
    db.close();
    if (err instanceof UserError) throw err;
    const refusal = refuse(path, describeStoreFailure(path, err));
    throw (err as { code?: unknown }).code === 'SQLITE_BUSY' ? new BusyOpen(refusal) : refusal;
  }
  return db;
}
