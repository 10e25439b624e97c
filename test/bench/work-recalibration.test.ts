/**
 * `--inject-work-b PCT%` in turns (src/bench/work-recalibration.ts): B's N
 * follows A's level as the run measures it, generation by generation, and
 * the run records the pilot's figures, each generation's N and their mean.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { PAIRS_PER_PROCESS } from '../../src/bench/design.ts';
import { addRound, WorkRecalibration, type RoundsSoFar } from '../../src/bench/work-recalibration.ts';
import type { InterleaveRecord } from '../../src/run-record.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

test("the pilot's level decides until A has 20 measured rounds, then A's own mean; N is 1 % of it in additions", () => {
  const level: RoundsSoFar = new Map();
  const recal = new WorkRecalibration({ pct: 1, levelNs: { getppid: 100 }, perAddNs: { getppid: 0.25 } }, () => level);
  // 1 % of the pilot's 100 ns is 1 ns: 4 additions
  assert.deepEqual(recal.next(), { getppid: 4 });
  for (let i = 0; i < 19; i++) addRound(level, 'getppid', 80);
  assert.deepEqual(recal.next(), { getppid: 4 }, '19 rounds are not enough');
  addRound(level, 'getppid', 80);
  // A measures 80 ns: 0.8 ns, 3.2 additions
  assert.deepEqual(recal.next(), { getppid: 3.2 });
  assert.deepEqual(recal.perGeneration, { getppid: [4, 4, 3.2] });
});

test("the run's gauged cost of one addition replaces the pilot's from 20 gauges on: their mean, per profile", () => {
  const level: RoundsSoFar = new Map();
  for (let i = 0; i < 20; i++) addRound(level, 'getppid', 100);
  const recal = new WorkRecalibration({ pct: 1, levelNs: { getppid: 100, 'select-10': 400 }, perAddNs: { getppid: 0.25, 'select-10': 0.25 } }, () => level);
  // 19 gauges are not enough: the pilot's 0.25 ns, 4 additions of 1 ns
  for (let i = 0; i < 19; i++) recal.gauge('getppid', 0.125);
  assert.deepEqual(recal.next(), { getppid: 4, 'select-10': 16 });
  // the 20th: a gauge far off (a tick in its middle run) counts as it is, as a round does in A's level
  recal.gauge('getppid', 2.625);
  recal.ended(25);
  // mean (19 x 0.125 + 2.625) / 20 = 0.25 ns; select-10 has no gauge of its own and keeps the pilot's
  assert.deepEqual(recal.next(), { getppid: 4, 'select-10': 16 });
  for (let i = 0; i < 20; i++) recal.gauge('getppid', 0.125);
  for (let i = 0; i < 20; i++) recal.gauge('select-10', -0.1);
  recal.ended(25);
  // getppid: 40 gauges at a mean of 0.1875 ns, 5.333 additions; select-10's mean below zero is noise, the pilot's stands
  assert.deepEqual(recal.next(), { getppid: 5.333, 'select-10': 16 });
  assert.deepEqual(recal.gaugedPerAddNs, { getppid: [null, 0.25, 0.1875], 'select-10': [null, null, null] });
  assert.deepEqual(recal.perGeneration, { getppid: [4, 4, 5.333], 'select-10': [16, 16, 16] });
});

test("the recorded N is the generations' mean weighed by the pairs each ran, the last by what it ran before the end", () => {
  const level: RoundsSoFar = new Map();
  const recal = new WorkRecalibration({ pct: 1, levelNs: { getppid: 100 }, perAddNs: { getppid: 0.25 } }, () => level);
  recal.next();
  recal.ended(25);
  for (let i = 0; i < 50; i++) addRound(level, 'getppid', 50);
  recal.next();
  // 25 pairs at 4 additions, 5 at 2: (100 + 10) / 30
  assert.deepEqual(recal.meanN(30), { getppid: 3.667 });
});

test('a real invocation with PCT% known work recalibrates B at each generation and records what it measured', async () => {
  const db = join(tempDir(), 'w.db');
  const r = await runCli(['bench', '--db', db, '--profile', 'getppid', '--ops', '2000', '--time', '1', '--min-pairs', String(2 * PAIRS_PER_PROCESS + 1), '--label-b', 'B', '--inject-work-b', '2%']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /note: --inject-work-b 2%: getppid [\d.]+ additions per call \(A [\d.]+ ns per call, one addition [\d.]+ ns\), from an alternation pilot on the run's clock; B's N is then recalibrated at each generation of processes from A's level and the cost of one addition as this run measures them \(both sides gauge 512 more additions in their loop before every block\)/);
  const store = Store.open(db);
  try {
    for (const id of [1, 2]) {
      const rec = store.getRun(id).params.extra.interleave as InterleaveRecord;
      const cal = rec.workCalibration!;
      assert.equal(cal.pct, 2);
      assert.ok(cal.levelNs.getppid! > 0 && cal.perAddNs.getppid! > 0, JSON.stringify(cal));
      const ns = cal.perGeneration!.getppid!;
      assert.ok(ns.length >= 3, `${ns.length} generations for more than two generations' pairs`);
      // the first generation used the pilot's cost of one addition, later ones the run's gauges (one a CPU can have)
      const gauged = cal.gaugedPerAddNs!.getppid!;
      assert.equal(gauged.length, ns.length);
      assert.equal(gauged[0], null);
      assert.ok(gauged.some((g) => g !== null), `no generation used a gauge: ${gauged.join(', ')}`);
      for (const g of gauged) assert.ok(g === null || (g > 0.05 && g < 5), `gauged ${g} ns per addition`);
      const mean = rec.injectWork!.B!.getppid!;
      assert.ok(mean >= Math.min(...ns) && mean <= Math.max(...ns), `the recorded N ${mean} lies within the generations' ${ns.join(', ')}`);
      assert.equal(rec.injectWork!.A, null);
    }
    // B's environment says the N it ran on average, as its record does
    assert.equal(store.getRun(2).environment.injectWork, `getppid:${store.getRun(2).params.extra.interleave!.injectWork!.B!.getppid}`);
  } finally {
    store.close();
  }
});
