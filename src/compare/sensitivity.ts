/**
 * How small a change a comparison can see, from the contrast its verdict
 * was judged on (every term that verdict uses: A2, the run-to-run term, the
 * pairing), and, when nothing is proven, what design or budget would reach
 * a change worth claiming.
 */
import { formatSpreadPct } from '../format/percent.ts';
import { fixed, significant } from '../format/numbers.ts';
import { type Sample, stdev } from '../stats/descriptive.ts';
import { studentTQuantile } from '../stats/distributions.ts';
import { detectableNcp } from '../stats/noncentral.ts';
import { pairsNeeded, roundsNeeded } from '../stats/power.ts';
import { insufficient } from '../stats/result.ts';
import { sequenceHalfWidth } from '../stats/sequential.ts';

/** The confidence sequence bounds the mean from this many values on. */
const MIN_SEQUENCE_PAIRS = 3;
import type { Design } from './design.ts';
import type { Contrast, PowerAnalysis, RunSummary } from './types.ts';
import type { ComparisonOptions } from './options.ts';
import { unitCount } from './units.ts';

/** The change the advice aims at when --detect does not name one: the 2-5 % a kernel patch claims. */
export const DEFAULT_TARGET_PCT = 3;

/**
 * The level each subject's tests are held to when it changes alone in its
 * family: Holm's first step, alpha / m. A claim then needs p < alpha / m,
 * so the figures below are what a single changed subject among m reaches.
 */
export function subjectAlpha(options: ComparisonOptions, familySize: number): number {
  return options.correction === 'holm' ? options.alpha / Math.max(1, familySize) : options.alpha;
}

/**
 * Units of replication needed to claim `detectPct` with the stated power, in
 * the judged test's terms: enough for the test of 0 (two-sided) and for the
 * minimum-effect test (one-sided, the change minus the threshold); null when
 * more units cannot help (A/B/A's and abbaab's run-to-run term, a change inside the threshold).
 */
function unitsNeededFor(judged: Contrast, a: RunSummary, b: RunSummary, detectPct: number, options: ComparisonOptions, familySize: number): number | null {
  if (judged.test.kind !== 'ok' || judged.test.method === 'run-level-t' || judged.test.method === 'drift-model-t' || !(detectPct > options.thresholdPct)) return null;
  const alpha = subjectAlpha(options, familySize);
  const rules = [
    { effectPct: detectPct, po: { alpha, power: options.power, sides: 2 as const } },
    { effectPct: detectPct - options.thresholdPct, po: { alpha, power: options.power, sides: 1 as const } },
  ];
  const needed = rules.map(({ effectPct, po }) => {
    if (judged.pairs !== null) {
      const r = pairsNeeded(judged.pairs.sdLogRatio, Math.log(1 + effectPct / 100), po);
      return r.kind === 'ok' ? r.pairs : null;
    }
    const noise = (s: RunSummary) => ({ stdev: s.units >= 2 ? stdev(s.unitMeansInUnit as unknown as Sample) : 0, n: s.units });
    const r = roundsNeeded(noise(a), noise(b), (effectPct / 100) * Math.abs(a.meanInUnit), po);
    return r.kind === 'ok' ? r.rounds : null;
  });
  return needed.some((n) => n === null) ? null : Math.max(...(needed as number[]));
}

/**
 * Power of the judged contrast, for a subject changed alone among
 * `familySize` (Holm's alpha / m). mdePct: the change the test of 0 finds
 * with that power, ncp x its standard error, ncp exact from the noncentral
 * t (src/stats/noncentral.ts), or for the signed-rank test the normal
 * z(1 - alpha/2) + z(power) x the Hodges-Lehmann standard error (simulated
 * at 80 % in test/compare/signed-rank-simulation.test.ts). claimablePct:
 * the change the verdict claims with that power, which also needs the
 * minimum-effect test: threshold + ncp(one-sided) x SE. (threshold + the
 * CI's half-width is where a claim happens only half the time.)
 */
export function powerOf(judged: Contrast, a: RunSummary, b: RunSummary, options: ComparisonOptions, familySize = 1): PowerAnalysis {
  const test = judged.test;
  if (test.kind !== 'ok') return insufficient(test.reason);
  if (!(test.sePct > 0)) return insufficient('zero noise: the power approximation is undefined');
  const alpha = subjectAlpha(options, familySize);
  // the Hodges-Lehmann estimate is near normal with the standard error its interval gives: normal multipliers
  const df = test.method === 'signed-rank' ? Number.POSITIVE_INFINITY : test.df;
  const mdePct = detectableNcp(df, alpha, options.power, 2) * test.sePct;
  const beyondPct = options.thresholdPct + detectableNcp(df, alpha, options.power, 1) * test.sePct;
  return {
    kind: 'ok',
    alpha: options.alpha,
    power: options.power,
    mdePct,
    claimablePct: Math.max(mdePct, beyondPct),
    detectPct: options.detectPct,
    unitsNeeded: options.detectPct === null ? null : unitsNeededFor(judged, a, b, options.detectPct, options, familySize),
    advice: null,
  };
}

function secondsText(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  return `${Math.round(s / 60)} min`;
}

/** The largest precision target of 2 significant digits at or below `pct`: stopping there is never later than planned. */
function precisionBelow(pct: number): number {
  const step = 10 ** (Math.floor(Math.log10(pct)) - 1);
  return Math.floor(pct / step + 1e-9) * step;
}

/**
 * Paired: the precision target that claims `target` with the stated power,
 * and the pairs and seconds it needs here. A run stopped by --precision is
 * judged by the fixed-n paired t (its stopping rule looks at the width of
 * the confidence sequence alone), so the pairs are those the t needs at
 * Holm's alpha / m for the test of 0 and the minimum-effect test, and the
 * target printed is the sequence's half-width at that many pairs (the
 * width bench --precision stops at, src/bench/budget.ts).
 */
function pairedAdvice(judged: Contrast, target: number, options: ComparisonOptions, secondsPerPair: number | null, familySize: number): string {
  if (!(target > options.thresholdPct)) return `a ${target} % change is inside the ±${options.thresholdPct} % noise threshold: it cannot be claimed (lower --threshold for finer changes)`;
  const sd = judged.pairs!.sdLogRatio;
  const alpha = subjectAlpha(options, familySize);
  const gap = Math.log1p(target / 100) - Math.log1p(options.thresholdPct / 100);
  const spread = `spread ${formatSpreadPct(100 * sd)} per pair`;
  const both = [pairsNeeded(sd, Math.log1p(target / 100), { alpha, power: options.power, sides: 2 }), pairsNeeded(sd, gap, { alpha, power: options.power, sides: 1 })];
  if (both.some((r) => r.kind !== 'ok')) return `a ${target} % change needs beyond a million pairs at this spread (${spread})`;
  let n = Math.max(MIN_SEQUENCE_PAIRS, ...both.map((r) => (r.kind === 'ok' ? r.pairs : 0)));
  // so few pairs that the sequence is still unbounded: the run stops no earlier than where it is bounded
  while (!Number.isFinite(sequenceHalfWidth(n, (n - 1) * sd * sd, options.alpha))) n++;
  const precision = precisionBelow(100 * Math.expm1(sequenceHalfWidth(n, (n - 1) * sd * sd, options.alpha)));
  const time = secondsPerPair !== null ? `, about ${secondsText(n * secondsPerPair)} here at ${secondsPerPair < 1 ? significant(secondsPerPair, 2) : fixed(secondsPerPair, 1)} s per pair` : '';
  return `to claim a ${target} % change (power ${Math.round(options.power * 100)} %), --precision ${precision}% needs about ${n} pairs (${spread}${time})`;
}

/** What would reach a `target` % change, for the design that ran (null when the verdict claims or cannot be judged). */
export function adviceOf(judged: Contrast, power: PowerAnalysis, a: RunSummary, b: RunSummary, design: Design, options: ComparisonOptions, secondsPerPair: number | null, familySize = 1): string | null {
  if (judged.test.kind !== 'ok' || power.kind !== 'ok') return null;
  const target = options.detectPct ?? DEFAULT_TARGET_PCT;
  // Already sensitive enough: the change is smaller than the target, not unseen.
  if (power.claimablePct <= target) return `a change of ${target} % would most likely (power ${Math.round(options.power * 100)} %) have been claimed here: this one is smaller`;
  if (judged.pairs !== null) return pairedAdvice(judged, target, options, secondsPerPair, familySize);
  if (judged.test.method === 'run-level-t') {
    return (
      `one A/B/A triple estimates the run-to-run term from A vs A2 alone (1 degree of freedom, t ${fixed(studentTQuantile(1 - options.alpha / 2, 1), 1)}); ` +
      'for power, measure A and B together in one invocation (hintlab bench --label-b: duet or alternation), or boot each kernel 3 or more times (vm --repeat, session --order ABABAB)'
    );
  }
  if (judged.test.method === 'drift-model-t') {
    return 'six runs in ABBAAB order judge the change against the run-to-run variation with 3 degrees of freedom; for more power, measure A and B together in one invocation (hintlab bench --label-b: duet or alternation)';
  }
  const n = unitsNeededFor(judged, a, b, target, options, familySize);
  const more = n === null ? `a ${target} % change needs more units than can be planned at this noise` : `a ${target} % change needs about ${unitCount(a.replicateUnit, n)} per side`;
  const paired = design.kind === 'processes' ? '; a paired design (duet or alternation, docs/compare.md) cancels the noise A and B share' : '';
  return `${more}${paired}`;
}
