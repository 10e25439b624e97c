/** The busy-machine warning: a wall-clock run whose load average exceeded its CPUs is named in the comparison and in every report. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare } from '../../src/compare/compare.ts';
import { COMPARISON_SCHEMA } from '../../src/compare/types.ts';
import type { Environment, RunWithRounds } from '../../src/model.ts';
import type { RoundClock } from '../../src/run-record.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hostEnvironment, makeRun, storeRun } from './fixtures.ts';

const base = [99.6, 100.2, 99.9, 100.4, 99.8, 100.1, 100.0, 99.7, 100.3, 100.0];
const load = (start: number | null, end: number | null): Environment => ({
  ...hostEnvironment(),
  load: {
    start: start === null ? { known: false, reason: 'not read' } : { known: true, value: [start, 1, 1] },
    ...(end === null ? {} : { end: { known: true, value: [end, 1, 1] } }),
  },
});
/** Runs 1 (A) and 2 (B) of one plain invocation each: `clock` as an A/B invocation records it, or none for a plain run. */
function pair(envA: Environment, envB: Environment, clock?: RoundClock): { a: RunWithRounds; b: RunWithRounds } {
  const withClock = (run: RunWithRounds): RunWithRounds =>
    clock === undefined ? run : { ...run, params: { ...run.params, extra: { interleave: { ...run.params.extra.interleave!, clock } } } };
  return {
    a: withClock(makeRun({ id: 1, label: 'A', values: { getppid: base }, environment: envA })),
    b: withClock(makeRun({ id: 2, label: 'B', values: { getppid: base.map((v) => v + 5) }, environment: envB })),
  };
}

test('a wall-clock run that started with the load above its CPUs is named, with the load and the CPUs', () => {
  const cmp = compare(pair(load(3.5, null), load(0.2, 1.1)));
  assert.equal(cmp.schema, 9);
  assert.equal(COMPARISON_SCHEMA, 9);
  assert.deepEqual(cmp.warnings?.map(({ message: _m, ...w }) => w), [{ kind: 'busy-machine', role: 'A', runId: 1, cpus: 2, loadStart: 3.5, loadEnd: null }]);
  assert.match(cmp.warnings[0]!.message, /^A \(run 1\) was timed on the wall clock on a busy machine: 1-minute load 3\.50 at the start on 2 CPUs, so its CPU was likely shared \(times and spread inflate\); measure on a quiet machine, or on the probe thread's CPU clock \(--clock cpu\)$/);
});

test("the load at the end counts the run's own probe: 2.8 on 2 CPUs is quiet, 3.5 is not", () => {
  assert.deepEqual(compare(pair(load(0.5, 2.8), load(0.5, 2.8))).warnings, []);
  const busy = compare(pair(load(0.5, 3.5), load(0.5, 2.8))).warnings ?? [];
  assert.deepEqual(busy.map((w) => [w.role, w.loadEnd]), [['A', 3.5]]);
  assert.match(busy[0]!.message, /0\.50 at the start, 3\.50 at the end \(1 of it its own probe\) on 2 CPUs/);
});

test("rounds timed on the probe thread's CPU clock, counted instructions and unread loads give no warning", () => {
  assert.deepEqual(compare(pair(load(9, 9), load(9, 9), 'thread-cpu')).warnings, []);
  assert.equal(compare(pair(load(9, 9), load(9, 9), 'wall')).warnings?.length, 2);
  const icount = { a: makeRun({ id: 1, unit: 'instructions/call', values: { getppid: base }, environment: load(9, 9) }), b: makeRun({ id: 2, unit: 'instructions/call', values: { getppid: base }, environment: load(9, 9) }) };
  assert.deepEqual(compare(icount).warnings, []);
  assert.deepEqual(compare(pair(load(null, null), hostEnvironment())).warnings, []);
});

test('compare, and report in every format, print the warning', async () => {
  const db = join(tempDir(), 'h.db');
  const store = Store.open(db);
  const { a, b } = pair(load(0.2, 1.0), load(4.25, 5.0));
  storeRun(store, a);
  storeRun(store, b);
  store.close();
  const text = await runCli(['compare', 'A', 'B', '--db', db]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /\nwarning: B \(run 2\) was timed on the wall clock on a busy machine: 1-minute load 4\.25 at the start, 5\.00 at the end \(1 of it its own probe\) on 2 CPUs/);
  const json = JSON.parse((await runCli(['compare', 'A', 'B', '--db', db, '--json'])).stdout) as { warnings: { kind: string; role: string }[] };
  assert.deepEqual(json.warnings.map((w) => [w.kind, w.role]), [['busy-machine', 'B']]);
  for (const format of ['lkml', 'md', 'html', 'json', 'text']) {
    const r = await runCli(['report', 'A', 'B', '--db', db, '--format', format]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.replace(/\s+/g, ' '), /B \(run 2\) was timed on the wall clock on a busy machine/, format);
  }
});
