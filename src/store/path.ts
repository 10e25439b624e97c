import { homedir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import type { ProtectedFile } from '../write-file.ts';

/**
 * Where results live unless told otherwise: `--db`, then `$HINTLAB_DB`, then
 * `$XDG_DATA_HOME/hintlab/hintlab.db`, then `~/.local/share/hintlab/hintlab.db`.
 * An empty `--db` or `HINTLAB_DB` is refused: SQLite would take it for a
 * temporary database that vanishes when the command ends.
 */
export function dbPathFrom(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new UserError("--db is empty: name the results database file, e.g. --db results.db", 2);
    return flag;
  }
  return defaultDbPath(env);
}

/** The default database path (see dbPathFrom). */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HINTLAB_DB !== undefined) {
    if (env.HINTLAB_DB.trim() === '') {
      throw new UserError('HINTLAB_DB is set but empty: set it to the results database file, or unset it to use the default', 2);
    }
    return env.HINTLAB_DB;
  }
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(base, 'hintlab', 'hintlab.db');
}

/** The database file and the files SQLite keeps beside it: no output may be written onto any of them. */
export function databaseFiles(path: string): ProtectedFile[] {
  return [
    { path, what: 'the results database' },
    { path: `${path}-wal`, what: "the results database's write-ahead log" },
    { path: `${path}-shm`, what: "the results database's shared-memory index" },
    { path: `${path}-journal`, what: "the results database's journal" },
  ];
}
