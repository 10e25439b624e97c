/** A/B/A: drift of the baseline, B against pooled A+A2 and against their midpoint. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import { withDrift } from '../../src/compare/verdict.ts';
import { assertClose } from '../stats/close.ts';
import { makeRun } from './fixtures.ts';

const A = [100, 101, 99, 100, 100, 102, 98];
const shift = (d: number) => A.map((x) => x + d);

describe('A/B/A', () => {
  it('with a stable baseline keeps the verdict and judges the drift on its own', () => {
    const cmp = compare({
      a: makeRun({ id: 1, values: { x: A } }),
      b: makeRun({ id: 2, values: { x: shift(10) } }),
      a2: makeRun({ id: 3, values: { x: shift(0.1) } }),
    });
    const s = cmp.subjects[0]!;
    assert.equal(s.drift.kind, 'measured');
    assertClose(s.drift.drift.changePct, 0.1, 1e-9);
    assert.equal(s.drift.driftVerdict.verdict, 'no difference proven');
    assert.equal(s.drift.driftAsLargeAsChange, false);
    // Pooled baseline mean (700 + 700.7) / 14 = 100.05; midpoint (100 + 100.1) / 2 = 100.05.
    assertClose(s.drift.vsPooled.baselineMeanInUnit, 100.05, 1e-12);
    assertClose(s.drift.vsMidpoint.midpointInUnit, 100.05, 1e-12);
    assertClose(s.drift.vsMidpoint.changePct, 100 * (110 / 100.05 - 1), 1e-12);
    assert.equal(s.verdict.verdict, 'slower');
    assert.deepEqual(s.verdict.caveats, []);
  });

  it('when the baseline drifts as much as the change, the run-to-run variation it shows keeps B from a claim', () => {
    // Schema 2 judged B vs A (+10 %) and overruled it with the drift rule; B vs A+A2 now carries
    // the run-to-run variation A and A2 revealed, and its test no longer rejects.
    const cmp = compare({
      a: makeRun({ id: 1, values: { x: A } }),
      b: makeRun({ id: 2, values: { x: shift(10) } }),
      a2: makeRun({ id: 3, values: { x: shift(10) } }),
    });
    const s = cmp.subjects[0]!;
    assert.equal(s.judgedOn, 'B vs A+A2');
    assert.equal(s.verdict.verdict, 'no difference proven');
    assert.match(s.verdict.reason, /is not below alpha 0\.05/);
    // A run's level scatters by |A2 - A| / sqrt 2 = 7.071 (its shift and its units' noise, never clipped) of the midpoint 105: 6.73 %
    assert.match(s.verdict.reason, /run-to-run variation from A and A2: 6\.73 % per run, 1 degree of freedom\)/);
    assert.equal(s.change.test.kind === 'ok' && s.change.test.pValue < 1e-6, true, 'B vs A alone looks certain');
    assert.equal(s.drift.kind === 'measured' && s.drift.driftVerdict.verdict, 'slower');
    // Midpoint 105: B at 110 is +4.76 %.
    assert.equal(s.drift.kind === 'measured' && s.drift.vsMidpoint.midpointInUnit, 105);
    assert.deepEqual(cmp.regressions, []);
  });

  it('says the drift is insufficient data when A2 did not measure the subject', () => {
    const cmp = compare({
      a: makeRun({ id: 1, values: { x: A } }),
      b: makeRun({ id: 2, values: { x: A } }),
      a2: makeRun({ id: 3, values: { other: A } }),
    });
    assert.deepEqual(cmp.subjects[0]!.drift, { kind: 'insufficient-data', reason: 'not measured in A2' });
    assert.deepEqual(cmp.notCompared, [{ subject: 'other', presentIn: ['A2'] }]);
  });
});

describe('the drift rule', () => {
  it('turns a claim into no difference proven when A2 moved as far as B did', () => {
    const cmp = compare({ a: makeRun({ id: 1, values: { x: A } }), b: makeRun({ id: 2, values: { x: shift(10) } }) });
    const drift = compare({ a: makeRun({ id: 1, values: { x: A } }), b: makeRun({ id: 3, values: { x: shift(-11) } }) }).subjects[0]!.change;
    const s = cmp.subjects[0]!;
    assert.equal(s.verdict.verdict, 'slower');
    const v = withDrift(s.verdict, s.change, drift);
    assert.equal(v.verdict, 'no difference proven');
    assert.deepEqual(v.caveats, ['drift-as-large-as-change']);
    assert.match(v.reason, /B vs A is \+10\.00 % but the baseline drifted -11\.00 % between A and A2/);
    assert.match(v.reason, /without A2 it would read 'slower'/);
  });
});
