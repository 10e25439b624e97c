/** The one-way random-effects ANOVA and the F distribution against scipy.stats 1.17 reference values. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fCdf, fQuantile, oneWayRandomEffects } from '../../src/stats/variance-components.ts';
import { assertClose } from './close.ts';

describe('F distribution', () => {
  it('gives the published CDF and quantiles (scipy.stats.f)', () => {
    assertClose(fCdf(2.5, 3, 20), 0.9111562480623107); // f.cdf(2.5, 3, 20)
    assertClose(fQuantile(0.975, 4, 15), 3.8042713418410044); // f.ppf(0.975, 4, 15)
    assertClose(fQuantile(0.025, 599, 14400), 0.8879898629011783); // f.ppf(0.025, 599, 14400)
    assertClose(fQuantile(0.975, 599, 14400), 1.1191381581432136); // f.ppf(0.975, 599, 14400)
  });
});

describe('one-way random-effects ANOVA', () => {
  const groups = [[1, 2, 3], [4, 5, 7], [2, 2, 5], [8, 6, 7]];

  it('gives the mean squares, F and p of scipy.stats.f_oneway and the variance components by moments', () => {
    const r = oneWayRandomEffects(groups);
    if (r.kind !== 'ok') return assert.fail(r.reason);
    assertClose(r.msBetween, 15.333333333333334);
    assertClose(r.msWithin, 1.8333333333333333);
    assertClose(r.f, 8.36363636363635); // f_oneway statistic
    assertClose(r.pValue, 0.007547897768976186, 1e-9); // f_oneway pvalue
    assertClose(r.sigma2Between, 4.5);
    assert.deepEqual([r.dfBetween, r.dfWithin], [3, 8]);
  });

  it('bounds the ratio of the components with the F quantiles (Searle et al. 1992, 3.5d)', () => {
    const r = oneWayRandomEffects(groups);
    if (r.kind !== 'ok') return assert.fail(r.reason);
    assertClose(r.ratio.low, 0.18141891439096636); // (F / f.ppf(0.975, 3, 8) - 1) / 3
    assertClose(r.ratio.high, 40.202108014496545); // (F / f.ppf(0.025, 3, 8) - 1) / 3
  });

  it('clips a bound below zero at zero and keeps the negative moment estimate', () => {
    const r = oneWayRandomEffects([[1, 3], [1, 3], [1, 3]]);
    if (r.kind !== 'ok') return assert.fail(r.reason);
    assert.equal(r.ratio.low, 0);
    assert.ok(r.sigma2Between < 0);
  });

  it('says why it cannot judge unbalanced, single or constant groups', () => {
    assert.equal(oneWayRandomEffects([[1, 2], [1, 2, 3]]).kind, 'insufficient-data');
    assert.equal(oneWayRandomEffects([[1, 2]]).kind, 'insufficient-data');
    assert.equal(oneWayRandomEffects([[1, 1], [2, 2]]).kind, 'insufficient-data');
  });
});
