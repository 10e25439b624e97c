/**
 * Stressors a macro run recorded as unavailable (`params.extra.unavailable`,
 * the shape src/macro/runner.ts stores) reach the comparison, so reports can
 * say the measured set was incomplete.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare } from '../../src/compare/compare.ts';
import type { RunWithRounds } from '../../src/model.ts';
import type { UnavailableStressor } from '../../src/run-record.ts';
import { Store } from '../../src/store/store.ts';
import { runCli } from '../helpers/cli.ts';
import { makeRun, storeRun } from './fixtures.ts';

const VALUES = [100, 101, 99, 100, 100, 102, 98];
const MISSING = ['cpu-sched', 'flipflop', 'mtx', 'prio-inv', 'schedmix'];

function macroRun(id: number, label: string, unavailable: UnavailableStressor[]): RunWithRounds {
  const run = makeRun({ id, label, unit: 'bogo-ops/s', kind: 'macro', values: { 'fifo@1': VALUES, 'yield@1': VALUES } });
  run.params.extra = { seconds: 2, cooldownSeconds: 1, instances: '1', cpuList: null, sets: ['sched'], unavailable };
  return run;
}

const lacking = (version: string, names = MISSING) => names.map((stressor) => ({ stressor, reason: `not in stress-ng ${version}` }));

describe('stressors not run', () => {
  it('are carried once, with every run that lacked them', () => {
    const cmp = compare({ a: macroRun(1, 'A', lacking('0.15.06')), b: macroRun(2, 'B', lacking('0.15.06')) });
    assert.deepEqual(
      cmp.notRun,
      MISSING.map((stressor) => ({ stressor, reason: 'not in stress-ng 0.15.06', runs: ['A', 'B'] })),
    );
  });

  it('name the runs when only some lacked a stressor', () => {
    const cmp = compare({
      a: macroRun(1, 'A', lacking('0.15.06', ['mtx'])),
      b: macroRun(2, 'B', []),
      a2: macroRun(3, 'A2', lacking('0.15.06', ['mtx'])),
    });
    assert.deepEqual(cmp.notRun, [{ stressor: 'mtx', reason: 'not in stress-ng 0.15.06', runs: ['A', 'A2'] }]);
  });

  it('are empty for bench runs', () => {
    const bench = compare({ a: makeRun({ id: 1, values: { getppid: VALUES } }), b: makeRun({ id: 2, values: { getppid: VALUES } }) });
    assert.deepEqual(bench.notRun, []);
  });

  it('are printed by hintlab compare and hintlab report from stored runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hintlab-notrun-'));
    try {
      const db = join(dir, 'r.db');
      const store = Store.open(db);
      storeRun(store, macroRun(0, 'A', lacking('0.15.06')));
      storeRun(store, macroRun(0, 'A2', lacking('0.15.06')));
      store.close();
      const line = 'not run: cpu-sched, flipflop, mtx, prio-inv, schedmix (not in stress-ng 0.15.06)';
      const text = await runCli(['compare', 'A', 'A2', '--db', db]);
      assert.equal(text.code, 0, text.stderr);
      assert.ok(text.stdout.split('\n').includes(line), text.stdout);
      const md = await runCli(['report', 'A', 'A2', '--db', db, '--format', 'md']);
      assert.match(md.stdout, /\nNot run \(the measured set is incomplete\): cpu-sched, flipflop, mtx, prio-inv, schedmix \(not in stress-ng 0\.15\.06\)\.\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
