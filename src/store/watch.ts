/**
 * The database file under a running command: removed (`rm -rf` of its
 * directory), replaced by another file, or made unwritable (`chattr +i`,
 * a read-only remount) while hintlab holds it open.
 *
 * SQLite notices none of these by itself: a deleted file takes every
 * round with it while each commit succeeds, and an immutable `-shm` file
 * (SQLite's shared memory, mapped with mmap) kills the process with
 * SIGBUS at its next write, with nothing on stderr. So the store checks
 * before and after each statement group: the link count of the file it
 * opened (fstat of a descriptor held from open to close; 0 means deleted),
 * the inode its path names now, and write access to the database and its
 * `-wal` and `-shm` files (access(2), which says EPERM for an immutable
 * file, even to root). A change between a check and SQLite's next write
 * can still fault; the check makes that window one statement long.
 *
 * The descriptor is never closed while SQLite has the file open: closing
 * any descriptor of a file drops every POSIX lock the process holds on it,
 * SQLite's included. That is also why writability is asked with access(2)
 * and not by opening the files.
 */
import { accessSync, closeSync, constants, fstatSync, openSync, statSync } from 'node:fs';

type Gone = 'deleted' | 'replaced' | 'unwritable';

/**
 * The database was removed, replaced or made unwritable under the command:
 * the cause of a StoreError (src/store/store.ts), its message the cause
 * and the fix.
 */
export class DatabaseGone extends Error {
  constructor(
    readonly what: Gone,
    cause: string,
  ) {
    super(`${cause}; ${FIX[what]}`);
  }
}

const FIX: Record<Gone, string> = {
  deleted: 'what was stored in it is gone with it (restore it from a backup); run again with --db on a path nothing removes',
  replaced: 'hintlab stopped rather than write into a file it did not open; check what replaced it, then run again',
  unwritable: 'hintlab stopped before SQLite faulted on its shared memory (SIGBUS); make the files writable again (chattr -i), then run again',
};

let anyTripped = false;

/**
 * True once a watched database was found deleted, replaced or unwritable
 * in this process. The CLI then ends with process.exit: a natural exit
 * lets better-sqlite3 close every open database, and the checkpoint of
 * that close writes SQLite's shared memory, which faults (SIGBUS) when it
 * is immutable.
 */
export function databaseTripped(): boolean {
  return anyTripped;
}

export class DatabaseWatch {
  /** True once a check failed: the database must then be left without a checkpoint. */
  tripped = false;

  private constructor(
    private readonly path: string,
    private readonly fd: number,
    private readonly dev: number,
    private readonly ino: number,
  ) {}

  /** Watch the database at `path`, which SQLite has just opened (none for `:memory:`). */
  static start(path: string): DatabaseWatch | null {
    if (path === ':memory:') return null;
    const fd = openSync(path, constants.O_RDONLY);
    const st = fstatSync(fd);
    return new DatabaseWatch(path, fd, st.dev, st.ino);
  }

  /** Throw DatabaseGone when the file is deleted, replaced or unwritable. */
  check(): void {
    const problem = this.problem();
    if (problem === null) return;
    this.tripped = true;
    anyTripped = true;
    throw new DatabaseGone(...problem);
  }

  private problem(): [Gone, string] | null {
    let st;
    try {
      st = statSync(this.path);
    } catch {
      // no file at the path: deleted (no name left for the file opened) or moved elsewhere
      if (fstatSync(this.fd).nlink === 0) return ['deleted', 'it was deleted (its directory removed?)'];
      return ['replaced', 'it was moved away from its path'];
    }
    if (st.dev !== this.dev || st.ino !== this.ino) return ['replaced', 'it was replaced by another file'];
    for (const [file, mustExist] of [[this.path, true], [`${this.path}-wal`, false], [`${this.path}-shm`, false]] as const) {
      const why = notWritable(file, mustExist);
      if (why) return ['unwritable', `it became unwritable (${file}: ${why})`];
    }
    return null;
  }

  /** Release the descriptor; call after SQLite closed the database. */
  close(): void {
    closeSync(this.fd);
  }
}

/** Why `file` can no longer be written, when that would fault SQLite (EPERM, EROFS); null otherwise. */
function notWritable(file: string, mustExist: boolean): string | null {
  try {
    accessSync(file, constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !mustExist) return null;
    if (code === 'EPERM') return 'operation not permitted: the immutable attribute, chattr +i?';
    if (code === 'EROFS') return 'the file system is now read-only';
    // EACCES (a chmod) does not reach a mapping or a descriptor already open: SQLite's own error, if any, says it
    return null;
  }
}
