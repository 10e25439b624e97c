/**
 * The database removed, replaced or made immutable under a running command:
 * the next write stops with a message naming the file and what happened,
 * instead of committing into a deleted file or faulting (SIGBUS) on
 * SQLite's shared memory.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Store, StoreError } from '../../src/store/store.ts';
import { tempDir } from '../helpers/cli.ts';

const params = { subjects: ['getppid'], ops: 10, warmups: 0, rounds: 2, cpu: 1, subjectParams: {}, extra: {} };
const newRun = { label: 'A', kind: 'bench' as const, unit: 'ns/call' as const, replicateUnit: 'process' as const, command: 'hintlab bench', hintlabVersion: 't', params, environment: { a: 1 } };
const round = (seq: number) => ({ seq, subject: 'getppid', index: seq, replicate: 0, warmup: false, ops: 10, total: 1000, value: 100, unit: 'ns/call' as const, direction: 'lower-is-better' as const });

/** A store with run #1 holding one round. */
function started(dir: string): { store: Store; path: string } {
  const path = join(dir, 'r.db');
  const store = Store.open(path);
  store.addRound(store.createRun(newRun), round(0));
  return { store, path };
}

function refusal(fn: () => void): StoreError {
  let caught: unknown = null;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError, got ${String(caught)}`);
  return caught;
}

test('the database directory removed mid-run: the next round stops naming the deletion, the round and the run', () => {
  const dir = tempDir();
  const { store, path } = started(dir);
  rmSync(dir, { recursive: true, force: true });
  const err = refusal(() => store.addRound(1, round(1)));
  assert.equal(err.message, `results database ${path}: it was deleted (its directory removed?); what was stored in it is gone with it (restore it from a backup); run again with --db on a path nothing removes (while storing round 2 of run #1)`);
  assert.equal(err.exitCode, 1);
  store.close();
});

test('the database replaced by another file mid-run: nothing is written into the file hintlab did not open', () => {
  const dir = tempDir();
  const { store, path } = started(dir);
  writeFileSync(join(dir, 'other'), 'x');
  renameSync(join(dir, 'other'), path);
  assert.match(refusal(() => store.finishRun(1, 'complete')).message, /: it was replaced by another file; hintlab stopped rather than write into a file it did not open/);
  store.close();
});

test('chattr +i on the database and its -wal and -shm mid-run: a message, not SIGBUS', { skip: process.getuid?.() !== 0 ? 'chattr needs root' : false }, (t) => {
  const dir = tempDir();
  const { store, path } = started(dir);
  const files = [path, `${path}-wal`, `${path}-shm`];
  const set = spawnSync('chattr', ['+i', ...files]);
  if (set.status !== 0) { t.skip(`chattr +i is not supported here: ${set.stderr.toString()}`); return; }
  try {
    const err = refusal(() => store.addRound(1, round(1)));
    assert.match(err.message, new RegExp(`^results database ${path}: it became unwritable \\(${path}: operation not permitted: the immutable attribute, chattr \\+i\\?\\); hintlab stopped before SQLite faulted`));
    assert.match(err.message, /\(while storing round 2 of run #1\)$/);
    // the run's end cannot be stored either, and closing does not checkpoint into the immutable files
    assert.throws(() => store.finishRun(1, 'failed'), /it became unwritable/);
    store.close();
  } finally {
    spawnSync('chattr', ['-i', ...files]);
  }
});
