/**
 * The verdict rule. Welch's t-test is the primary test (the change is in
 * means, and the bootstrap interval is of the change in means); Mann-Whitney
 * is reported beside it and a disagreement is flagged, not used to flip the
 * verdict. A change is `faster`/`slower` only when BOTH
 *   1. Welch's two-sided p, adjusted for the number of subjects tested
 *      (Holm's step-down unless the correction is `none`), is below alpha, and
 *   2. the whole bootstrap interval of the % change lies beyond the noise
 *      threshold (entirely above +threshold or entirely below -threshold).
 * Fewer than `minRounds` rounds in either run, or a test that cannot be
 * computed, gives `insufficient data`, never a guess.
 */
import type { Direction } from '../model.ts';
import { formatPct, formatPctRange, welchClause } from './format.ts';
import type { AdjustedP, Caveat, ComparisonOptions, Contrast, VerdictResult } from './types.ts';

/** Measured rounds behind a contrast's baseline and candidate. */
export interface RoundCounts {
  baseline: number;
  candidate: number;
}

/** Whether a contrast can be judged by its tests: its raw p-values, or why not. */
export type Testability =
  | { kind: 'testable'; welchPValue: number; mannWhitneyPValue: number | null }
  | { kind: 'untestable'; reason: string };

/**
 * A contrast is tested (and joins its family for the correction) when both
 * runs have at least `minRounds` rounds, Welch's test and the bootstrap
 * interval could be computed.
 */
export function testability(contrast: Contrast, rounds: RoundCounts, options: ComparisonOptions): Testability {
  if (rounds.baseline < options.minRounds || rounds.candidate < options.minRounds) {
    return {
      kind: 'untestable',
      reason: `${contrast.baseline} has ${rounds.baseline} rounds and ${contrast.candidate} has ${rounds.candidate}; at least ${options.minRounds} per run are needed`,
    };
  }
  const { welch, ciPct, mannWhitney } = contrast;
  if (welch.kind !== 'ok') return { kind: 'untestable', reason: welch.reason };
  if (ciPct.kind === 'insufficient-data') return { kind: 'untestable', reason: ciPct.reason };
  return { kind: 'testable', welchPValue: welch.pValue, mannWhitneyPValue: mannWhitney.kind === 'ok' ? mannWhitney.pValue : null };
}

function worse(changePct: number, direction: Direction): boolean {
  return direction === 'lower-is-better' ? changePct > 0 : changePct < 0;
}

function caveatsOf(adjusted: AdjustedP & { kind: 'adjusted' }, alpha: number): Caveat[] {
  const { welchPValue, mannWhitneyPValue } = adjusted;
  if (mannWhitneyPValue === null) return [];
  return welchPValue < alpha !== mannWhitneyPValue < alpha ? ['tests-disagree'] : [];
}

function insufficientData(reason: string): VerdictResult {
  return { verdict: 'insufficient data', reason, caveats: [] };
}

/** Judge one contrast (B vs A, or A2 vs A) whose family correction has been applied. */
export function judge(contrast: Contrast, rounds: RoundCounts, direction: Direction, options: ComparisonOptions): VerdictResult {
  const tested = testability(contrast, rounds, options);
  if (tested.kind === 'untestable') return insufficientData(tested.reason);
  const { ciPct, adjusted } = contrast;
  // Unreachable for contrasts built by compare(), whose testable contrasts are all adjusted; never a guess.
  if (adjusted.kind !== 'adjusted') return insufficientData(adjusted.reason);
  if (ciPct.kind !== 'ok') return insufficientData(ciPct.reason);
  const caveats = caveatsOf(adjusted, options.alpha);
  const ci = `${Math.round(ciPct.level * 100)} % CI ${formatPctRange(ciPct.low, ciPct.high, ' to ')}`;
  const p = welchClause(tested.welchPValue, adjusted);
  if (!(adjusted.welchPValue < options.alpha)) {
    return { verdict: 'no difference proven', reason: `${p} is not below alpha ${options.alpha}`, caveats };
  }
  const t = options.thresholdPct;
  if (ciPct.low > t || ciPct.high < -t) {
    return {
      verdict: worse(contrast.changePct, direction) ? 'slower' : 'faster',
      reason: `${formatPct(contrast.changePct)} (${ci}) lies beyond the ±${t} % noise threshold, ${p}`,
      caveats,
    };
  }
  return {
    verdict: 'no difference proven',
    reason: `${p} < ${options.alpha} but the ${ci} reaches inside the ±${t} % noise threshold`,
    caveats,
  };
}

/**
 * A/B/A: when the baseline moved between A and A2 by as much as B differs
 * from A, the change cannot be told from drift, so a claimed faster/slower
 * becomes 'no difference proven' with the reason and a caveat.
 */
export function withDrift(verdict: VerdictResult, change: Contrast, drift: Contrast): VerdictResult {
  if (verdict.verdict !== 'faster' && verdict.verdict !== 'slower') return verdict;
  if (Math.abs(drift.changePct) < Math.abs(change.changePct)) return verdict;
  return {
    verdict: 'no difference proven',
    reason:
      `B vs A is ${formatPct(change.changePct)} but the baseline drifted ${formatPct(drift.changePct)} ` +
      `between A and A2, as large as the change itself (without A2 it would read '${verdict.verdict}')`,
    caveats: [...verdict.caveats, 'drift-as-large-as-change'],
  };
}
