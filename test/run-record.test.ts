/**
 * The one reader of what a run stores beyond its rounds (src/run-record.ts):
 * what the writers store reads back as it was, fields it does not declare
 * are kept, and a damaged record is refused naming the run and the field.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readRunExtra, StoredRecordError, type RunExtra } from '../src/run-record.ts';
import { Store } from '../src/store/store.ts';
import { tempDir } from './helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

const DUET_SIDE: RunExtra = {
  otherCpu: 0,
  processes: 10,
  clock: 'thread-cpu',
  interleave: { side: 'A', order: 'duet', labels: { A: 'A', B: 'B' }, injectSeccomp: { A: null, B: 64 }, clock: 'thread-cpu', files: [], design: 'duet', cpus: [1, 0], swapEvery: 1, blockRounds: 2 },
  stopping: { rule: 'confidence-sequence', alpha: 0.05, precisionPct: 2, reached: true, pairs: 10 },
  invocation: { argv: ['bench', '--label-b', 'B'], cwd: '/home/dev' },
};

test('what a bench, vm and macro run store reads back as it was, with fields the type does not declare kept', () => {
  assert.deepEqual(readRunExtra(JSON.parse(JSON.stringify(DUET_SIDE)), 'run #1'), DUET_SIDE);
  const vm = { otherCpu: null, kernelLabel: 'A', bootIndex: 1, accel: 'tcg', icount: true, order: 'A,B,A', injectWork: 5 };
  assert.deepEqual(readRunExtra(vm, 'run #2'), vm);
  const macro = { seconds: 2, cooldownSeconds: 0, instances: '1', cpuList: null, sets: ['sched'], unavailable: [{ stressor: 'mtx', reason: 'not in stress-ng 0.15.06' }], retired: 'a field an older hintlab wrote' };
  assert.deepEqual(readRunExtra(macro, 'run #3'), macro);
  assert.deepEqual(readRunExtra(undefined, 'run #4'), {}, 'a record without extra reads as empty');
});

test('a damaged record is refused naming the run and the field, and what it holds', () => {
  const cases: [unknown, RegExp][] = [
    [{ clock: 'tsc' }, /^run #7: params\.extra\.clock is "tsc", not one of wall, thread-cpu: the record is damaged or was written by a newer hintlab$/],
    [{ interleave: { ...DUET_SIDE.interleave, seed: '7' } }, /^run #7: params\.extra\.interleave\.seed is "7", not a number/],
    [{ interleave: { ...DUET_SIDE.interleave, cpus: [1] } }, /^run #7: params\.extra\.interleave\.cpus is \[1\], not two CPUs/],
    [{ interleave: { side: 'A', order: 'ABBA' } }, /^run #7: params\.extra\.interleave\.labels is missing/],
    [{ unavailable: [{ stressor: 'mtx' }] }, /^run #7: params\.extra\.unavailable\[0\]\.reason is missing/],
    [{ stopping: { ...DUET_SIDE.stopping, reached: 'yes' } }, /^run #7: params\.extra\.stopping\.reached is "yes", not true or false/],
    [{ invocation: { argv: 'bench', cwd: '/' } }, /^run #7: params\.extra\.invocation\.argv is "bench", not a list/],
    [[1, 2], /^run #7: params\.extra is \[1,2\], not an object/],
  ];
  for (const [stored, message] of cases) {
    assert.throws(() => readRunExtra(stored, 'run #7'), (err: Error) => err instanceof StoredRecordError && message.test(err.message), JSON.stringify(stored));
  }
});

test('the store reads every run through the reader: a damaged run names the database, the run and the field', () => {
  const path = join(dir, 'damaged.db');
  const store = Store.open(path);
  const params = { subjects: ['getppid'], ops: 1000, warmups: 0, rounds: 1, cpu: 0, subjectParams: {}, extra: DUET_SIDE };
  const id = store.createRun({ label: 'A', kind: 'bench', unit: 'ns/call', replicateUnit: 'process', command: 'hintlab bench', hintlabVersion: 'test', params, environment: {} });
  assert.deepEqual(store.getRun(id).params.extra, DUET_SIDE);
  store.close();
  const raw = new Database(path);
  raw.prepare('UPDATE runs SET params_json = ? WHERE id = ?').run(JSON.stringify({ ...params, extra: { ...DUET_SIDE, clock: 'tsc' } }), id);
  raw.close();
  const again = Store.open(path);
  try {
    assert.throws(() => again.getRun(id), (err: Error) => err.message.startsWith(`results database ${path}: run #${id} (A): params.extra.clock is "tsc"`));
  } finally {
    again.close();
  }
});
