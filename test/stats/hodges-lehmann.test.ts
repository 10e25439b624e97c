/**
 * The Hodges-Lehmann estimate and interval and the one-sided signed-rank
 * test, against values computed independently: the n = 10 case by listing
 * every Walsh average and enumerating all 2^10 sign vectors (C = 9, as in
 * Hollander & Wolfe's table of the signed-rank critical values at
 * alpha/2 = 0.024), the n = 80 case by listing all 3240 Walsh averages with
 * numpy and H&W eq. 3.27 for C; one-sided p from scipy.stats.wilcoxon 1.17.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hodgesLehmann, signedRankOneSided, walshOrderStatistic } from '../../src/stats/hodges-lehmann.ts';
import { assertClose as close } from './close.ts';

const TEN = [0.21, -0.05, 0.33, 0.12, 0.48, -0.11, 0.27, 0.09, 0.41, 0.18];
const EIGHTY = [6.1e-05, -0.063345, 0.002029, -0.028481, 0.00993, 0.088064, -0.230748, -0.028055, 0.009715, -0.03124, -0.1102, -0.029985, -0.001284, -0.006022, -0.067076, -0.061635, -0.017681, -0.065714, -0.008034, 0.021803, 0.014516, -0.090442, 0.032362, -0.034288, -0.027488, 0.045852, -0.007957, -0.014746, -0.021042, -0.015859, -0.001033, 0.059799, -0.062837, -0.133801, 0.004223, -0.032259, -0.011036, 0.05245, 0.003611, -0.032817, 0.006849, -0.21571, -0.085196, 0.067524, 0.019477, 0.084292, -0.015507, -0.031523, -0.0753, -0.005907, -0.046172, 0.000543, -0.120091, -0.068667, -0.02518, -0.01637, 0.042123, -0.035025, -0.01518, 0.097739, -0.002386, 0.041366, 0.000792, 0.028891, 0.036393, 0.022218, 0.065568, -0.049619, 0.024942, -0.195928, -0.057878, -0.091312, 0.003471, -0.016129, 0.029504, -0.07884, -0.046041, 0.017383, -0.054912, -0.001937];

describe('Hodges-Lehmann', () => {
  it('gives the median Walsh average and the exact 95 % interval [W(9), W(47)] for 10 untied values', () => {
    const hl = hodgesLehmann(TEN, 0.95);
    if (hl.kind !== 'ok') throw new Error(hl.reason);
    close(hl.estimate, 0.195, 1e-12);
    close(hl.low, 0.05, 1e-12);
    close(hl.high, 0.33, 1e-12);
    assert.equal(hl.method, 'exact');
  });

  it('uses the normal approximation beyond 50 values: C = 1211 of 3240 Walsh averages for 80', () => {
    const hl = hodgesLehmann(EIGHTY, 0.95);
    if (hl.kind !== 'ok') throw new Error(hl.reason);
    close(hl.estimate, -0.01557375, 1e-12);
    close(hl.low, -0.0279245, 1e-12);
    close(hl.high, -0.004659, 1e-12);
    assert.equal(hl.method, 'normal-approximation');
  });

  it('selects every Walsh average in order without listing them', () => {
    const sorted = [...EIGHTY].sort((a, b) => a - b);
    const all: number[] = [];
    for (let i = 0; i < sorted.length; i++) for (let j = i; j < sorted.length; j++) all.push((sorted[i]! + sorted[j]!) / 2);
    all.sort((a, b) => a - b);
    for (const k of [1, 2, 500, 1211, 1620, 1621, 2030, 3239, 3240]) assert.equal(walshOrderStatistic(sorted, k), all[k - 1]);
  });

  it('says when too few pairs cannot reach the level', () => {
    const hl = hodgesLehmann([0.1, 0.2, 0.3, 0.4, 0.5], 0.95);
    assert.ok(hl.kind === 'insufficient-data');
    assert.match(hl.reason, /5 pairs cannot give a 95 % signed-rank interval: the smallest two-sided p they allow is 0\.06/);
  });
});

describe('the one-sided signed-rank test', () => {
  it('matches scipy exactly for 10 values and by the normal approximation for 80', () => {
    close(signedRankOneSided(TEN, 0.1, 'greater'), 0.080078125, 1e-12);
    close(signedRankOneSided(TEN, 0.305, 'less'), 0.052734375, 1e-12);
    close(signedRankOneSided(EIGHTY, 0, 'greater'), 0.9974340330981901, 1e-9);
  });
});
