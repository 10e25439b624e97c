/**
 * One contrast (B vs A, A2 vs A, B vs A+A2) at the level of units of
 * replication: means of unit means, Welch's test and Mann-Whitney on unit
 * means, a hierarchical bootstrap interval, and with A/B/A the run-to-run
 * variation A and A2 revealed. The round-level Welch test is kept beside
 * them for reference; it never decides a verdict.
 */
import { type Units, hierarchicalBootstrapChangePct, meanOfUnitMeans, unitMeans } from '../stats/bootstrap.ts';
import { studentTQuantile } from '../stats/distributions.ts';
import type { Interval, InsufficientData } from '../stats/result.ts';
import { type WelchTest, mannWhitneyU, welchTTest } from '../stats/tests.ts';
import type { ComparisonOptions, Contrast, RunRole, RunToRun } from './types.ts';

/**
 * Widen a bootstrap interval by the run-to-run standard error, each side
 * combined in quadrature with q x addedSePct, where q is the t quantile at
 * the test's degrees of freedom (which count the run term's single one).
 */
function widened(ci: Interval | InsufficientData, runToRun: RunToRun, changePct: number, welch: WelchTest): Interval | InsufficientData {
  if (ci.kind !== 'ok' || runToRun.kind !== 'from-a2' || runToRun.addedSePct === 0) return ci;
  if (welch.kind !== 'ok') return welch;
  const q = studentTQuantile((1 + ci.level) / 2, welch.df) * runToRun.addedSePct;
  const low = changePct - Math.hypot(changePct - ci.low, q);
  const high = changePct + Math.hypot(ci.high - changePct, q);
  return { ...ci, low, high };
}

/** A contrast of `candidate` against `baseline` (one run, or A and A2 pooled unit by unit). */
export function contrastOf(
  baselineRole: Contrast['baseline'],
  baselineRuns: readonly Units[],
  candidateRole: RunRole,
  candidate: Units,
  options: ComparisonOptions,
  runToRun: RunToRun = { kind: 'not-estimated' },
): Contrast {
  const baseLevel = meanOfUnitMeans(baselineRuns);
  const candLevel = meanOfUnitMeans([candidate]);
  const changePct = 100 * (candLevel / baseLevel - 1);
  const baseUnitMeans = baselineRuns.flatMap(unitMeans);
  const candUnitMeans = unitMeans(candidate);
  const runSe = runToRun.kind === 'from-a2' ? (runToRun.addedSePct / 100) * Math.abs(baseLevel) : 0;
  const welch = welchTTest(baseUnitMeans, candUnitMeans, { variance: runSe * runSe, df: 1 });
  const ci = hierarchicalBootstrapChangePct(baselineRuns, candidate, {
    resamples: options.bootstrapResamples,
    seed: options.bootstrapSeed,
    level: options.confidenceLevel,
  });
  return {
    candidate: candidateRole,
    baseline: baselineRole,
    baselineMeanInUnit: baseLevel,
    candidateMeanInUnit: candLevel,
    changeInUnit: candLevel - baseLevel,
    changePct,
    ratio: candLevel / baseLevel,
    ciPct: widened(ci, runToRun, changePct, welch),
    units: { baseline: baseUnitMeans.length, candidate: candUnitMeans.length },
    welch,
    mannWhitney: mannWhitneyU(baseUnitMeans, candUnitMeans),
    roundWelch: welchTTest(baselineRuns.flat(2), candidate.flat()),
    runToRun,
    // Filled in by correctFamily once every subject's contrast of this kind is known.
    adjusted: { kind: 'not-tested', reason: 'not yet corrected' },
  };
}
