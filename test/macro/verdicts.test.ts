/**
 * Macro runs through compare and the reports: a geometric mean that
 * improves must never hide a stressor that regressed. Runs are hand-built
 * with the Store API in a temporary database, shaped as `hintlab macro`
 * stores them (one round per invocation, value = bogo-ops/s, ops = 1).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare } from '../../src/compare/compare.ts';
import type { RunParams } from '../../src/model.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { markdownReport } from '../../src/report/md.ts';
import { renderText } from '../../src/report/text.ts';
import { Store } from '../../src/store/store.ts';

/** Baseline bogo-ops/s per subject, and B's factor: fifo@24 loses 30 %, the others gain 20 %. */
const SUBJECTS: [string, number, number][] = [
  ['fifo@24', 10_000_000, 0.7],
  ['futex@24', 900_000, 1.2],
  ['mq@24', 10_000_000, 1.2],
  ['yield@24', 38_000_000, 1.2],
];
const REPEATS = 10;
/** ±0.5 % round-to-round noise, the same pattern in every run. */
const NOISE = [0.995, 1.005, 0.998, 1.002, 0.996, 1.004, 0.999, 1.001, 0.997, 1.003];

function macroRun(store: Store, label: string, factor: (subject: string, base: number) => number): number {
  const params: RunParams = {
    subjects: SUBJECTS.map(([s]) => s),
    ops: null,
    warmups: 0,
    rounds: REPEATS,
    cpu: null,
    subjectParams: Object.fromEntries(SUBJECTS.map(([s]) => [s, { stressor: s.split('@')[0], instances: 24, seconds: 20, cpuList: null }])),
    extra: {},
  };
  const id = store.createRun({
    label, kind: 'macro', unit: 'bogo-ops/s', replicateUnit: 'invocation', command: `hintlab macro --set sched --label ${label}`, hintlabVersion: 'test', params,
    environment: { stressNg: { version: '0.15.06' } },
  });
  let seq = 0;
  for (let r = 0; r < REPEATS; r++) {
    for (const [subject, base] of SUBJECTS) {
      const value = factor(subject, base) * NOISE[r]!;
      store.addRound(id, { seq: seq++, subject, index: r, replicate: r, warmup: false, ops: 1, total: value, value, unit: 'bogo-ops/s', direction: 'higher-is-better' });
    }
  }
  store.finishRun(id, 'complete');
  return id;
}

function comparison() {
  const store = Store.open(join(mkdtempSync(join(tmpdir(), 'hintlab-verdicts-')), 'r.db'));
  const a = macroRun(store, 'A', (_s, base) => base);
  const b = macroRun(store, 'B', (s, base) => base * SUBJECTS.find(([n]) => n === s)![2]);
  // separate macro runs support a claim only as A/B/A: A2 repeats A after B
  // A2 0.05 % above A: two runs never repeat each other exactly, and B vs A+A2 rests on their difference
  const a2 = macroRun(store, 'A2', (_s, base) => base * 1.0005);
  const cmp = compare({ a: store.getRun(a), b: store.getRun(b), a2: store.getRun(a2) }, { bootstrapResamples: 2000 });
  store.close();
  return cmp;
}

test('fewer bogo-ops/s is slower; the geometric mean improves while fifo@24 regresses by 30 %', () => {
  const cmp = comparison();
  assert.equal(cmp.direction, 'higher-is-better');
  const fifo = cmp.subjects.find((s) => s.subject === 'fifo@24')!;
  assert.equal(fifo.verdict.verdict, 'slower');
  assert.ok(Math.abs(fifo.change.changePct - -30) < 1e-9);
  for (const s of cmp.subjects.filter((x) => x.subject !== 'fifo@24')) assert.equal(s.verdict.verdict, 'faster', s.subject);
  assert.deepEqual(cmp.regressions, ['fifo@24']);
  // (0.7 * 1.2^3)^(1/4) = 1.04871...: +4.87 %.
  assert.equal(cmp.geometricMean.kind, 'ok');
  assert.ok(Math.abs(cmp.geometricMean.ratio - Math.pow(0.7 * 1.2 ** 3, 1 / 4)) < 1e-12);
  assert.equal(cmp.geometricMean.improved, true);
});

test('the mailing-list report leads with the regressed stressor, before the geometric mean', () => {
  const text = lkmlReport(comparison(), { hintlabVersion: 'test', generatedAt: '2026-01-01T00:00:00Z' });
  const lines = text.split('\n');
  // The table's first row is the regression, fifo@24, against the midpoint of A and A2 (the contrast the verdict used): 10002500 -> 7000000 bogo-ops/s is -30.0 %.
  const head = lines.findIndex((l) => l.startsWith('subject '));
  assert.match(lines[head + 1]!, /^fifo@24 +10002500 +7000000 +-30\.0 % .* slower$/);
  const gmean = lines.findIndex((l) => l.startsWith('Geometric mean of B/A over 4 subjects: +4.9 % (better).'));
  assert.ok(gmean > head + 1, text);
});

test('the Markdown report puts the regression above the geometric mean and the tables', () => {
  const md = markdownReport(comparison(), { hintlabVersion: 'test', generatedAt: '2026-01-01T00:00:00Z' });
  const slower = md.indexOf('**Slower (regressions): fifo@24.**');
  assert.ok(slower > 0, md.slice(0, 400));
  assert.ok(slower < md.indexOf('Geometric mean'));
  assert.ok(slower < md.indexOf('| fifo@24'));
});

test('the terminal report states the regression before the geometric mean', () => {
  const lines = renderText(comparison()).split('\n');
  const regression = lines.findIndex((l) => l.startsWith('regressions: fifo@24 (-30.00 %)'));
  const gmean = lines.findIndex((l) => l.startsWith('geometric mean of B/A over 4 subjects: 1.0487 (+4.87 %), better'));
  assert.ok(regression >= 0 && gmean === regression + 1, lines.join('\n'));
});
