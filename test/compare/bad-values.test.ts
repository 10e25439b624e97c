/**
 * A unit mean of 0 or below, NaN or infinity (a broken probe, a metric that
 * read nothing) gives 'insufficient data' for that subject, saying which
 * run, in every design; the other subjects are judged as usual.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { RunWithRounds } from '../../src/model.ts';
import { makeRun } from './fixtures.ts';

function withDesign(r: RunWithRounds, design: 'alternation'): RunWithRounds {
  const extra = r.params.extra;
  return { ...r, params: { ...r.params, extra: { ...extra, interleave: { ...extra.interleave!, design } } } };
}

const good = [100, 101, 99, 100, 102, 101];
const runs = (bad: number) => ({
  a: makeRun({ id: 1, values: { x: [100, 101, 99, 100, 102, bad], y: [50, 52, 51, 50, 52, 51] }, units: 6 }),
  b: makeRun({ id: 2, values: { x: good, y: [60, 61, 62, 60, 61, 62] }, units: 6 }),
});

describe('values that are not positive and finite', () => {
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`give insufficient data for the subject, not a crash, when a unit mean of A is ${bad} (processes and alternation)`, () => {
      const { a, b } = runs(bad);
      for (const c of [compare({ a, b }), compare({ a: withDesign(a, 'alternation'), b: withDesign(b, 'alternation') })]) {
        const x = c.subjects.find((s) => s.subject === 'x')!;
        assert.equal(x.verdict.verdict, 'insufficient data');
        assert.match(x.verdict.reason, new RegExp(`unit mean of A is ${String(bad)}: % changes and ratios need positive, finite values`));
        assert.equal(c.subjects.find((s) => s.subject === 'y')!.verdict.verdict, 'slower');
        assert.equal(c.multipleComparisons.familySize, 1);
      }
    });
  }

  it('give insufficient data in A/B/A when A2 has a NaN unit', () => {
    const separate = { design: 'separate' as const };
    const a = makeRun({ id: 1, values: { x: good }, units: 3, ...separate });
    const b = makeRun({ id: 2, values: { x: good }, units: 3, ...separate });
    const a2 = makeRun({ id: 3, values: { x: [100, 101, 99, 100, 102, Number.NaN] }, units: 3, ...separate });
    const [x] = compare({ a, b, a2 }).subjects;
    assert.equal(x!.verdict.verdict, 'insufficient data');
    assert.match(x!.verdict.reason, /unit mean of A2 is NaN/);
  });
});
