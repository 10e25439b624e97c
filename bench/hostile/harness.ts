/**
 * The hostile pass's harness: run the built CLI (bin/hintlab.js, so dist/
 * must be built) in a scratch directory, summarize what happened in one
 * line, and judge each case mechanically.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(ROOT, 'bin', 'hintlab.js');

/** One case: what was done, what a careful tool does, what hintlab did. */
export interface Case {
  action: string;
  expected: string;
  run: (s: Scratch) => Promise<Outcome> | Outcome;
}

export interface Outcome {
  observed: string;
  clean: boolean;
}

/** The scratch directory every case works in, with its own data and temp directories. */
export interface Scratch {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** A database holding runs 'A' (1) and 'B' (2) from real short bench runs. */
  db: string;
}

export function makeScratch(): Omit<Scratch, 'db'> {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-hostile-'));
  // The user's own database is never touched: no $HINTLAB_DB, and the default lives in the scratch directory.
  const { HINTLAB_DB: _ignored, ...inherited } = process.env;
  mkdirSync(join(dir, 'tmp'));
  return { dir, env: { ...inherited, XDG_DATA_HOME: join(dir, 'data'), TMPDIR: join(dir, 'tmp') } };
}

export type Result = SpawnSyncReturns<string>;

/** Run `hintlab ARGS` with plain node in the scratch directory. */
export function hintlab(s: Pick<Scratch, 'dir' | 'env'>, args: string[], timeoutMs = 120_000): Result {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: s.dir, env: s.env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
}

/** "exit N: first line of stderr" (or the signal), short enough for a table cell. */
export function summary(r: Result): string {
  const status = r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? 'timed out' : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  // hintlab's own message first; noise warnings (virtualized, load) only when there is nothing else
  const line = lines.find((l) => l.startsWith('hintlab:')) ?? lines.find((l) => !l.startsWith('warning:'));
  if (line) return `${status}: ${short(line)}`;
  return lines.length ? `${status}, warnings only` : `${status}, no message`;
}

export function short(text: string, max = 110): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

/** An internal error or a stack trace reached the user. */
export const crashed = (r: Result): boolean => /internal error|\n\s+at \S+ \(|^\s+at /m.test(r.stderr) || r.status === 70;

/** Refused as a usage error: exit 2, one `hintlab:` line, no stack trace. */
export function refused(r: Result, mentions?: RegExp): boolean {
  return r.status === 2 && r.stderr.startsWith('hintlab: ') && !crashed(r) && (mentions ? mentions.test(r.stderr) : true);
}

/** What kind of file system node `path` is now: "a FIFO", "a symlink", "missing"... */
export function nodeKind(path: string): string {
  if (!existsSync(path) && !isLink(path)) return 'missing';
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isDirectory()) return 'a directory';
  if (st.isFile()) return 'a regular file';
  return 'another kind of node';
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Run every case, in order, catching harness failures as unclean rows. */
export async function runCases(cases: Case[], s: Scratch): Promise<string[]> {
  const rows = ['| action | expected | observed | clean |', '|---|---|---|---|'];
  for (const c of cases) {
    let out: Outcome;
    try {
      out = await c.run(s);
    } catch (err) {
      out = { observed: `the case itself failed: ${short((err as Error).message)}`, clean: false };
    }
    rows.push(`| ${cell(c.action)} | ${cell(c.expected)} | ${cell(out.observed)} | ${out.clean ? 'yes' : 'no'} |`);
    process.stderr.write(`${out.clean ? 'clean    ' : 'NOT CLEAN'}  ${c.action}\n`);
  }
  return rows;
}

const cell = (t: string): string => t.replace(/\|/g, '\\|').replace(/\n/g, ' ');
