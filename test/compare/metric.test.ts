/**
 * `hintlab compare/report --metric`: the cost counters of `vm --cost` runs
 * (per-call metrics added to stored rounds, as the cost boot adds them),
 * compared in-process through the CLI against a real SQLite store, with
 * boots as units and the counters' own words.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Metric } from '../../src/model.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hostEnvironment, makeRun, storeRun } from './fixtures.ts';

/** Five rounds of one boot around `base`, 0.01 % apart; the mean of the five is `base` to 1e-6. */
const rounds = (base: number) => [0, 1, -1, 2, -2].map((k) => base * (1 + 1e-5 * k));

/**
 * One `vm --cost` boot stored as a run: the instruction count as the primary
 * value, the counters as metrics added to its rounds afterwards.
 */
function storeBoot(store: Store, label: string, release: string, counters: Record<string, number>): void {
  const run = makeRun({ id: 0, label, kind: 'vm', unit: 'instructions/call', values: { getppid: rounds(3754) }, units: 1, environment: hostEnvironment({ release }) });
  const id = storeRun(store, run, null);
  const metrics = (k: number): Metric[] =>
    Object.entries(counters).map(([name, v]) => ({ name, value: v * (1 + 1e-5 * [0, 1, -1, 2, -2][k]!), unit: name, direction: 'lower-is-better' }));
  store.addMetrics(id, run.rounds.map((r, k) => ({ seq: r.seq, metrics: metrics(k) })));
  store.finishRun(id, 'complete', null);
}

/** A fresh store for one suite, filled by `fill` before its tests and removed after them; `db` is its path. */
function suiteStore(fill: (store: Store) => void): { db: string } {
  const at = { db: '' };
  let dir = '';
  before(() => {
    dir = tempDir();
    at.db = join(dir, 'results.db');
    const store = Store.open(at.db);
    fill(store);
    store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return at;
}

const A = 'vm-A-1,vm-A-2,vm-A-3';
const B = 'vm-B-1,vm-B-2,vm-B-3';

describe('compare and report --metric: cost counters as subjects', () => {
  const at = suiteStore((store) => {
    // Boot means 47.00/47.01/46.99 against 48.00/48.01/47.99 taken branches: +1 per call, +2.13 %.
    // Kernel instructions equal in the mean on both sides; mispredictions 1.37 -> 1.20 (-0.17, -12.41 %).
    [0, 0.01, -0.01].forEach((d, i) => {
      storeBoot(store, `vm-A-${i + 1}`, '6.12.9', { 'kernel-instructions/call': 321.65 + d, 'taken-branches/call': 47 + d, 'mispredictions/call': 1.37 + d });
      storeBoot(store, `vm-A2-${i + 1}`, '6.12.9', { 'taken-branches/call': 47 - d });
      storeBoot(store, `vm-B-${i + 1}`, '6.12.9-hl', {
        'kernel-instructions/call': 321.65 - d,
        'taken-branches/call': 48 + d,
        'mispredictions/call': 1.2 + d,
        'l1i-misses/call': 0.5,
      });
    });
  });

  it('claims one more taken branch per call in the counter\'s words, with the scope line, never ns or faster/slower', async () => {
    const r = await runCli(['compare', A, B, '--metric', 'taken-branches/call', '--db', at.db]);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /\nscope: kernel instructions, user instructions, taken branches, I-cache line fetches and distinct I-cache lines are exact counts of the emulated execution \(qemu TCG, per translated block\); L1i misses and branch mispredictions come from the named model, not from a CPU; none is a time\n/);
    assert.match(r.stdout, /\ntaken-branches\/call \(taken branches\/call; judged in events per call: a change of 0\.01 or more per call; Holm over 1 tested subject\)\n/);
    assert.match(r.stdout, /\n {2}getppid +47\.00 taken branches\/call +48\.00 +\+1\.00 \(\+2\.13 %\) +95 % CI \+[\d.]+ % to \+[\d.]+ % +more taken branches\n/);
    assert.match(r.stdout, /design: boots/);
    // the scope line names every counter, instructions among them; no figure or verdict is in instructions
    assert.doesNotMatch(r.stdout.replace(/^scope: .*$/m, ''), /\bns\b|faster|slower|instructions\b/);
  });

  it('compares every counter both runs carry with --metric all, each in its own words', async () => {
    const r = await runCli(['compare', A, B, '--metric', 'all', '--db', at.db, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { schema: number; kind: string; metrics: { metric: string; unit: string; subjects: { verdict: string; change: number; changePct: number }[] }[] };
    assert.equal(doc.kind, 'cost-metrics');
    // l1i-misses/call is in B only: not compared
    assert.deepEqual(doc.metrics.map((m) => m.metric), ['kernel-instructions/call', 'taken-branches/call', 'mispredictions/call']);
    const [kinsn, taken, mispred] = doc.metrics.map((m) => m.subjects[0]!);
    assert.equal(kinsn!.verdict, 'no difference proven');
    assert.equal(taken!.verdict, 'more taken branches');
    assert.ok(Math.abs(taken!.change - 1) < 1e-9);
    assert.ok(Math.abs(taken!.changePct - (100 * (48 / 47 - 1))) < 1e-9);
    assert.equal(mispred!.verdict, 'fewer modelled branch mispredictions');
    assert.ok(Math.abs(mispred!.change - -0.17) < 1e-9);
    assert.equal(doc.metrics[2]!.unit, 'modelled branch mispredictions/call');
  });

  it('judges B against the boots of A and A2 together in an A/B/A comparison', async () => {
    const r = await runCli(['compare', A, B, 'vm-A2-1,vm-A2-2,vm-A2-3', '--metric', 'taken-branches/call', '--db', at.db]);
    assert.equal(r.code, 0, r.stderr);
    // A+A2: six boots around 47.00, B three around 48.00: +1 taken branch per call, +2.13 %
    assert.match(r.stdout, /\n {2}subject +A\+A2 +B +change/);
    assert.match(r.stdout, /\n {2}getppid +47\.00 taken branches\/call +48\.00 +\+1\.00 \(\+2\.13 %\) .* more taken branches\n/);
  });

  it('writes the counters as a Markdown report with the scope line', async () => {
    const r = await runCli(['report', A, B, '--metric', 'mispredictions/call', '--format', 'md', '--db', at.db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /none is a time/);
    assert.match(r.stdout, /\| getppid \| 1\.370 modelled branch mispredictions\/call \| 1\.200 \| -0\.170 \(-12\.41 %\) \| .* \| fewer modelled branch mispredictions \|/);
  });

  it('refuses a name that is no cost counter, a counter one side lacks, and formats it cannot write', async () => {
    const bad = await runCli(['compare', A, B, '--metric', 'taken', '--db', at.db]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--metric must be a cost counter of vm --cost \(kernel-instructions\/call, .*\) or all; got 'taken'/);
    const lacking = await runCli(['compare', A, B, '--metric', 'l1i-misses/call', '--db', at.db]);
    assert.equal(lacking.code, 1);
    assert.match(lacking.stderr, /--metric l1i-misses\/call: not carried by both A and B; cost counters in both: kernel-instructions\/call, taken-branches\/call, mispredictions\/call/);
    const lkml = await runCli(['report', A, B, '--metric', 'all', '--format', 'lkml', '--db', at.db]);
    assert.equal(lkml.code, 2);
    assert.match(lkml.stderr, /--metric reports are written as text, md, json; got --format lkml/);
  });
});

describe('compare --metric on boots that gave identical counts', () => {
  it('claims the exact change of any size, and calls the same count in every boot identical', async () => {
    const dir = tempDir();
    const db = join(dir, 'results.db');
    const store = Store.open(db);
    // The same rounds in every boot of a side (as the fixed guest clock gives): no boot-to-boot spread.
    for (const i of [1, 2, 3]) {
      storeBoot(store, `vm-A-${i}`, '6.12.9', { 'taken-branches/call': 47, 'line-fetches/call': 57.1 });
      storeBoot(store, `vm-B-${i}`, '6.12.9-hl', { 'taken-branches/call': 48, 'line-fetches/call': 57.1 });
    }
    store.close();
    try {
      const r = await runCli(['compare', A, B, '--metric', 'all', '--db', db]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /\n {2}getppid +47\.00 taken branches\/call +48\.00 +\+1\.00 \(\+2\.13 %\) +exact +more taken branches\n/);
      assert.match(r.stdout, /\n {2}getppid: more taken branches: exact: every boot gave the same value \(boots: A 3, B 3\): 47 in A, 48 in B, \+1 \(\+2\.13 %\), deterministic for the emulated execution, not a sample\n/);
      assert.match(r.stdout, /\n {2}getppid: identical: exact: every boot gave the same value \(boots: A 3, B 3\), 57\.1 in A and B alike\n/);
      const json = JSON.parse((await runCli(['compare', A, B, '--metric', 'all', '--db', db, '--json'])).stdout) as { schema: number; metrics: { metric: string; subjects: { verdict: string; exact: boolean }[] }[] };
      assert.equal(json.schema, 3);
      assert.deepEqual(json.metrics.map((m) => [m.metric, m.subjects[0]!.verdict, m.subjects[0]!.exact]), [['taken-branches/call', 'more taken branches', true], ['line-fetches/call', 'identical', true]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('compare --metric judges a count of the emulated execution in events per call', () => {
  const at = suiteStore((store) => {
    // Boots that vary by a timer tick's share: one taken branch fewer per call out of 258 (-0.39 %),
    // 0.004 more line fetches per call, and the modelled mispredictions 0.39 % fewer.
    [0, 0.0004, -0.0004].forEach((d, i) => {
      storeBoot(store, `vm-A-${i + 1}`, '6.12.9', { 'taken-branches/call': 258.1 + d, 'line-fetches/call': 300 + d, 'mispredictions/call': 258.1 + d });
      storeBoot(store, `vm-B-${i + 1}`, '6.12.9-hl', { 'taken-branches/call': 257.1 + d, 'line-fetches/call': 300.004 + d, 'mispredictions/call': 257.1 + d });
    });
  });

  it('claims one taken branch fewer per call that is -0.39 %, naming the rule, where the modelled counter stays within the threshold', async () => {
    const r = await runCli(['compare', A, B, '--metric', 'all', '--db', at.db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\ntaken-branches\/call \(taken branches\/call; judged in events per call: a change of 0\.01 or more per call; Holm over 1 tested subject\)\n/);
    assert.match(r.stdout, /\n {2}getppid +258\.1 taken branches\/call +257\.1 +-1\.0 \(-0\.39 %\) .* fewer taken branches\n/);
    assert.match(r.stdout, /\n {2}getppid: fewer taken branches: events per call: -1\.00 per call \(95 % CI -1\.\d+ to -0\.99\d+\), p [=<] [\d.e-]+: beyond 0\.01 per call, the events-per-call rule/);
    assert.match(r.stdout, /\n {2}getppid: no difference proven: events per call: \+0\.004 per call \(95 % CI \+0\.003 to \+0\.005\), p = [\d.e-]+: not shown beyond 0\.01 per call \(the events-per-call rule/);
    assert.match(r.stdout, /\nmispredictions\/call \(modelled branch mispredictions\/call; judged against the ±1 % noise threshold, or exactly where every boot repeated its value; Holm over 1 tested subject\)\n/);
    assert.match(r.stdout, /\n {2}getppid: no difference proven: .*not shown beyond the ±1 % noise threshold/);
  });

  it('writes the rule of each counter, the boots and the interval per call into the JSON document', async () => {
    const r = await runCli(['compare', A, B, '--metric', 'all', '--db', at.db, '--json']);
    assert.equal(r.code, 0, r.stderr);
    type Subject = { verdict: string; exact: boolean; boots: Record<string, number>; ciInUnit: { low: number; high: number } | null };
    const doc = JSON.parse(r.stdout) as { schema: number; metrics: { metric: string; rule: { name: string; minPerCall?: number; thresholdPct?: number }; subjects: Subject[] }[] };
    assert.equal(doc.schema, 3);
    const by = new Map(doc.metrics.map((m) => [m.metric, m]));
    assert.deepEqual(by.get('taken-branches/call')!.rule, { name: 'events-per-call', minPerCall: 0.01 });
    assert.deepEqual(by.get('mispredictions/call')!.rule, { name: 'percent-threshold', thresholdPct: 1 });
    const taken = by.get('taken-branches/call')!.subjects[0]!;
    assert.deepEqual([taken.verdict, taken.exact, taken.boots], ['fewer taken branches', false, { A: 3, B: 3 }]);
    assert.ok(taken.ciInUnit && taken.ciInUnit.low < -0.99 && taken.ciInUnit.high > -1.01 && taken.ciInUnit.high < -0.99, JSON.stringify(taken.ciInUnit));
    assert.equal(by.get('line-fetches/call')!.subjects[0]!.verdict, 'no difference proven');
  });
});
