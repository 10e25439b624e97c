/**
 * Six runs in the order A B B A A B (`bench --design abbaab`), judged on
 * the runs' levels: the A/B/A of separate runs (./aba.ts) with three runs
 * per side.
 *
 * Every unit of a run shares the run's shift (load, frequency, placement),
 * so a run's level is the observation, as in A/B/A: y_i = ln(level_i) =
 * mu + delta [B] + beta position_i + r_i + e_i. The change delta is fitted
 * with a linear drift of the machine over the six runs beside it
 * (src/stats/drift-model.ts): t with 6 - 3 = 3 degrees of freedom, exact
 * under independent normal run shifts whatever the drift's slope.
 *
 * Why this model and not the three blocks paired by position (A B, B A,
 * A B; paired t on the three differences, 2 df): under a linear drift of
 * beta per run the blocks' differences are delta + beta, delta - beta,
 * delta + beta, so their mean is biased by beta / 3 and their spread
 * inflated by the drift. The inflation wins, so the blocks stay below
 * alpha, but their power falls with the drift: at 2 run SDs of drift per
 * run they find a change of 3.5 run SDs in 19 % of runs, the drift model
 * in 80 % (bench/aba-rates.ts, docs/compare-designs.md). The drift model's
 * level does not depend on the drift at all, and its standard error is
 * 0.820 run SDs against 0.816 for the plain difference of the sides'
 * means (Var 0.673 against 0.667 sigma²), with 3 df against the blocks' 2
 * (t(0.975) 3.18 against 4.30). Against one A/B/A triple (1 df,
 * t(0.975) 12.7) the change it detects with 80 % power falls from about
 * 20 run-level SDs to 3.5.
 *
 * On the log scale a shift that scales every call alike (a slower clock,
 * a busier host) is additive, as in the paired designs; the change is
 * exp(delta) - 1 and its interval is the t interval mapped through exp.
 */
import { type Units, meanOfUnitMeans, unitMeans } from '../stats/bootstrap.ts';
import { mean } from '../stats/descriptive.ts';
import { driftAdjustedDifference, type SequencedRun } from '../stats/drift-model.ts';
import { tInterval } from '../stats/paired.ts';
import { insufficient } from '../stats/result.ts';
import { beyondThresholdT, contrastBase, logBounds, mannWhitneyRank, unusableLevels } from './contrast.ts';
import type { Contrast } from './types.ts';
import type { ComparisonOptions } from './options.ts';
import type { Sample } from '../stats/descriptive.ts';

/** One side's units keyed by their index in the run (Round.replicate). */
export type KeyedUnits = ReadonlyMap<number, Sample>;

/**
 * Each run's level, in run order: the mean of the unit means of the units
 * k with floor(k / processesPerRun) = run (a run none of whose units
 * measured the subject is left out).
 */
export function runLevels(units: KeyedUnits, processesPerRun: number): { run: number; level: number }[] {
  const byRun = new Map<number, number[]>();
  for (const [k, rounds] of units) {
    const run = Math.floor(k / processesPerRun);
    byRun.set(run, [...(byRun.get(run) ?? []), mean(rounds)]);
  }
  return [...byRun.keys()].sort((x, y) => x - y).map((run) => ({ run, level: mean(byRun.get(run) as unknown as Sample) }));
}

/** Positions in time of each side's runs in `order` ('ABBAAB': A at 0, 3, 4; B at 1, 2, 5). */
export function positionsOf(order: string): { A: number[]; B: number[] } {
  const at = (side: string) => order.split('').flatMap((c, i) => (c === side ? [i] : []));
  return { A: at('A'), B: at('B') };
}

/** The six (or fewer) runs as the drift model reads them; null when a run index lies beyond the order. */
function sequenced(a: KeyedUnits, b: KeyedUnits, processesPerRun: number, order: string): SequencedRun[] | null {
  const pos = positionsOf(order);
  const side = (units: KeyedUnits, positions: number[], second: boolean) =>
    runLevels(units, processesPerRun).map(({ run, level }) => ({ y: Math.log(level), second, position: positions[run] ?? Number.NaN }));
  const runs = [...side(a, pos.A, false), ...side(b, pos.B, true)];
  return runs.some((r) => Number.isNaN(r.position)) ? null : runs;
}

/** B vs A on the runs' log levels with a linear drift fitted beside the change (file comment). */
export function abbaabContrast(a: KeyedUnits, b: KeyedUnits, processesPerRun: number, order: string, options: ComparisonOptions): Contrast {
  const unitsA: Units = [...a.values()];
  const unitsB: Units = [...b.values()];
  const levelsA = runLevels(a, processesPerRun).map((r) => r.level);
  const levelsB = runLevels(b, processesPerRun).map((r) => r.level);
  const unusable = unusableLevels([['A', unitMeans(unitsA)], ['B', unitMeans(unitsB)]]);
  const runs = unusable === null ? sequenced(a, b, processesPerRun, order) : null;
  const fit = runs === null ? insufficient(unusable ?? `a unit lies beyond the ${order.length} runs of the order ${order}: the record is damaged`) : driftAdjustedDifference(runs);
  const baseLevel = meanOfUnitMeans([unitsA]);
  const candLevel = meanOfUnitMeans([unitsB]);
  const estimate = fit.kind === 'ok' ? fit.estimate : Number.NaN;
  const toPct = (x: number) => 100 * Math.expm1(x);
  const common = {
    ...contrastBase('A', 'B', baseLevel, candLevel, [unitsA.flat(), unitsB.flat()]),
    units: { baseline: levelsA.length, candidate: levelsB.length },
    rank: mannWhitneyRank(levelsA, levelsB),
    pairs: null,
  };
  if (fit.kind !== 'ok') return { ...common, test: fit, ciPct: fit, beyondThreshold: fit };
  const ci = tInterval(fit, options.confidenceLevel);
  return {
    ...common,
    // the change in the unit is A's level moved by the estimated ratio, so it says what the % says
    changeInUnit: baseLevel * Math.expm1(estimate),
    changePct: toPct(estimate),
    ratio: Math.exp(estimate),
    test: { kind: 'ok', method: 'drift-model-t', t: fit.t, df: fit.df, pValue: fit.pValue, sePct: 100 * fit.se },
    ciPct: { kind: 'ok', low: toPct(ci.low), high: toPct(ci.high), level: options.confidenceLevel },
    beyondThreshold: beyondThresholdT(fit.estimate, fit.se, fit.df, logBounds(options.thresholdPct), options.thresholdPct),
    runToRun: { kind: 'drift-model', runSdPct: 100 * fit.residualSd, df: fit.df, driftPerRunPct: 100 * fit.driftPerRun },
  };
}
