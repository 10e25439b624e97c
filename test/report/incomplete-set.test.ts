/**
 * Every format says which stressors a macro run could not run, which
 * correction decided the verdicts and over how many subjects, and heads a
 * throughput table's rounds column by what its cells hold.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison } from '../../src/compare/types.ts';
import { htmlReport } from '../../src/report/html.ts';
import { jsonReport } from '../../src/report/json.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { markdownReport } from '../../src/report/md.ts';
import { renderText } from '../../src/report/text.ts';
import { abaComparison, CTX } from './fixtures.ts';

const MISSING = ['cpu-sched', 'flipflop', 'mtx', 'prio-inv', 'schedmix'];

/** A macro A/B/A whose runs lacked the five stressors stress-ng 0.15.06 does not have. */
function macroComparison(): Comparison {
  const c = abaComparison({ unit: 'bogo-ops/s' });
  c.notRun = MISSING.map((stressor) => ({ stressor, reason: 'not in stress-ng 0.15.06', runs: ['A', 'B', 'A2'] }));
  return c;
}

const LIST = 'cpu-sched, flipflop, mtx, prio-inv, schedmix (not in stress-ng 0.15.06)';
const unwrap = (text: string) => text.replace(/\n\s*/g, ' ');

test('every format names the stressors that were not run', () => {
  const c = macroComparison();
  assert.ok(renderText(c).includes(`\nnot run: ${LIST}\n`));
  assert.ok(unwrap(lkmlReport(c, CTX)).includes(`Not run (the measured set is incomplete): ${LIST}.`));
  assert.ok(markdownReport(c, CTX).includes(`\n\nNot run (the measured set is incomplete): ${LIST}.\n\n`));
  assert.ok(htmlReport(c, CTX).includes(`<p>Not run (the measured set is incomplete): ${LIST}.</p>`));
  const doc = JSON.parse(jsonReport(c, CTX));
  assert.deepEqual(doc.comparison.notRun.map((n: { stressor: string }) => n.stressor), MISSING);
  assert.deepEqual(doc.comparison.notRun[0], { stressor: 'cpu-sched', reason: 'not in stress-ng 0.15.06', runs: ['A', 'B', 'A2'] });
});

test('a complete set prints no not-run line', () => {
  const c = abaComparison({ unit: 'bogo-ops/s' });
  for (const text of [renderText(c), lkmlReport(c, CTX), markdownReport(c, CTX), htmlReport(c, CTX)]) assert.doesNotMatch(text, /not run/i);
});

test('the lkml block puts the missing stressors and the verdict rule with the geometric mean, within 72 columns', () => {
  const text = lkmlReport(macroComparison(), CTX);
  const first = text.split('\n\n')[0]!;
  const head = unwrap(first.slice(first.indexOf('Verdicts:')));
  assert.equal(
    head,
    'Verdicts: run-level t p < 0.05 (Holm, 3 subjects) on invocation means, B against A+A2 and beyond +/-1 % by a one-sided test (Holm); smallest claimable change 0.8 %. ' +
      'Geometric mean of B/A over 3 subjects: -1.6 % (better). ' +
      `Not run (the measured set is incomplete): ${LIST}.`,
  );
  for (const line of text.split('\n')) assert.ok(line.length <= 72, line);
});

test('the Markdown and HTML footers name the correction and the number of subjects', () => {
  const c = macroComparison();
  assert.match(markdownReport(c, CTX), /\nThresholds: alpha 0\.05 with Holm's step-down correction over 3 subjects \(A2 vs A drift: 3\), noise threshold 1 %\./);
  assert.match(htmlReport(c, CTX), /<footer>[^<]*Alpha 0\.05 with Holm&#39;s step-down correction over 3 subjects \(A2 vs A drift: 3\), noise threshold 1 %/);
  c.options.correction = 'none';
  c.multipleComparisons = { correction: 'none', familySize: 3, driftFamilySize: 3 };
  assert.match(markdownReport(c, CTX), /Thresholds: alpha 0\.05 with no multiple-comparison correction \(--correction none\), each of 3 subjects at alpha, noise threshold 1 %\./);
});

test('JSON carries the raw and the adjusted p-values and the families', () => {
  const doc = JSON.parse(jsonReport(macroComparison(), CTX));
  const change = doc.comparison.subjects[0].change;
  // Fixture: raw Welch p 1e-4 in each of 3 subjects; Holm gives 3e-4 to each.
  assert.equal(change.test.pValue, 0.0001);
  const { pValue, rankPValue, ...rest } = change.adjusted;
  assert.deepEqual(rest, { kind: 'adjusted', correction: 'holm', familySize: 3 });
  assert.ok(Math.abs(pValue - 3e-4) < 1e-15 && Math.abs(rankPValue - 6e-4) < 1e-15, JSON.stringify(change.adjusted));
  assert.deepEqual(doc.comparison.multipleComparisons, { correction: 'holm', familySize: 3, driftFamilySize: 3 });
  assert.equal(doc.comparison.options.correction, 'holm');
});

test('a throughput table heads its rounds column "Rounds", matching cells that say "15 invocations per run"', () => {
  const c = macroComparison();
  const md = markdownReport(c, CTX).split('\n');
  const header = md.find((l) => l.startsWith('| Subject | A mean (bogo-ops/s)'))!;
  assert.match(header, /\| Round CV A\/B\/A2 \(%\) \| Rounds \| p run-level t \|/);
  assert.ok(md.some((l) => l.startsWith('| getppid |') && l.includes('| 15 invocations per run |')));
  assert.match(htmlReport(c, CTX), /<th scope="col">Round CV A\/B\/A2 \(%\)<\/th><th scope="col">Rounds<\/th>/);
  // Calls keep their ops: "15 x 20000 calls" under "Rounds x ops".
  assert.match(markdownReport(abaComparison(), CTX), /\| Rounds x ops \|/);
});
