/**
 * The family-wise correction inside compare(): verdicts use Holm-adjusted
 * Welch p-values over every subject tested, for B vs A and for the A2 vs A
 * drift. Raw p-values from scipy 1.17 (ttest_ind(B, A, equal_var=False),
 * mannwhitneyu(B, A, method='asymptotic')); the adjustment worked out by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { AdjustedP, Comparison } from '../../src/compare/types.ts';
import type { Correction } from '../../src/compare/options.ts';
import { assertClose } from '../stats/close.ts';
import { makeRun } from './fixtures.ts';

const A = [100, 101, 99, 100, 100, 102, 98];
const shift = (d: number) => A.map((x) => x + d);

/** Raw p-values of A + d against A (scipy). */
const WELCH = { x: 0.022866976372888478, y: 0.48260562224342757, z: 0.6714654389986606 };
const MWU = { x: 0.07110738721764812, y: 0.4392372521243423, z: 0.4392372521243423 };
/**
 * Holm over the three: x 3 x 0.022867 = 0.068601; y max(0.068601, 2 x 0.482606) = 0.965211;
 * z max(0.965211, 1 x 0.671465) = 0.965211. Mann-Whitney: x 3 x 0.071107 = 0.213322;
 * y and z (tied) 2 x 0.439237 = 0.878474.
 */
const HOLM_WELCH = { x: 3 * WELCH.x, y: 2 * WELCH.y, z: 2 * WELCH.y };
const HOLM_MWU = { x: 3 * MWU.x, y: 2 * MWU.y, z: 2 * MWU.y };

/** x moves 1.8 (p 0.023), y 0.5, z -0.3; `short` has 3 rounds, too few to be tested. */
function abComparison(correction: Correction): Comparison {
  const a = makeRun({ id: 1, values: { x: A, y: A, z: A, short: [10, 11, 12] } });
  const b = makeRun({ id: 2, values: { x: shift(1.8), y: shift(0.5), z: shift(-0.3), short: [20, 21, 22] } });
  return compare({ a, b }, { correction, thresholdPct: 0, bootstrapResamples: 2000 });
}

function adjustedOf(a: AdjustedP): { welch: number; mwu: number | null; familySize: number } {
  assert.equal(a.kind, 'adjusted');
  return { welch: a.pValue, mwu: a.rankPValue, familySize: a.familySize };
}

describe('family-wise correction in compare', () => {
  it("adjusts each subject's Welch and Mann-Whitney p by Holm over the three subjects tested", () => {
    const cmp = abComparison('holm');
    assert.deepEqual(cmp.multipleComparisons, { correction: 'holm', familySize: 3, driftFamilySize: null });
    for (const name of ['x', 'y', 'z'] as const) {
      const s = cmp.subjects.find((x) => x.subject === name)!;
      const adj = adjustedOf(s.change.adjusted);
      assert.equal(adj.familySize, 3);
      assertClose(adj.welch, HOLM_WELCH[name], 1e-9, `${name} Welch`);
      assertClose(adj.mwu!, HOLM_MWU[name], 1e-9, `${name} Mann-Whitney`);
      // The raw p stays where it was.
      assert.equal(s.change.test.kind, 'ok');
      assertClose(s.change.test.pValue, WELCH[name], 1e-9);
    }
    const short = cmp.subjects.find((x) => x.subject === 'short')!;
    assert.equal(short.change.adjusted.kind, 'not-tested');
    assert.equal(short.verdict.verdict, 'insufficient data');
  });

  it('turns a raw p of 0.023 into no difference proven (adjusted 0.069), and says both in the reason', () => {
    const x = abComparison('holm').subjects.find((s) => s.subject === 'x')!;
    assert.equal(x.verdict.verdict, 'no difference proven');
    // Nothing proven: the reason goes on to say what this run can claim and what would reach 3 %.
    assert.match(x.verdict.reason, /^Welch p = 0\.023 \(Holm-adjusted over 3 subjects: 0\.069\) is not below alpha 0\.05; this run can claim changes beyond about \d/);
    // Adjusted, neither test is significant: no disagreement (raw, Welch 0.023 and Mann-Whitney 0.071 disagree).
    assert.deepEqual(x.verdict.caveats, []);
  });

  it('with --correction none judges each subject on its raw p, as before', () => {
    const cmp = abComparison('none');
    assert.deepEqual(cmp.multipleComparisons, { correction: 'none', familySize: 3, driftFamilySize: null });
    const x = cmp.subjects.find((s) => s.subject === 'x')!;
    assertClose(adjustedOf(x.change.adjusted).welch, WELCH.x, 1e-9);
    assert.equal(x.verdict.verdict, 'slower');
    assert.match(x.verdict.reason, /, Welch p = 0\.023$/);
    assert.deepEqual(x.verdict.caveats, ['tests-disagree']);
    assert.deepEqual(cmp.regressions, ['x']);
  });

  it('corrects the A2 vs A drift verdicts over their own family', () => {
    const run = (id: number, d: { x: number; y: number; z: number }) =>
      makeRun({ id, values: { x: shift(d.x), y: shift(d.y), z: shift(d.z) } });
    const input = { a: run(1, { x: 0, y: 0, z: 0 }), b: run(2, { x: 10, y: 10, z: 10 }), a2: run(3, { x: 1.8, y: 0.5, z: -0.3 }) };
    const holm = compare(input, { thresholdPct: 0, bootstrapResamples: 2000 });
    const none = compare(input, { thresholdPct: 0, bootstrapResamples: 2000, correction: 'none' });
    assert.deepEqual(holm.multipleComparisons, { correction: 'holm', familySize: 3, driftFamilySize: 3 });
    const driftOf = (cmp: Comparison) => {
      const d = cmp.subjects.find((s) => s.subject === 'x')!.drift;
      assert.equal(d.kind, 'measured');
      return d;
    };
    assertClose(adjustedOf(driftOf(holm).drift.adjusted).welch, HOLM_WELCH.x, 1e-9);
    assert.equal(driftOf(holm).driftVerdict.verdict, 'no difference proven');
    assert.equal(driftOf(none).driftVerdict.verdict, 'slower');
    // B vs A+A2 is its own family too, of three subjects.
    assert.equal(adjustedOf(driftOf(holm).vsPooled.adjusted).familySize, 3);
  });

  it('leaves a single subject unchanged: the adjusted p is the raw p', () => {
    const cmp = compare({ a: makeRun({ id: 1, values: { x: A } }), b: makeRun({ id: 2, values: { x: shift(1.8) } }) }, { thresholdPct: 0 });
    const x = cmp.subjects[0]!;
    assert.equal(adjustedOf(x.change.adjusted).welch, (x.change.test as { pValue: number }).pValue);
    assert.equal(x.verdict.verdict, 'slower');
    assert.match(x.verdict.reason, /Welch p = 0\.023 \(Holm-adjusted over 1 subject: 0\.023\)$/);
  });
});
