/**
 * A/B/A of three separate runs: B against the midpoint of A and A2, with the
 * RUN as the observation of the between-run term.
 *
 * Every unit of a run shares the run's shift (load, frequency, placement),
 * so a run's level is level_X = mu_X + r_X + e_X, r_X ~ N(0, s²_run) for
 * the run and e_X ~ N(0, s²_unit / n_X) for its units. Then
 *   B - (A + A2)/2 ~ N(mu_B - mu_A, (1 + 1/2) (s²_run + s²_unit / n)),
 *   d = A2 - A     ~ N(0, 2 (s²_run + s²_unit / n)),
 * independent, so T = (B - (A + A2)/2) / sqrt(3/4 d²) is exactly Student's
 * t with ONE degree of freedom under H0, whatever s²_run is (the classic
 * ratio of two independent normals of known variance ratio). With units of
 * unequal noise B's own excess unit variance is added,
 * max(0, se²_B - (se²_A + se²_A2)/2), which only widens. (A floor at what
 * the units alone give, se²_B + (se²_A + se²_A2)/4, would also hold the
 * level, but cut the power at +3 unit SDs without run shifts from 16 % to
 * 0.5 % in simulation: it is not used.)
 *
 * Why not Welch-Satterthwaite with an estimated run term (schema 3-5, and
 * the first attempt here): its df are random and small exactly when d² is,
 * so the test is too liberal when runs shift more than their units' noise:
 * 9.5-11.3 % (schema 5's clipped estimate) and 7.8-10.7 % (unclipped) false
 * claims at alpha 5 % in simulation; the 1-df test stays at 2.8-4.7 %
 * (docs/compare-designs.md). The price: t(0.975, 1) = 12.7, so one A/B/A triple
 * claims only a change of about 15 run-level standard deviations. Designs
 * with power measure A and B together (duet, alternation) or take boots as
 * units; the verdict says so.
 */
import { type Units, meanOfUnitMeans, unitMeans } from '../stats/bootstrap.ts';
import { type Sample, variance } from '../stats/descriptive.ts';
import { studentTSf } from '../stats/distributions.ts';
import { insufficient } from '../stats/result.ts';
import { beyondThresholdT, contrastBase, differenceIntervalPct, levelBounds, mannWhitneyRank, unusableLevels } from './contrast.ts';
import type { Contrast } from './types.ts';
import type { BeyondThreshold, ContrastTest } from './test-types.ts';
import type { ComparisonOptions } from './options.ts';

/** se² of a run's level from its unit means: s² / n (0 for one unit). */
function levelVariance(units: Units): number {
  const means = unitMeans(units);
  return means.length >= 2 ? variance(means as unknown as Sample) / means.length : 0;
}

/** B vs (A + A2)/2 on run levels, t with 1 df (see the file comment). */
export function runLevelContrast(a: Units, a2: Units, b: Units, options: ComparisonOptions): Contrast {
  const levelA = meanOfUnitMeans([a]);
  const levelA2 = meanOfUnitMeans([a2]);
  const mid = (levelA + levelA2) / 2;
  const levelB = meanOfUnitMeans([b]);
  const d = levelA2 - levelA;
  const excessB = Math.max(0, levelVariance(b) - (levelVariance(a) + levelVariance(a2)) / 2);
  const v = 0.75 * d * d + excessB;
  const df = 1;
  const diff = levelB - mid;
  const unusable = unusableLevels([['A', unitMeans(a)], ['A2', unitMeans(a2)], ['B', unitMeans(b)]]);
  let test: ContrastTest = insufficient(unusable ?? 'A2 has exactly the level of A and B no more unit noise than they: the run-to-run term is 0, t is undefined');
  let ciPct: Contrast['ciPct'] = test;
  let beyondThreshold: BeyondThreshold = test;
  if (unusable === null && v > 0) {
    const se = Math.sqrt(v);
    const t = diff / se;
    test = { kind: 'ok', method: 'run-level-t', t, df, pValue: Math.min(1, 2 * studentTSf(Math.abs(t), df)), sePct: (100 * se) / Math.abs(mid) };
    ciPct = differenceIntervalPct(diff, se, df, mid, options.confidenceLevel);
    beyondThreshold = beyondThresholdT(diff, se, df, levelBounds(options.thresholdPct, mid), options.thresholdPct);
  }
  const baseMeans = [...unitMeans(a), ...unitMeans(a2)];
  return {
    ...contrastBase('A+A2', 'B', mid, levelB, [[...a.flat(), ...a2.flat()], b.flat()]),
    ciPct,
    beyondThreshold,
    units: { baseline: baseMeans.length, candidate: b.length },
    test,
    rank: mannWhitneyRank(baseMeans, unitMeans(b)),
    pairs: null,
    runToRun: { kind: 'from-a2', runSdPct: (100 * Math.abs(d)) / Math.SQRT2 / Math.abs(mid), df },
  };
}
