/** Paired t and Wilcoxon signed-rank against scipy.stats. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pairedTTest, wilcoxonSignedRank } from '../../src/stats/paired.ts';
import { assertClose } from './close.ts';

const A = [100.0, 103.0, 98.0, 101.0, 99.5];
const B = [102.1, 104.9, 100.2, 103.3, 101.2];
const D = A.map((a, k) => Math.log(B[k]! / a));

describe('paired t-test', () => {
  it('matches scipy.stats.ttest_1samp on log ratios: t 18.386250082430315, p 5.148280391269426e-05, df 4', () => {
    const r = pairedTTest(D);
    assert.equal(r.kind, 'ok');
    assertClose(r.estimate, 0.02014394966169763, 1e-12);
    assertClose(r.t, 18.386250082430315, 1e-10);
    assertClose(r.pValue, 5.148280391269426e-5, 1e-8);
    assert.equal(r.df, 4);
  });

  it('needs two pairs and some spread', () => {
    assert.equal(pairedTTest([0.1]).kind, 'insufficient-data');
    assert.equal(pairedTTest([0.5, 0.5, 0.5]).kind, 'insufficient-data');
  });
});

describe('Wilcoxon signed-rank', () => {
  it('is exact without ties: 5 positive pairs give p = 2/2^5 = 0.0625 (scipy.stats.wilcoxon, exact)', () => {
    const r = wilcoxonSignedRank(D);
    assert.deepEqual(r, { kind: 'ok', wPlus: 15, pValue: 0.0625, method: 'exact', minPValue: 0.0625 });
  });

  it('uses the tie-corrected normal approximation with ties: p 0.040760253910569304 (scipy, approx, correction=True)', () => {
    const r = wilcoxonSignedRank([0.3, -0.1, 0.45, 0.2, 0.05, -0.25, 0.6, 0.15, 0.1, 0.35, 0.22]);
    assert.equal(r.kind, 'ok');
    assert.equal(r.method, 'normal-approximation');
    assertClose(r.pValue, 0.040760253910569304, 1e-12);
  });
});
