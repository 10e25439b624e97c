/**
 * The determinism check a bisect starts with, and what it decides: how
 * many boots a step takes and whether the good and the bad commit differ
 * at all.
 *
 * Under `qemu -icount` with a fixed guest clock a boot's count per call is
 * a property of the kernel (docs/vm.md), so when the good commit's two
 * boots give the same value and the bad commit's two do, one boot per step
 * decides (`exact` mode), and the endpoints differ when their counts are
 * at least EXACT_MIN_PER_CALL apart (compare's exact rule: less is a few
 * events per round, not per call).
 *
 * Where a count does not repeat (a kernel whose boots vary), a step takes
 * STATISTICAL_BOOTS boots, its value is their mean, and the endpoints
 * differ only when Welch's t-test over their boots (the test compare's
 * verdicts rest on) finds a difference at alpha 0.05 (`statistical` mode).
 */
import { EXACT_MIN_PER_CALL } from '../compare/exact.ts';
import { pClause } from '../format/numbers.ts';
import { formatSpreadPct } from '../format/percent.ts';
import { isSample, mean } from '../stats/descriptive.ts';
import { welchTTest } from '../stats/tests.ts';

/** Boots of each endpoint in the determinism check. */
export const CHECK_BOOTS = 2;
/** Boots per step (endpoints included) when counts do not repeat. */
export const STATISTICAL_BOOTS = 3;
/** Significance level of the endpoints' test in statistical mode. */
export const ALPHA = 0.05;

export type BisectMode =
  | { kind: 'exact'; bootsPerStep: 1 }
  | { kind: 'statistical'; bootsPerStep: number; why: string };

/** Whether the endpoints differ, and in words why not. */
export type EndpointCheck = { differ: true; good: number; bad: number } | { differ: false; good: number; bad: number; why: string };

const repeats = (values: readonly number[]): boolean => values.length >= CHECK_BOOTS && values.every((v) => v === values[0]);

/** The step's value: its one boot, or the mean of its boots. */
export function stepValue(values: readonly number[]): number {
  if (!isSample(values)) throw new Error('a measured step has at least one boot');
  return mean(values);
}

/** Exact when both endpoints' check boots repeat to the last digit; statistical otherwise. */
export function chooseMode(good: readonly number[], bad: readonly number[]): BisectMode {
  if (repeats(good) && repeats(bad)) return { kind: 'exact', bootsPerStep: 1 };
  const which = [repeats(good) ? null : 'the good', repeats(bad) ? null : 'the bad'].filter((w) => w !== null).join(' and ');
  return { kind: 'statistical', bootsPerStep: STATISTICAL_BOOTS, why: `the boots of ${which} commit did not repeat their count exactly` };
}

/**
 * Whether the endpoints differ, by the mode's rule (exact: EXACT_MIN_PER_CALL
 * apart, or `minPct` of the good value for a rate; statistical: Welch at
 * ALPHA). A stressor's bogo-ops per guest second repeat under -icount but
 * are quantized over their budget, so, as compare's exact rule for rates
 * does, a difference within the noise threshold (`minPct`) is none.
 */
export function checkEndpoints(mode: BisectMode, good: readonly number[], bad: readonly number[], minPct = 0): EndpointCheck {
  const g = stepValue(good);
  const b = stepValue(bad);
  if (mode.kind === 'exact') {
    if (minPct > 0) {
      if (Math.abs(b - g) >= (Math.abs(g) * minPct) / 100) return { differ: true, good: g, bad: b };
      return { differ: false, good: g, bad: b, why: g === b ? 'every boot of both gave the same rate' : `the rates differ by less than ${formatSpreadPct(minPct)} (a bogo-op count is quantized over its budget)` };
    }
    if (Math.abs(b - g) >= EXACT_MIN_PER_CALL) return { differ: true, good: g, bad: b };
    return { differ: false, good: g, bad: b, why: g === b ? 'every boot of both gave the same count' : `the counts differ by less than ${EXACT_MIN_PER_CALL} per call (a few events per round, not per call)` };
  }
  const t = welchTTest(good, bad);
  if (t.kind !== 'ok') return { differ: false, good: g, bad: b, why: t.reason };
  if (t.pValue < ALPHA) return { differ: true, good: g, bad: b };
  return { differ: false, good: g, bad: b, why: `Welch's t-test over ${good.length} and ${bad.length} boots finds no difference (${pClause(t.pValue)}, alpha ${ALPHA})` };
}
