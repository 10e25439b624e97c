/**
 * Trials in the store (schema 5): each step's key, state, result and wall
 * time read back at once; a later trial finds a finished result by step
 * and key (never a failed one, never another step's); a trial or step left
 * running by a process that died reads as interrupted.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('a trial keeps every step with its key, state, result and seconds, in step order', () => {
  const store = Store.open(join(dir, 'a.db'));
  try {
    const id = store.trials.create({ outDir: '/out', request: { patches: ['p.diff'] }, command: 'hintlab trial --src x --patch p.diff' });
    store.trials.stepStarted(id, 'build-A', 0);
    store.trials.stepFinished(id, 'build-A', { key: 'k-a', state: 'reused', result: { dir: '/out/A' }, seconds: 3.5, error: null });
    store.trials.stepStarted(id, 'build-B', 1);
    store.trials.stepFinished(id, 'build-B', { key: null, state: 'failed', result: undefined, seconds: 1.25, error: 'patch does not apply' });
    store.trials.finish(id, 'failed', 'build B: patch does not apply');
    const t = store.trials.get(id)!;
    assert.deepEqual([t.status, t.live, t.error, t.outDir, t.request], ['failed', false, 'build B: patch does not apply', '/out', { patches: ['p.diff'] }]);
    assert.deepEqual(
      t.steps.map((s) => [s.name, s.index, s.key, s.state, s.result, s.seconds, s.error]),
      [
        ['build-A', 0, 'k-a', 'reused', { dir: '/out/A' }, 3.5, null],
        ['build-B', 1, null, 'failed', null, 1.25, 'patch does not apply'],
      ],
    );
    assert.equal(store.trials.list().length, 1);
  } finally {
    store.close();
  }
});

test('a result is found by step and key, the newest made first (a reuse\'s seconds are not what it took); failed, interrupted and other steps\' results are not', () => {
  const store = Store.open(join(dir, 'b.db'));
  try {
    const one = store.trials.create({ outDir: '/o', request: {}, command: 'c' });
    store.trials.stepStarted(one, 'codegen', 2);
    store.trials.stepFinished(one, 'codegen', { key: 'K', state: 'done', result: { n: 1 }, seconds: 2, error: null });
    const two = store.trials.create({ outDir: '/o', request: {}, command: 'c' });
    store.trials.stepStarted(two, 'codegen', 2);
    store.trials.stepFinished(two, 'codegen', { key: 'K', state: 'reused', result: { n: 2 }, seconds: 0.1, error: null });
    store.trials.stepStarted(two, 'vm', 4);
    store.trials.stepFinished(two, 'vm', { key: 'V', state: 'failed', result: { partial: true }, seconds: 9, error: 'boot failed' });
    assert.deepEqual(store.trials.findResult('codegen', 'K'), { trialId: one, result: { n: 1 }, seconds: 2 }, 'the trial that made it, not the one that reused it');
    const three = store.trials.create({ outDir: '/o', request: {}, command: 'c' });
    store.trials.stepStarted(three, 'codegen', 2);
    store.trials.stepFinished(three, 'codegen', { key: 'K', state: 'done', result: { n: 3 }, seconds: 1.5, error: null });
    assert.deepEqual(store.trials.findResult('codegen', 'K'), { trialId: three, result: { n: 3 }, seconds: 1.5 });
    assert.equal(store.trials.findResult('codegen', 'other'), null);
    assert.equal(store.trials.findResult('behave', 'K'), null);
    assert.equal(store.trials.findResult('vm', 'V'), null, 'a failed step is never reused');
  } finally {
    store.close();
  }
});

test('a trial and its step left running by a process that died read back as interrupted', () => {
  const path = join(dir, 'c.db');
  const store = Store.open(path);
  const id = store.trials.create({ outDir: '/o', request: {}, command: 'c' });
  store.trials.stepStarted(id, 'build-A', 0);
  store.close();
  const raw = new Database(path);
  // pid 2^22 + 1 is above the kernel's pid_max limit: no such process
  const owner = raw.prepare('SELECT owner FROM trials WHERE id = ?').pluck().get(id) as string;
  raw.prepare('UPDATE trials SET owner = ? WHERE id = ?').run(owner.replace(/:\d+$/, ':4194305'), id);
  raw.close();
  const again = Store.open(path);
  try {
    const t = again.trials.get(id)!;
    assert.deepEqual([t.status, t.live, t.steps[0]!.state], ['interrupted', false, 'interrupted']);
  } finally {
    again.close();
  }
});

test('a trial whose stored request is not JSON is refused naming the database, the trial and the column, as a damaged session is', () => {
  const path = join(dir, 'd.db');
  const store = Store.open(path);
  const id = store.trials.create({ outDir: '/o', request: {}, command: 'c' });
  store.close();
  const raw = new Database(path);
  raw.prepare('UPDATE trials SET request_json = ? WHERE id = ?').run('{"patches": [', id);
  raw.close();
  const again = Store.open(path);
  try {
    assert.throws(() => again.trials.get(id), (err: Error) => {
      assert.match(err.message, new RegExp(`^results database ${path}: trial #${id} is damaged: its request_json is not JSON \\(.*\\); run the trial again \\(hintlab trial \\.\\.\\.\\), or restore the database from a backup$`));
      return true;
    });
  } finally {
    again.close();
  }
});
