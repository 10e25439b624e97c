/**
 * Every way the results database can fail to open is one line naming the
 * file, the cause and the fix, exit 2; nothing is written before the schema
 * version is checked, and commands that only read never create a database.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../../src/store/schema.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { fillLeaving, mountTmpfs } from '../helpers/tmpfs.ts';

const params = { subjects: ['getppid'], ops: 10, warmups: 0, rounds: 2, cpu: 1, subjectParams: {}, extra: {} };

/** A database holding `runs` complete runs of 50 rounds each, labelled L0, L1, ... */
function seeded(path: string, runs: number): void {
  const s = Store.open(path);
  for (let r = 0; r < runs; r++) {
    const id = s.createRun({ label: `L${r}`, kind: 'bench', unit: 'ns/call', command: 'hintlab bench', hintlabVersion: 't', replicateUnit: 'process', params, environment: { pad: 'x'.repeat(3000) } });
    for (let i = 0; i < 50; i++) s.addRound(id, { seq: i, subject: 'getppid', index: i, replicate: 0, warmup: false, ops: 10, total: 1000, value: 100, unit: 'ns/call', direction: 'lower-is-better' });
    s.finishRun(id, 'complete');
  }
  s.close();
}

/** Exit 2 and exactly one line on stderr, naming the file. */
function assertOneLine(res: { code: number; stdout: string; stderr: string }, file: string, cause: RegExp): void {
  assert.equal(res.code, 2, `exit ${res.code}: ${res.stdout}${res.stderr}`);
  assert.equal(res.stderr.trimEnd().split('\n').length, 1, res.stderr);
  assert.ok(res.stderr.includes(file), res.stderr);
  assert.match(res.stderr, cause);
  assert.doesNotMatch(res.stderr, /internal error/);
}

test('read-only commands on a missing database say there is none and create nothing', async () => {
  const db = join(tempDir(), 'sub', 'none.db');
  for (const argv of [['runs'], ['export', '1'], ['compare', '1', '2'], ['report', '1', '2']]) {
    const res = await runCli([...argv, '--db', db]);
    assertOneLine(res, db, /no results database at .* \(run `hintlab bench` first, or pass --db\)/);
  }
  assert.equal(existsSync(db), false, 'the database was not created');
  assert.equal(existsSync(join(db, '..')), false, 'nor its directory');
});

test('an empty --db or HINTLAB_DB is refused, not taken as a vanishing temporary database', async () => {
  const flag = await runCli(['runs', '--db', '']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /--db is empty: name the results database file/);
  const env = await runCli(['runs'], { env: { ...process.env, HINTLAB_DB: '' } });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /HINTLAB_DB is set but empty/);
  const bench = await runCli(['bench', '--db', '', '--profile', 'getppid']);
  assert.equal(bench.code, 2);
  assert.match(bench.stderr, /--db is empty/);
});

test('a directory, a path under a regular file and a non-SQLite file are each named with the fix', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'adir'));
  writeFileSync(join(dir, 'afile'), 'not a database, just some text that is long enough to have a header\n'.repeat(4));
  assertOneLine(await runCli(['runs', '--db', join(dir, 'adir')]), join(dir, 'adir'), /it is a directory; pass --db with a file path/);
  assertOneLine(await runCli(['bench', '--db', join(dir, 'adir'), '--profile', 'getppid']), join(dir, 'adir'), /it is a directory/);
  assertOneLine(await runCli(['runs', '--db', join(dir, 'afile', 'h.db')]), join(dir, 'afile'), /afile is a file, not a directory/);
  assertOneLine(await runCli(['runs', '--db', join(dir, 'afile')]), join(dir, 'afile'), /it is not a SQLite database/);
});

test('a character device or a FIFO as --db is refused before SQLite opens it: no NAME-journal beside it', { skip: process.getuid?.() !== 0 ? 'mknod needs root' : false }, async () => {
  const dir = tempDir();
  const dev = join(dir, 'null');
  const fifo = join(dir, 'fifo');
  spawnSync('mknod', [dev, 'c', '1', '3']);
  spawnSync('mkfifo', [fifo]);
  for (const cmd of [['runs'], ['bench', '--profile', 'getppid']]) {
    assertOneLine(await runCli([...cmd, '--db', dev]), dev, /: it is a character device, not a regular file; pass --db with a file path/);
    assertOneLine(await runCli([...cmd, '--db', fifo]), fifo, /: it is a FIFO \(named pipe\), not a regular file; pass --db with a file path/);
  }
  assert.deepEqual(readdirSync(dir).sort(), ['fifo', 'null']);
});

test('a truncated or corrupt database is reported as such, not as an internal error', async () => {
  const dir = tempDir();
  const good = join(dir, 'good.db');
  seeded(good, 20);
  const truncated = join(dir, 'truncated.db');
  writeFileSync(truncated, readFileSync(good));
  truncateSync(truncated, 40_000);
  assertOneLine(await runCli(['runs', '--db', truncated]), truncated, /the database is corrupt \(database disk image is malformed\); restore it from a backup/);
  // garbage in the middle: the header and schema read fine, the run pages do not
  const corrupt = join(dir, 'corrupt.db');
  const bytes = readFileSync(good);
  bytes.fill(0x5a, 8192, bytes.length - 4096);
  writeFileSync(corrupt, bytes);
  for (const argv of [['runs'], ['export', 'L3']]) {
    assertOneLine(await runCli([...argv, '--db', corrupt]), corrupt, /corrupt|not a SQLite database/);
  }
});

test('a database from a newer schema is refused before a single byte of it changes', async () => {
  const path = join(tempDir(), 'newer.db');
  const db = new Database(path);
  db.exec('CREATE TABLE future (x)');
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  const before = readFileSync(path);
  for (const argv of [['runs'], ['export', '1'], ['bench', '--profile', 'getppid']]) {
    const res = await runCli([...argv, '--db', path]);
    assertOneLine(res, path, new RegExp(`database schema version ${SCHEMA_VERSION + 1} is newer than this hintlab understands`));
  }
  assert.deepEqual(readFileSync(path), before, 'the file is byte for byte unchanged (no WAL switch)');
});

test('a read-only location and a full disk are told with the file system and the fix', async (t) => {
  const ro = mountTmpfs(256, ['ro']);
  if ('skip' in ro) { t.skip(ro.skip); return; }
  t.after(ro.unmount);
  const inRo = join(ro.dir, 'h.db');
  assertOneLine(await runCli(['bench', '--db', inRo, '--profile', 'getppid']), inRo, new RegExp(`cannot create it: ${ro.dir} \\(tmpfs\\) is mounted read-only; pass --db with a writable path`));
  // an existing database on a file system remounted read-only
  const was = mountTmpfs(512);
  if ('skip' in was) { t.skip(was.skip); return; }
  t.after(was.unmount);
  const existing = join(was.dir, 'h.db');
  const elsewhere = join(tempDir(), 'h.db');
  seeded(elsewhere, 1);
  copyFileSync(elsewhere, existing); // as a closed database is: no -wal or -shm beside it
  const remount = spawnSync('mount', ['-o', 'remount,ro', was.dir], { encoding: 'utf8' });
  assert.equal(remount.status, 0, `remount: ${remount.stderr}`);
  assertOneLine(await runCli(['runs', '--db', existing]), existing, /is mounted read-only, and SQLite writes beside the database even to read it/);
  const full = mountTmpfs(256);
  if ('skip' in full) { t.skip(full.skip); return; }
  t.after(full.unmount);
  fillLeaving(full.dir, 0);
  const inFull = join(full.dir, 'h.db');
  assertOneLine(await runCli(['bench', '--db', inFull, '--profile', 'getppid']), inFull, new RegExp(`the disk is full; free space on ${full.dir} \\(tmpfs\\)`));
});
