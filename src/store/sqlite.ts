/**
 * better-sqlite3, loaded on first use: its native addon costs every command's
 * start-up, and `hintlab --version` or `--help` never opens a database.
 */
import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';

let loaded: typeof Database | undefined;

/** The better-sqlite3 constructor (a CommonJS module, hence require). */
export function sqlite(): typeof Database {
  loaded ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return loaded;
}

/** True for an error SQLite raised; false without loading the addon when nothing opened a database. */
export function isSqliteError(err: unknown): err is Database.SqliteError {
  return loaded !== undefined && err instanceof loaded.SqliteError;
}
