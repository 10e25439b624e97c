/**
 * The verdict rule, on units of replication (probe processes, boots,
 * stress-ng invocations, pairs of a paired design), never on rounds taken
 * one by one. The contrast's deciding test (`Contrast.test`: Welch on unit
 * means, the signed-rank test or the paired t on per-pair log ratios,
 * A/B/A's run-level t) gives the p
 * and the interval; the rank test (Mann-Whitney, Wilcoxon signed-rank) is
 * reported beside it and a disagreement is flagged, not used to flip the
 * verdict. A change is claimed (`faster`/`slower`, or for instruction
 * counts `fewer instructions`/`more instructions`) only when BOTH
 *   1. the deciding test's two-sided p, adjusted for the number of subjects
 *      tested (Holm's step-down unless the correction is `none`), is below
 *      alpha, and
 *   2. the minimum-effect test (`Contrast.beyondThreshold`: one-sided,
 *      "the change is within the noise threshold on its estimate's side"),
 *      adjusted over the subjects the same way, is below alpha.
 * So a claim of a change beyond the threshold is family-wise at alpha, as
 * the claim of a change is: at a change of exactly the threshold the rule
 * claims in at most alpha of comparisons, for one subject or 24 (the
 * whole-95 %-CI rule it replaces claimed in 2.5 % for one subject and, with
 * Holm on the p of 0 only, in 45 % for 24). The price is power when many
 * subjects are tested at once; docs/compare-family.md has the figures.
 * Fewer than `minUnits` units in a run gives `insufficient units` with what
 * to run; fewer than `minRounds` rounds, or a test that cannot be computed,
 * gives `insufficient data`; never a guess.
 */
import type { Direction } from '../model.ts';
import { pClause, formatP } from '../format/numbers.ts';
import { formatChangePct, formatChangePctRange, formatSpreadPct } from '../format/percent.ts';
import type { Design } from './design.ts';
import { BLOCKS_ADVICE, sequenceText } from './boot-order.ts';
import type { AdjustedP, Caveat, Contrast, Measures, PowerAnalysis, SubjectComparison, Verdict, VerdictResult } from './types.ts';
import type { ComparisonOptions } from './options.ts';
import type { TestMethod } from './test-types.ts';

/** What stands behind a contrast's two sides, and what to run when the units are too few. */
export interface SideCounts {
  /** Measured rounds of the baseline and the candidate. */
  baseline: number;
  candidate: number;
  /** Units of replication described for people, e.g. 'A has 1 process and B has 1'. */
  unitsText: string;
  /** What to run for enough units (src/compare/units.ts moreUnitsAdvice). */
  advice: string;
}

/** Whether a contrast can be judged by its tests: its raw p-values, or why not. */
export type Testability =
  | { kind: 'testable'; pValue: number; rankPValue: number | null; beyondThresholdPValue: number }
  | { kind: 'untestable'; verdict: 'insufficient data' | 'insufficient units'; reason: string };

/**
 * A contrast is tested (and joins its family for the correction) when both
 * sides have at least `minUnits` units of replication and `minRounds`
 * rounds, and its deciding test and interval could be computed.
 */
export function testability(contrast: Contrast, counts: SideCounts, options: ComparisonOptions): Testability {
  const { units } = contrast;
  if (units.baseline < options.minUnits || units.candidate < options.minUnits) {
    return {
      kind: 'untestable',
      verdict: 'insufficient units',
      reason: `${counts.unitsText}; a claim needs at least ${options.minUnits} per run, rounds of one unit are not independent evidence: ${counts.advice}`,
    };
  }
  if (counts.baseline < options.minRounds || counts.candidate < options.minRounds) {
    return {
      kind: 'untestable',
      verdict: 'insufficient data',
      reason: `${contrast.baseline} has ${counts.baseline} rounds and ${contrast.candidate} has ${counts.candidate}; at least ${options.minRounds} per run are needed`,
    };
  }
  const { test, ciPct, rank, beyondThreshold } = contrast;
  if (test.kind !== 'ok') return { kind: 'untestable', verdict: 'insufficient data', reason: test.reason };
  if (ciPct.kind === 'insufficient-data') return { kind: 'untestable', verdict: 'insufficient data', reason: ciPct.reason };
  if (beyondThreshold === undefined) return { kind: 'untestable', verdict: 'insufficient data', reason: 'no minimum-effect test (a document before schema 7)' };
  if (beyondThreshold.kind !== 'ok') return { kind: 'untestable', verdict: 'insufficient data', reason: beyondThreshold.reason };
  const isP = (p: number | null) => p === null || (p >= 0 && p <= 1);
  if (!isP(test.pValue) || !isP(beyondThreshold.pValue) || !isP(rank.kind === 'ok' ? rank.pValue : null)) {
    return { kind: 'untestable', verdict: 'insufficient data', reason: `the test gave no p-value (p = ${test.pValue}): a value is not a finite number` };
  }
  return { kind: 'testable', pValue: test.pValue, rankPValue: rank.kind === 'ok' ? rank.pValue : null, beyondThresholdPValue: beyondThreshold.pValue };
}

function worse(changePct: number, direction: Direction): boolean {
  return direction === 'lower-is-better' ? changePct > 0 : changePct < 0;
}

/** The claim for a change: faster/slower for time, fewer/more instructions for instruction counts. */
export function claimOf(isWorse: boolean, measures: Measures): Verdict {
  if (measures === 'instructions') return isWorse ? 'more instructions' : 'fewer instructions';
  return isWorse ? 'slower' : 'faster';
}

/** True for a verdict that claims a change. */
export function isClaim(v: Verdict): boolean {
  return v === 'faster' || v === 'slower' || v === 'more instructions' || v === 'fewer instructions';
}

/** True for a claimed change for the worse (slower, more instructions). */
export function isWorse(v: Verdict): boolean {
  return v === 'slower' || v === 'more instructions';
}

/** The tests disagree when only one is below alpha, and the rank test could have reached alpha at these sizes. */
function caveatsOf(adjusted: AdjustedP & { kind: 'adjusted' }, rank: Contrast['rank'], alpha: number): Caveat[] {
  const { pValue, rankPValue } = adjusted;
  if (rankPValue === null || rank.kind !== 'ok' || !(rank.minPValue < alpha)) return [];
  return pValue < alpha !== rankPValue < alpha ? ['tests-disagree'] : [];
}

function insufficientData(reason: string): VerdictResult {
  return { verdict: 'insufficient data', reason, caveats: [] };
}

/** What the run-level designs' p rests on: the run-to-run variation and its degrees of freedom. */
function runToRunClause(r: Contrast['runToRun']): string {
  if (r.kind === 'from-a2') return ` (B vs A+A2, run-to-run variation from A and A2: ${formatSpreadPct(r.runSdPct)} per run, ${r.df} degree of freedom)`;
  if (r.kind === 'drift-model') return ` (run levels in ABBAAB order: run-to-run variation ${formatSpreadPct(r.runSdPct)} per run about a fitted drift of ${formatChangePct(r.driftPerRunPct)} per run, ${r.df} degrees of freedom)`;
  return '';
}

/** Judge one contrast (B vs A, B vs A+A2, or A2 vs A) whose family correction has been applied. */
export function judge(contrast: Contrast, counts: SideCounts, direction: Direction, options: ComparisonOptions, measures: Measures = 'time'): VerdictResult {
  const tested = testability(contrast, counts, options);
  if (tested.kind === 'untestable') return { verdict: tested.verdict, reason: tested.reason, caveats: [] };
  const { ciPct, adjusted } = contrast;
  // Unreachable for contrasts built by compare(), whose testable contrasts are all adjusted; never a guess.
  if (adjusted.kind !== 'adjusted') return insufficientData(adjusted.reason);
  if (ciPct.kind !== 'ok') return insufficientData(ciPct.reason);
  const caveats = caveatsOf(adjusted, contrast.rank, options.alpha);
  const ci = `${Math.round(ciPct.level * 100)} % ${intervalName(contrast)} ${formatChangePctRange(ciPct.low, ciPct.high, ' to ')}`;
  const runs = runToRunClause(contrast.runToRun);
  const p = `${testClause(contrast, tested.pValue, adjusted)}${runs}`;
  if (!(adjusted.pValue < options.alpha)) {
    return { verdict: 'no difference proven', reason: `${p} is not below alpha ${options.alpha}`, caveats };
  }
  const t = options.thresholdPct;
  const beyond = beyondClause(tested.beyondThresholdPValue, adjusted, t);
  if (adjusted.beyondThresholdPValue !== undefined && adjusted.beyondThresholdPValue < options.alpha) {
    return {
      verdict: claimOf(worse(contrast.changePct, direction), measures),
      reason: `${formatChangePct(contrast.changePct)}${ratioName(contrast)} (${ci}) lies beyond the ±${t} % noise threshold (${beyond}), ${p}`,
      caveats,
    };
  }
  return {
    verdict: 'no difference proven',
    reason: `${p} < ${options.alpha} but the change is not shown beyond the ±${t} % noise threshold (${ci}; ${beyond}, not below ${options.alpha})`,
    // Significant by the deciding test and its interval (which excludes 0), yet too small to claim.
    caveats: ciPct.low > 0 || ciPct.high < 0 ? [...caveats, 'inside-threshold'] : caveats,
  };
}

/**
 * What a paired change is: the geometric mean of the per-pair ratios
 * B_k/A_k, which the paired t tests, or their Hodges-Lehmann estimate (the
 * median of the Walsh averages of the log ratios), which the signed-rank
 * test goes with; not the ratio of the two sides' means that the tables
 * print beside it.
 */
function ratioName(c: Contrast): string {
  if (c.pairs === null) return '';
  return c.test.kind === 'ok' && c.test.method === 'signed-rank' ? ' (the Hodges-Lehmann estimate of the per-pair ratios)' : ' (the geometric mean of the per-pair ratios)';
}

/** 'one-sided p = 0.003 that it is within +1 % (Holm-adjusted over 24 subjects: 0.07)'. */
function beyondClause(rawP: number, adjusted: AdjustedP & { kind: 'adjusted' }, thresholdPct: number): string {
  const raw = `one-sided ${pClause(rawP)} that it is within ±${thresholdPct} %`;
  if (adjusted.correction === 'none' || adjusted.beyondThresholdPValue === undefined) return raw;
  const n = adjusted.familySize;
  return `${raw} (Holm-adjusted over ${n} subject${n === 1 ? '' : 's'}: ${formatP(adjusted.beyondThresholdPValue)})`;
}

/**
 * A/B/A: when the baseline moved between A and A2 by as much as B differs
 * from A, the change cannot be told from drift, so a claimed faster/slower
 * becomes 'no difference proven' with the reason and a caveat.
 */
export function withDrift(verdict: VerdictResult, change: Contrast, drift: Contrast): VerdictResult {
  // the B vs A change is what A2 is compared with, whichever contrast the verdict was judged on
  if (!isClaim(verdict.verdict)) return verdict;
  if (Math.abs(drift.changePct) < Math.abs(change.changePct)) return verdict;
  return {
    verdict: 'no difference proven',
    reason:
      `B vs A is ${formatChangePct(change.changePct)} but the baseline drifted ${formatChangePct(drift.changePct)} ` +
      `between A and A2, as large as the change itself (without A2 it would read '${verdict.verdict}')`,
    caveats: [...verdict.caveats, 'drift-as-large-as-change'],
  };
}

/**
 * Two separate runs without A2: every unit of a run shares the run's stretch
 * of time, so a claim from them could be a shift between runs. The claim
 * becomes 'no difference proven', saying what it would have read and what
 * to run (src/compare/design.ts). Boots in blocks (one side's boots
 * together in time, not A/B/A) are refused the same way
 * (src/compare/boot-order.ts).
 */
export function withDesign(verdict: VerdictResult, design: Design): VerdictResult {
  if (design.kind === 'boots' && design.order.kind === 'blocks') {
    if (verdict.verdict === 'no difference proven') return { ...verdict, reason: `${verdict.reason}; no change can be claimed from these boots, which ran in blocks (${sequenceText(design.order.sequence)}): ${BLOCKS_ADVICE}` };
    if (!isClaim(verdict.verdict)) return verdict;
    return {
      verdict: 'no difference proven',
      reason: `the boots ran in blocks (${sequenceText(design.order.sequence)}), so one session's shift moves one side only (as interleaved boots it would read '${verdict.verdict}': ${verdict.reason}); ${BLOCKS_ADVICE}`,
      caveats: [...verdict.caveats, 'boots-in-blocks'],
    };
  }
  if (design.kind !== 'separate-runs' || !isClaim(verdict.verdict)) return verdict;
  return {
    verdict: 'no difference proven',
    reason:
      `A and B are two separate runs, whose units share each run's machine state, so a shift between runs ` +
      `cannot be told from a change (as an interleaved or A/B/A design it would read '${verdict.verdict}': ${verdict.reason}); ` +
      `for a claim, ${design.advice}`,
    caveats: [...verdict.caveats, 'separate-runs'],
  };
}

/** The deciding test's name as the reports print it. */
export function testName(method: TestMethod): string {
  switch (method) {
    case 'welch':
      return 'Welch';
    case 'paired-t':
      return 'paired t';
    case 'signed-rank':
      return 'signed-rank';
    case 'run-level-t':
      return 'run-level t';
    case 'drift-model-t':
      return 'drift-model t';
    case 'anytime':
      return 'anytime';
  }
}

/** 'CI', or for a run stopped by a precision target 'confidence sequence'. */
export function intervalName(c: Contrast): string {
  return c.test.kind === 'ok' && c.test.method === 'anytime' ? 'confidence sequence' : 'CI';
}

/**
 * 'Welch p = 0.028', followed by the corrected value when a correction
 * applies: 'paired t p = 0.028 (Holm-adjusted over 24 subjects: 0.67)'.
 */
export function testClause(c: Contrast, rawP: number, adjusted: AdjustedP): string {
  const raw = `${c.test.kind === 'ok' ? testName(c.test.method) : 'test'} ${pClause(rawP)}`;
  if (adjusted.kind !== 'adjusted' || adjusted.correction === 'none') return raw;
  const n = adjusted.familySize;
  return `${raw} (Holm-adjusted over ${n} subject${n === 1 ? '' : 's'}: ${formatP(adjusted.pValue)})`;
}

/**
 * Nothing proven: the verdict says what this run can detect and what would
 * reach a change worth claiming (PowerAnalysis.advice).
 */
export function withAdvice(verdict: VerdictResult, power: PowerAnalysis): VerdictResult {
  if (power.kind !== 'ok' || verdict.verdict !== 'no difference proven') return verdict;
  const detectable = `this run can claim changes beyond about ${formatSpreadPct(power.claimablePct)}`;
  return { ...verdict, reason: `${verdict.reason}; ${detectable}${power.advice === null ? '' : `; ${power.advice}`}` };
}

/** The contrast a subject's verdict was judged on: B vs A, or with A2, B vs A+A2. */
export function judgedContrast(s: SubjectComparison): Contrast {
  return s.judgedOn === 'B vs A+A2' && s.drift.kind === 'measured' ? s.drift.vsPooled : s.change;
}
