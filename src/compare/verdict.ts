/**
 * The verdict rule. Welch's t-test is the primary test (the change is in
 * means, and the bootstrap interval is of the change in means); Mann-Whitney
 * is reported beside it and a disagreement is flagged, not used to flip the
 * verdict. A change is `faster`/`slower` only when BOTH
 *   1. Welch's two-sided p < alpha, and
 *   2. the whole bootstrap interval of the % change lies beyond the noise
 *      threshold (entirely above +threshold or entirely below -threshold).
 * Fewer than `minRounds` rounds in either run, or a test that cannot be
 * computed, gives `insufficient data`, never a guess.
 */
import type { Direction } from '../model.ts';
import { formatPct, pClause } from './format.ts';
import type { Caveat, ComparisonOptions, Contrast, VerdictResult } from './types.ts';

function worse(changePct: number, direction: Direction): boolean {
  return direction === 'lower-is-better' ? changePct > 0 : changePct < 0;
}

function caveatsOf(contrast: Contrast, alpha: number): Caveat[] {
  const { welch, mannWhitney } = contrast;
  if (welch.kind !== 'ok' || mannWhitney.kind !== 'ok') return [];
  return welch.pValue < alpha !== mannWhitney.pValue < alpha ? ['tests-disagree'] : [];
}

/** Judge one contrast (B vs A, or A2 vs A) given the rounds behind it. */
export function judge(
  contrast: Contrast,
  rounds: { baseline: number; candidate: number },
  direction: Direction,
  options: ComparisonOptions,
): VerdictResult {
  const base = contrast.baseline;
  const cand = contrast.candidate;
  if (rounds.baseline < options.minRounds || rounds.candidate < options.minRounds) {
    return {
      verdict: 'insufficient data',
      reason: `${base} has ${rounds.baseline} rounds and ${cand} has ${rounds.candidate}; at least ${options.minRounds} per run are needed`,
      caveats: [],
    };
  }
  const { welch, ciPct } = contrast;
  if (welch.kind !== 'ok') return { verdict: 'insufficient data', reason: welch.reason, caveats: [] };
  if (ciPct.kind === 'insufficient-data') return { verdict: 'insufficient data', reason: ciPct.reason, caveats: [] };
  const caveats = caveatsOf(contrast, options.alpha);
  const level = `${Math.round(ciPct.level * 100)} % CI`;
  const ci = `${level} ${formatPct(ciPct.low)} to ${formatPct(ciPct.high)}`;
  const p = `Welch ${pClause(welch.pValue)}`;
  if (!(welch.pValue < options.alpha)) {
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
