/**
 * How small a change a comparison can see, from the contrast its verdict
 * was judged on (every term that verdict uses: A2, the run-to-run term, the
 * pairing), and, when nothing is proven, what design or budget would reach
 * a change worth claiming.
 */
import { formatSpreadPct } from '../format/percent.ts';
import type { Sample } from '../stats/descriptive.ts';
import { stdev } from '../stats/descriptive.ts';
import { studentTQuantile } from '../stats/distributions.ts';
import { pairsNeeded, roundsNeeded } from '../stats/power.ts';
import { insufficient } from '../stats/result.ts';
import { valuesForHalfWidth } from '../stats/sequential.ts';
import type { Design } from './design.ts';
import type { ComparisonOptions, Contrast, PowerAnalysis, RunSummary } from './types.ts';
import { unitCount } from './units.ts';

/** The change the advice aims at when --detect does not name one: the 2-5 % a kernel patch claims. */
export const DEFAULT_TARGET_PCT = 3;

/** Units of replication needed to detect `detectPct`, in the judged test's terms; null when more units cannot help. */
function unitsNeededFor(judged: Contrast, a: RunSummary, b: RunSummary, detectPct: number, options: ComparisonOptions): number | null {
  const po = { alpha: options.alpha, power: options.power };
  if (judged.test.kind !== 'ok' || judged.test.method === 'run-level-t') return null;
  if (judged.pairs !== null) {
    const r = pairsNeeded(judged.pairs.sdLogRatio, Math.log(1 + detectPct / 100), po);
    return r.kind === 'ok' ? r.pairs : null;
  }
  const noise = (s: RunSummary) => ({ stdev: s.units >= 2 ? stdev(s.unitMeansInUnit as unknown as Sample) : 0, n: s.units });
  const r = roundsNeeded(noise(a), noise(b), (detectPct / 100) * Math.abs(a.meanInUnit), po);
  return r.kind === 'ok' ? r.rounds : null;
}

/**
 * Power of the judged contrast: mdePct = (t(1 - alpha/2, df) + t(power, df))
 * x its standard error (Julious 2004, as src/stats/power.ts), and the
 * claimable floor: a claim needs the whole interval beyond ±threshold, so
 * nothing smaller than threshold + the interval's half-width can be claimed.
 */
export function powerOf(judged: Contrast, a: RunSummary, b: RunSummary, options: ComparisonOptions): PowerAnalysis {
  const test = judged.test;
  if (test.kind !== 'ok') return insufficient(test.reason);
  if (!(test.sePct > 0)) return insufficient('zero noise: the power approximation is undefined');
  const mdePct = (studentTQuantile(1 - options.alpha / 2, test.df) + studentTQuantile(options.power, test.df)) * test.sePct;
  const half = judged.ciPct.kind === 'ok' ? (judged.ciPct.high - judged.ciPct.low) / 2 : 0;
  return {
    kind: 'ok',
    alpha: options.alpha,
    power: options.power,
    mdePct,
    claimablePct: Math.max(mdePct, options.thresholdPct + half),
    detectPct: options.detectPct,
    unitsNeeded: options.detectPct === null ? null : unitsNeededFor(judged, a, b, options.detectPct, options),
    advice: null,
  };
}

function secondsText(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  return `${Math.round(s / 60)} min`;
}

/** Paired: the precision target that claims `target` and the pairs and seconds it needs here (from the confidence sequence). */
function pairedAdvice(judged: Contrast, target: number, options: ComparisonOptions, secondsPerPair: number | null): string {
  const precision = target - options.thresholdPct;
  if (!(precision > 0)) return `a ${target} % change is inside the ±${options.thresholdPct} % noise threshold: it cannot be claimed (lower --threshold for finer changes)`;
  const sd = judged.pairs!.sdLogRatio;
  const n = valuesForHalfWidth(sd, Math.log(1 + precision / 100), options.alpha);
  if (n === null) return `a ${target} % change needs --precision ${precision}%, beyond a million pairs at this spread (${formatSpreadPct(100 * sd)} per pair)`;
  const time = secondsPerPair !== null ? `, about ${secondsText(n * secondsPerPair)} here at ${secondsPerPair < 1 ? secondsPerPair.toPrecision(2) : secondsPerPair.toFixed(1)} s per pair` : '';
  return `to claim a ${target} % change, --precision ${precision}% needs about ${n} pairs (spread ${formatSpreadPct(100 * sd)} per pair${time})`;
}

/** What would reach a `target` % change, for the design that ran (null when the verdict claims or cannot be judged). */
export function adviceOf(judged: Contrast, a: RunSummary, b: RunSummary, design: Design, options: ComparisonOptions, secondsPerPair: number | null): string | null {
  if (judged.test.kind !== 'ok') return null;
  const target = options.detectPct ?? DEFAULT_TARGET_PCT;
  if (judged.pairs !== null) return pairedAdvice(judged, target, options, secondsPerPair);
  if (judged.test.method === 'run-level-t') {
    return (
      `one A/B/A triple estimates the run-to-run term from A vs A2 alone (1 degree of freedom, t ${studentTQuantile(1 - options.alpha / 2, 1).toFixed(1)}); ` +
      'for power, measure A and B together in one invocation (hintlab bench --label-b: duet or alternation), or boot each kernel 3 or more times (vm --repeat, session --order ABABAB)'
    );
  }
  const n = unitsNeededFor(judged, a, b, target, options);
  const more = n === null ? `a ${target} % change needs more units than can be planned at this noise` : `a ${target} % change needs about ${unitCount(a.replicateUnit, n)} per side`;
  const paired = design.kind === 'processes' ? '; a paired design (duet or alternation, docs/compare.md) cancels the noise A and B share' : '';
  return `${more}${paired}`;
}
