/** Welch's t-test and the Mann-Whitney U test against scipy.stats 1.17. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mannWhitneyU, welchTTest } from '../../src/stats/tests.ts';
import { assertClose } from './close.ts';

const A = [19.1, 20.3, 18.7, 21.2, 20.0, 19.6, 20.9];
const B = [21.4, 22.9, 20.8, 23.5, 22.1];

describe("Welch's t-test", () => {
  it('gives t, the Welch-Satterthwaite df and p (scipy ttest_ind(B, A, equal_var=False))', () => {
    // statistic=3.626842399375563, pvalue=0.007157897954696196, df=7.704705701143818
    const r = welchTTest(A, B);
    assert.equal(r.kind, 'ok');
    assertClose(r.t, 3.626842399375563);
    assertClose(r.df, 7.704705701143818);
    assertClose(r.pValue, 0.007157897954696196, 1e-11);
  });

  it('agrees on larger unequal samples', () => {
    const a = Array.from({ length: 30 }, (_, i) => 100 + ((i * 37) % 17) / 3);
    const b = Array.from({ length: 25 }, (_, i) => 101 + ((i * 29) % 13) / 2.5);
    // ttest_ind(b, a, equal_var=False): statistic=1.6894155157583277, pvalue=0.09704439385845284, df=52.73596204138484
    const r = welchTTest(a, b);
    assert.equal(r.kind, 'ok');
    assertClose(r.t, 1.6894155157583277, 1e-10);
    assertClose(r.df, 52.73596204138484, 1e-10);
    assertClose(r.pValue, 0.09704439385845284, 1e-10);
  });

  it('says insufficient data for one round, and for zero variance in both runs', () => {
    assert.equal(welchTTest([1], [2, 3]).kind, 'insufficient-data');
    const flat = welchTTest([5, 5, 5], [6, 6, 6]);
    assert.equal(flat.kind, 'insufficient-data');
    assert.match(flat.reason, /zero variance/);
  });
});

describe('Mann-Whitney U', () => {
  it('counts U by hand and uses the exact distribution: {4,5,6} vs {1,2,3} has U = 9, p = 2/20', () => {
    const r = mannWhitneyU([1, 2, 3], [4, 5, 6]);
    assert.deepEqual(r, { kind: 'ok', u: 9, pValue: 0.1, method: 'exact', ties: false });
  });

  it('matches scipy mannwhitneyu(B, A, method="exact") without ties', () => {
    // statistic=33.0, pvalue=0.010101010101010102
    const r = mannWhitneyU(A, B);
    assert.equal(r.kind, 'ok');
    assert.equal(r.u, 33);
    assert.equal(r.method, 'exact');
    assertClose(r.pValue, 0.010101010101010102);
  });

  it('keeps the exact distribution for 20 vs 25 rounds (scipy method="exact")', () => {
    const a = Array.from({ length: 20 }, (_, i) => 100 + ((i * 37) % 41) + i / 100);
    const b = Array.from({ length: 25 }, (_, i) => 111.5 + ((i * 29) % 43) + i / 1000);
    // mannwhitneyu(b, a, method='exact'): statistic=354.0, pvalue=0.016999917580823948
    const r = mannWhitneyU(a, b);
    assert.equal(r.kind, 'ok');
    assert.equal(r.u, 354);
    assert.equal(r.method, 'exact');
    assertClose(r.pValue, 0.016999917580823948, 1e-12);
  });

  it('corrects for ties with the normal approximation and continuity (scipy method="asymptotic")', () => {
    // mannwhitneyu([3,4,4,5,5,6,7], [1,2,2,3,3,3,4,5], method='asymptotic'): statistic=48.5, pvalue=0.018530522991017574
    const r = mannWhitneyU([1, 2, 2, 3, 3, 3, 4, 5], [3, 4, 4, 5, 5, 6, 7]);
    assert.equal(r.kind, 'ok');
    assert.equal(r.u, 48.5);
    assert.equal(r.ties, true);
    assert.equal(r.method, 'normal-approximation');
    assertClose(r.pValue, 0.018530522991017574, 1e-12);
  });

  it('is symmetric: swapping the samples gives U = n1 n2 - U and the same p', () => {
    const ab = mannWhitneyU(A, B);
    const ba = mannWhitneyU(B, A);
    assert.ok(ab.kind === 'ok' && ba.kind === 'ok');
    assert.equal(ab.u + ba.u, A.length * B.length);
    assert.equal(ab.pValue, ba.pValue);
  });

  it('says insufficient data when every value is the same', () => {
    assert.equal(mannWhitneyU([3, 3], [3, 3, 3]).kind, 'insufficient-data');
  });
});
