/**
 * `-o FILE` of export and report goes through the one writer: the results
 * database is never overwritten, links and device nodes stay what they are.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { linkSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const params = { subjects: ['getppid'], ops: 10, warmups: 0, rounds: 2, cpu: 1, subjectParams: {}, extra: {} };

function oneRun(db: string): void {
  const s = Store.open(db);
  const id = s.createRun({ label: 'A', kind: 'bench', unit: 'ns/call', command: 'hintlab bench', hintlabVersion: 't', replicateUnit: 'process', params, environment: {} });
  for (let i = 0; i < 3; i++) s.addRound(id, { seq: i, subject: 'getppid', index: i, replicate: 0, warmup: false, ops: 10, total: 1000 + i, value: 100 + i / 10, unit: 'ns/call', direction: 'lower-is-better' });
  s.finishRun(id, 'complete');
  s.close();
}

test('export -o onto the open database, its hard link, a symlink to it or its -wal is refused and the database kept', async () => {
  const dir = tempDir();
  const db = join(dir, 'h.db');
  oneRun(db);
  linkSync(db, join(dir, 'hard.csv'));
  symlinkSync('h.db', join(dir, 'soft.csv'));
  const before = readFileSync(db);
  for (const out of [db, join(dir, 'hard.csv'), join(dir, 'soft.csv'), `${db}-wal`, `${db}-shm`]) {
    const res = await runCli(['export', 'A', '--format', 'csv', '-o', out, '--db', db]);
    assert.equal(res.code, 2, `${out}: ${res.stderr}`);
    assert.match(res.stderr, /^hintlab: refusing to write .*: it is the results database.*; name another output file$/m);
  }
  assert.deepEqual(readFileSync(db), before);
  const list = await runCli(['runs', '--db', db]);
  assert.match(list.stdout, /#1 +A +bench/);
});

test('export -o through a symlink writes its target and keeps the link; -o a directory is refused', async () => {
  const dir = tempDir();
  const db = join(dir, 'h.db');
  oneRun(db);
  writeFileSync(join(dir, 'target.csv'), 'old');
  symlinkSync('target.csv', join(dir, 'latest.csv'));
  const res = await runCli(['export', 'A', '--format', 'csv', '-o', join(dir, 'latest.csv'), '--db', db]);
  assert.equal(res.code, 0, res.stderr);
  assert.ok(lstatSync(join(dir, 'latest.csv')).isSymbolicLink(), 'the link is still a link');
  assert.match(readFileSync(join(dir, 'target.csv'), 'utf8'), /^run_id,seq,subject/);
  const toDir = await runCli(['export', 'A', '-o', dir, '--db', db]);
  assert.equal(toDir.code, 2);
  assert.match(toDir.stderr, /it is a directory; name a file inside it/);
});

test('report -o onto the database it compares from is refused', async () => {
  const dir = tempDir();
  const db = join(dir, 'h.db');
  oneRun(db);
  const s = Store.open(db);
  const id = s.createRun({ label: 'B', kind: 'bench', unit: 'ns/call', command: 'hintlab bench', hintlabVersion: 't', replicateUnit: 'process', params, environment: {} });
  for (let i = 0; i < 3; i++) s.addRound(id, { seq: i, subject: 'getppid', index: i, replicate: 0, warmup: false, ops: 10, total: 900, value: 90 + i / 10, unit: 'ns/call', direction: 'lower-is-better' });
  s.finishRun(id, 'complete');
  s.close();
  const before = readFileSync(db);
  const res = await runCli(['report', 'A', 'B', '--format', 'md', '-o', db, '--db', db]);
  assert.equal(res.code, 2, res.stderr);
  assert.match(res.stderr, /refusing to write .*h\.db: it is the results database/);
  assert.deepEqual(readFileSync(db), before);
});

test('export -o into a FIFO whose reader goes away mid-write (EPIPE) stops quietly with exit 0, as plain stdout into head does', async () => {
  const dir = tempDir();
  const db = join(dir, 'h.db');
  const s = Store.open(db);
  const id = s.createRun({ label: 'A', kind: 'bench', unit: 'ns/call', command: 'hintlab bench', hintlabVersion: 't', replicateUnit: 'process', params, environment: {} });
  // more CSV than a pipe holds (64 KiB), so the write is still going when the reader leaves
  for (let i = 0; i < 5000; i++) s.addRound(id, { seq: i, subject: 'getppid', index: i, replicate: 0, warmup: false, ops: 10, total: 1000 + i, value: 100 + i / 10, unit: 'ns/call', direction: 'lower-is-better' });
  s.finishRun(id, 'complete');
  s.close();
  const fifo = join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const head = spawn('head', ['-c', '1', fifo], { stdio: 'ignore' });
  const res = await runCli(['export', 'A', '--format', 'csv', '-o', fifo, '--db', db]);
  await once(head, 'close');
  assert.deepEqual([res.code, res.stderr], [0, '']);
});
