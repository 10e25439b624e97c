/**
 * A label that names several runs: compare and report take the newest and
 * say which runs the label names, take the newest pair of one A/B
 * invocation, and refuse to mix a pair with a later run of one label.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { hostEnvironment, makeRun, storeRun, type RunSpec } from '../compare/fixtures.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const base = [99.6, 100.2, 99.9, 100.4, 99.8, 100.1, 100.0, 99.7, 100.3, 100.0];
const plus = (ns: number) => base.map((v) => v + ns);

/** A database holding these runs, stored in order (so ids are 1, 2, ...). */
function dbWith(specs: Omit<RunSpec, 'id'>[]): string {
  const db = join(tempDir(), 'h.db');
  const store = Store.open(db);
  specs.forEach((spec, i) => storeRun(store, makeRun({ ...spec, id: i + 1 })));
  store.close();
  return db;
}

test('the tour run twice: compare A B takes the second pair and says that A and B each name two runs, with the ids of the first', async () => {
  // each pair as bench --label A --label-b B stores it: A (odd id), then its partner B
  const db = dbWith([
    { label: 'A', values: { getppid: base } },
    { label: 'B', values: { getppid: plus(5) } },
    { label: 'A', values: { getppid: plus(1) } },
    { label: 'B', values: { getppid: plus(9) } },
  ]);
  const r = await runCli(['compare', 'A', 'B', '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^A {2}= run 3 'A'/m);
  assert.match(r.stdout, /^B {2}= run 4 'B'/m);
  assert.match(r.stderr, /^note: label 'A' names 2 runs \(#3 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, #1 [^)]*\): took the newest, #3; label 'B' names 2 runs \(#4 [^)]*, #2 [^)]*\): took the newest, #4\. To compare older runs, give their ids, e.g\. 'hintlab compare 1 2'\n$/);
  const older = await runCli(['compare', '1', '2', '--db', db]);
  assert.equal(older.code, 0, older.stderr);
  assert.equal(older.stderr, '', 'runs named by id need no note');
  for (const format of ['lkml', 'md']) {
    const rep = await runCli(['report', 'A', 'B', '--format', format, '--db', db]);
    assert.equal(rep.code, 0, rep.stderr);
    assert.match(rep.stderr, /e\.g\. 'hintlab report 1 2'/);
  }
});

test('a plain run labelled A after an A/B pair is not compared with that pair\'s B: refused with the ids, never --allow-mismatch', async () => {
  const db = dbWith([
    { label: 'A', values: { getppid: base } },
    { label: 'B', values: { getppid: plus(5) } },
    { label: 'A', values: { getppid: base }, design: 'separate', environment: hostEnvironment({ cpu: 'AMD EPYC 7B13' }) },
  ]);
  const r = await runCli(['compare', 'A', 'B', '--db', db]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /'A' and 'B' do not name one A\/B pair: the newest 'B', #2 \([^)]+\), was measured together with #1 'A', but the newest 'A' is #3 \([^)]+\), another run\. Name the runs by id: 'hintlab compare 1 2' for the pair/);
  assert.doesNotMatch(r.stderr, /allow-mismatch/);
  assert.equal(r.stdout, '');
});

test('separate runs taken from a reused label that cannot be compared get the ids as the fix, not --allow-mismatch', async () => {
  const db = dbWith([
    { label: 'A', values: { getppid: base }, design: 'separate' },
    { label: 'B', values: { getppid: plus(5) }, design: 'separate' },
    { label: 'A', values: { getppid: base }, design: 'separate', environment: hostEnvironment({ cpu: 'AMD EPYC 7B13' }) },
  ]);
  const r = await runCli(['compare', 'A', 'B', '--db', db]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /the runs' checked environment differs.*\n {2}cpu\.model: /);
  assert.match(r.stderr, /\nlabel 'A' names 2 runs \(#3 [^)]+, #1 [^)]+\) and the newest, #3, was taken\. If those are not the runs you meant, name them by id, e.g\. 'hintlab compare 1 B'/);
  assert.doesNotMatch(r.stderr, /allow-mismatch/);
  // the same runs named by id keep the refusal's own way out
  const byId = await runCli(['compare', '3', '2', '--db', db]);
  assert.match(byId.stderr, /pass --allow-mismatch to compare anyway/);
});

test('runs and export of a label that names several runs show the newest and say so', async () => {
  const db = dbWith([
    { label: 'A', values: { getppid: base }, design: 'separate' },
    { label: 'A', values: { getppid: plus(1) }, design: 'separate' },
  ]);
  const shown = await runCli(['runs', 'A', '--db', db]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^run #2 'A'/);
  assert.match(shown.stderr, /^note: label 'A' names 2 runs \(#2 [^)]+, #1 [^)]+\): showing the newest, #2; give an id for another\n$/);
  const exported = await runCli(['export', 'A', '--db', db]);
  assert.equal((JSON.parse(exported.stdout) as { run: { id: number } }).run.id, 2);
  assert.match(exported.stderr, /exporting the newest, #2/);
  assert.equal((await runCli(['export', '1', '--db', db])).stderr, '');
});

test('a bench that reuses a label says that the label now names several runs, and which', async () => {
  const db = join(tempDir(), 'h.db');
  const short = ['bench', '--db', db, '--profile', 'getppid', '--ops', '200', '--warmups', '0', '--rounds', '3', '--processes', '1', '--label', 'X'];
  const first = await runCli(short);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stderr, /note: label/);
  const second = await runCli(short);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, /^note: label 'X' now names 2 runs \(#2, #1\): compare and report take the newest; give a run id for an older one$/m);
});
