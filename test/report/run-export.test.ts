import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCsv, runJson } from '../../src/report/run-export.ts';
import { runTable } from '../../src/report/run-table.ts';
import { makeRun } from '../compare/fixtures.ts';

test('export shows each round\'s unit of replication in csv and json', () => {
  const run = makeRun({ id: 7, values: { getppid: [100, 101, 102, 103] }, units: 2 });
  const csv = runCsv(run).trim().split('\n');
  assert.equal(csv[0], 'run_id,seq,subject,round,replicate,warmup,ops,elapsed_ns,ns_per_call,recorded_at');
  assert.deepEqual(csv.slice(1).map((l) => l.split(',')[4]), ['0', '0', '1', '1']);
  const doc = JSON.parse(runJson(run)) as { version: number; run: { replicateUnit: unknown }; rounds: { replicate: number | null }[] };
  assert.equal(doc.version, 2);
  assert.deepEqual(doc.run.replicateUnit, { known: true, value: 'process' });
  assert.deepEqual(doc.rounds.map((r) => r.replicate), [0, 0, 1, 1]);
});

test('a run recorded before units were stored exports an empty replicate, not a made-up 0', () => {
  const run = { ...makeRun({ id: 3, values: { getppid: [100, 101] } }), replicateUnit: { known: false as const, reason: 'schema 1' } };
  assert.deepEqual(runCsv(run).trim().split('\n').slice(1).map((l) => l.split(',')[4]), ['', '']);
  const doc = JSON.parse(runJson(run)) as { rounds: { replicate: number | null }[] };
  assert.deepEqual(doc.rounds.map((r) => r.replicate), [null, null]);
});

test('a run\'s table and its JSON name the clock its rounds were timed on, old runs\' too', () => {
  const old = makeRun({ id: 7, values: { getppid: [100, 101] }, design: 'separate' });
  const cpu = { ...old, params: { ...old.params, extra: { clock: 'thread-cpu' as const } } };
  assert.deepEqual((JSON.parse(runJson(old)) as { clock: unknown }).clock, { known: true, value: 'wall' });
  assert.deepEqual((JSON.parse(runJson(cpu)) as { clock: unknown }).clock, { known: true, value: 'thread-cpu' });
  assert.match(runTable(cpu).split('\n')[0]!, /^subject +mean ns\/call \(thread CPU clock\) +median/);
  assert.match(runTable(old).split('\n')[0]!, /^subject +mean ns\/call \(wall clock\) +median/);
});
