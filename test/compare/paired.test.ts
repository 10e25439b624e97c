/** Paired designs (duet, alternation) through compare: pairs, the paired t, the confidence sequence of a stopped run. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { RunWithRounds } from '../../src/model.ts';
import type { DesignKind, RunExtra } from '../../src/run-record.ts';
import { renderText } from '../../src/report/text.ts';
import { assertClose } from '../stats/close.ts';
import { makeRun } from './fixtures.ts';

const A = [100.0, 103.0, 98.0, 101.0, 99.5];
const B = [102.1, 104.9, 100.2, 103.3, 101.2];

/** One round per unit, as a duet pair is one round of each side; `extra` goes into params.extra. */
function duetRun(id: number, values: number[], extra: RunExtra = {}, design: DesignKind = 'duet'): RunWithRounds {
  const r = makeRun({ id, values: { getppid: values }, units: values.length });
  const rec = r.params.extra.interleave!;
  return { ...r, params: { ...r.params, extra: { interleave: { ...rec, design, cpus: [0, 1], swapEvery: 1 }, ...extra } } };
}

describe('paired designs', () => {
  it('judge B against A pair by pair: change exp(mean ln(B/A)) - 1, paired t with K - 1 df (scipy)', () => {
    const cmp = compare({ a: duetRun(1, A), b: duetRun(2, B) }, { thresholdPct: 1 });
    const s = cmp.subjects[0]!;
    assert.equal(cmp.design.kind, 'duet');
    assert.equal(cmp.design.text, 'duet: A and B at once on CPUs 0 and 1, 5 pairs, CPUs swapped every block');
    // scipy.stats.ttest_1samp(log(B/A), 0): t 18.386250082430315, p 5.148280391269426e-05; t interval
    // through exp: +1.7249158144768684 .. +2.345669958310004 %, change +2.034820823507699 %.
    assert.ok(s.change.test.kind === 'ok' && s.change.test.method === 'paired-t');
    assert.ok(s.change.ciPct.kind === 'ok');
    assertClose(s.change.test.pValue, 5.148280391269426e-5, 1e-8);
    assert.equal(s.change.test.df, 4);
    assertClose(s.change.changePct, 2.034820823507699, 1e-10);
    assertClose(s.change.ciPct.low, 1.7249158144768684, 1e-9);
    assertClose(s.change.ciPct.high, 2.345669958310004, 1e-9);
    assert.deepEqual(s.change.pairs && [s.change.pairs.pairs, s.change.pairs.dropped], [5, 0]);
    assert.equal(s.verdict.verdict, 'slower');
    // Wilcoxon with 5 pairs cannot go below 0.0625: no tests-disagree caveat.
    assert.deepEqual(s.verdict.caveats, []);
    assert.match(s.verdict.reason, /paired t p = 5\.1e-5/);
    // what the paired t tests is said: the geometric mean of the ratios, not the ratio of the means
    assert.match(s.verdict.reason, /^\+2\.03 % \(the geometric mean of the per-pair ratios\) \(95 % CI \+1\.7\d* % to \+2\.3\d* %\) lies beyond the ±1 % noise threshold \(one-sided p = [\d.e-]+ that it is within ±1 %/);
    const text = renderText(cmp);
    assert.match(text, /^Design: duet: A and B at once on CPUs 0 and 1, 5 pairs, CPUs swapped every block\.$/m);
    assert.match(text, /^ {2}pairs: 5; B\/A per pair \+2\.03 % on average \(geometric\)/m);
  });

  it('the same units unpaired (processes) find nothing: the shared shifts stay in the test', () => {
    const s = compare({ a: duetRun(1, A, {}, 'processes'), b: duetRun(2, B, {}, 'processes') }).subjects[0]!;
    assert.ok(s.change.test.kind === 'ok' && s.change.test.method === 'welch');
    assert.equal(s.verdict.verdict, 'no difference proven');
  });

  it('drop a unit measured on one side only, and say so', () => {
    const b = duetRun(2, [...B, 140]);
    const s = compare({ a: duetRun(1, A), b }).subjects[0]!;
    assert.deepEqual(s.change.pairs && [s.change.pairs.pairs, s.change.pairs.dropped], [5, 1]);
    assertClose(s.change.changePct, 2.034820823507699, 1e-10);
  });

  it('judge a run stopped by a precision target with the fixed-n paired t, since it stopped on the width of its interval alone', () => {
    const stopping = { stopping: { rule: 'confidence-sequence' as const, alpha: 0.05, precisionPct: 2, reached: true, pairs: 5 } };
    const fixed = compare({ a: duetRun(1, A), b: duetRun(2, B) }).subjects[0]!.change;
    const cmp = compare({ a: duetRun(1, A, stopping), b: duetRun(2, B, stopping) });
    const c = cmp.subjects[0]!.change;
    assert.ok(c.test.kind === 'ok' && c.test.method === 'paired-t' && fixed.test.kind === 'ok');
    assert.deepEqual(c.ciPct, fixed.ciPct);
    assert.equal(c.test.pValue, fixed.test.pValue);
    assert.match(cmp.design.text, /stopped by the ±2 % precision target on the interval's width alone, judged by the fixed-n paired t$/);
  });

  it('say what would reach a 3 % change when nothing is proven: the pairs the paired t needs and the precision target that stops there', () => {
    const sharp = compare({ a: duetRun(1, A), b: duetRun(2, [100.2, 102.9, 98.1, 100.8, 99.6]) }).subjects[0]!;
    assert.match(sharp.verdict.reason, /this run can claim changes beyond about 1\.\d+ %; a change of 3 % would most likely \(power 80 %\) have been claimed here: this one is smaller$/);
    const flat = [100.2, 105.9, 96.1, 100.8, 101.6];
    const s = compare({ a: duetRun(1, A), b: duetRun(2, flat) }).subjects[0]!;
    assert.equal(s.verdict.verdict, 'no difference proven');
    assert.ok(s.power.kind === 'ok' && s.power.advice !== null);
    // 9 pairs at 1.89 % per pair give the one-sided t 80 % power 2 % beyond the threshold; the sequence's half-width there is 5.7 %
    assert.match(s.verdict.reason, /to claim a 3 % change \(power 80 %\), --precision 5\.7% needs about 9 pairs \(spread [\d.]+ % per pair, about \d+ (s|min) here at [\d.]+ s per pair\)$/);
  });
});
