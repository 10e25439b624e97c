/**
 * The comparison document: everything a report needs to present an A/B or
 * A/B/A comparison, computed once by `compare()` (src/compare/compare.ts).
 * Reports (text, lkml, md, json, html) only format these numbers; they never
 * recompute statistics.
 *
 * Naming: a number in the runs' own unit (`Comparison.unit`: ns/call,
 * instructions/call, bogo-ops/s...) ends in `InUnit`; a percentage ends in
 * `Pct` (1 % is `1`, not `0.01`); a probability is `pValue`/`alpha`; a
 * ratio (B/A) is `ratio`. Percent changes are always `100 * (B / A - 1)` in
 * the raw unit, so for higher-is-better units (bogo-ops/s) a negative
 * change is a slowdown: read `verdict`, not the sign.
 *
 * Format history (COMPARISON_SCHEMA):
 *   1: first version.
 *   2: verdicts judged on family-wise adjusted p-values (Holm by default);
 *      added `Contrast.adjusted`, `ComparisonOptions.correction`,
 *      `Comparison.multipleComparisons` and `Comparison.notRun`. Every
 *      field of version 1 is kept with its meaning.
 *   3: verdicts judged on units of replication (probe processes, boots,
 *      stress-ng invocations), not rounds: `Contrast.welch` and
 *      `Contrast.mannWhitney` test unit means, `Contrast.ciPct` is a
 *      hierarchical bootstrap (units, then rounds within units), the means
 *      are means of unit means. Added `Contrast.units`,
 *      `Contrast.roundWelch` (the round-level test, shown, never deciding),
 *      `Contrast.runToRun`, `RunSummary.units`/`roundsPerUnit`/
 *      `unitMeansInUnit`/`unitCvPct`/`replicateUnit`, the verdict
 *      'insufficient units', `SubjectComparison.judgedOn`,
 *      `ComparisonOptions.minUnits`/`roundsAsUnits`/`controls`,
 *      `SubjectComparison.control`, `Comparison.controls`, and
 *      `Comparison.measures`. `PowerAnalysis.roundsNeeded` became
 *      `unitsNeeded`; with A2 the verdict is judged on B vs A+A2. Two
 *      separate runs without A2 (not one interleaved invocation, not boots)
 *      never claim: caveat 'separate-runs' (src/compare/design.ts).
 *   4: `GeometricMean.claims`, the subjects whose own verdict claims a
 *      change; reports word the geometric mean's direction only when one
 *      does. Every field of version 3 is kept with its meaning.
 *   5: `PowerAnalysis.claimablePct`, the smallest change the verdict can
 *      claim (at least the threshold plus the judged CI's half-width); the
 *      reports' `detectable` is it. `mdePct` keeps its meaning (Welch alone).
 *      The caveat 'inside-threshold': significant (Welch, and a CI that
 *      excludes 0), but the CI reaches inside the noise threshold (the
 *      verdict stays 'no difference proven').
 *   6: designs and intervals that hold their level (issue 25). Added
 *      `Comparison.design` (what the runs' design was, one line for people)
 *      and `Contrast.pairs` (paired designs: duet, alternation). The deciding
 *      test is `Contrast.test` (method 'welch' on unit means, 'paired-t' on
 *      per-pair log ratios, 'run-level-t' for A/B/A, 'anytime' for a run
 *      stopped by a precision target), replacing `welch`; the rank test shown
 *      beside it is `Contrast.rank` (Mann-Whitney, or Wilcoxon signed-rank
 *      for pairs), replacing `mannWhitney`; `AdjustedP.welchPValue` and
 *      `mannWhitneyPValue` became `pValue` and `rankPValue`. `ciPct` is the
 *      interval of the deciding test (a t interval, or the confidence
 *      sequence), no longer a bootstrap; `RunToRun` is the A/B/A run-level
 *      term with its one degree of freedom, never clipped. `PowerAnalysis`
 *      gained `advice` (what design or budget would reach a given change)
 *      and its figures include every term the verdict uses.
 *   7: `Comparison.warnings`, typed warnings about the data: 'busy-machine',
 *      a run timed on the wall clock while the load average exceeded its
 *      CPUs (documents of version 6 have none). The design's units and the
 *      clock: `ComparisonDesign.processesPerSide` (paired designs; 'shared'
 *      when one process measured both sides) and `.cpus`; `Comparison.clock`,
 *      `ComparedRun.clock` (./clock.ts) and the checked environment row
 *      `clock`; `PairInfo.ratios`, each pair's B/A in measurement order.
 *      Every verdict at its stated rate: a claim beyond the
 *      noise threshold is the minimum-effect test `Contrast.beyondThreshold`
 *      (one-sided p that the change is within the threshold on its
 *      estimate's side), Holm-adjusted over the subjects as
 *      `AdjustedP.beyondThresholdPValue`, no longer the unadjusted whole
 *      CI; both fields are absent in older documents. `PowerAnalysis.mdePct`
 *      and `claimablePct` are where a claim happens with the stated power
 *      for a subject changed alone among the family (exact noncentral t,
 *      Holm's alpha / m), and the advice's precision target and pairs reach
 *      the target with that power; `claimablePct` was where a claim
 *      happened about half the time. A unit mean that is 0 or below, NaN
 *      or infinite gives 'insufficient data'. Two processes taking turns are
 *      judged on generation means (`Contrast.units` counts generations);
 *      an exact claim needs boots enough for the subjects compared. Every
 *      field of version 6 is kept with its meaning.
 *   8: boots as units are judged by their order in time
 *      (`ComparisonDesign.bootOrder`, src/compare/boot-order.ts): boots of
 *      A and B interleaved are units as before; A, B and A2 in three blocks
 *      are judged on the blocks (the run-level t, 1 df); any other blocked
 *      order claims nothing (caveat 'boots-in-blocks'). At least 20
 *      independent pairs (duet, one process with a switch) are judged by
 *      Wilcoxon's signed-rank test with the Hodges-Lehmann estimate and
 *      interval (`TestMethod` 'signed-rank'; `changePct` and `ratio` are
 *      then exp(HL)); the paired t is shown beside it (`Contrast.rank`
 *      with method 'paired-t'). A run stopped by a precision target is
 *      judged by the fixed-n paired t ('anytime' appears only in older
 *      documents). Every field of version 7 is kept with its meaning.
 *   9: the design 'abbaab' (six runs A B B A A B of one `bench --design
 *      abbaab`): judged on the run levels with a linear drift fitted
 *      beside the change (`TestMethod` 'drift-model-t', `RunToRun` kind
 *      'drift-model', `Contrast.units` counting runs; src/compare/abbaab.ts).
 *      Every field of version 8 is kept with its meaning.
 */
import type { Direction, Known, ReplicateUnit, Run, Unit } from '../model.ts';
import type { InsufficientData, Interval } from '../stats/result.ts';
import type { WelchTest } from '../stats/tests.ts';
import type { RunClock } from './clock.ts';
import type { ProcessesPerSide } from './design.ts';
import type { BootOrder } from './boot-order.ts';
import type { ComparisonOptions, Correction } from './options.ts';

export const COMPARISON_SCHEMA = 9;

/** A: baseline; B: candidate; A2: the baseline measured again after B. */
export type RunRole = 'A' | 'B' | 'A2';

/**
 * `insufficient units`: too few units of replication (probe processes,
 * boots, invocations) for a claim; the reason says what to run. Rounds of
 * one unit are never counted as independent evidence.
 */
export type Verdict =
  | 'faster'
  | 'slower'
  /** Instruction counts (qemu -icount): a change in instructions, not in time. */
  | 'fewer instructions'
  | 'more instructions'
  | 'no difference proven'
  /** Instruction counts that every boot of every run repeated exactly, and B's equals A's. */
  | 'identical'
  | 'insufficient data'
  | 'insufficient units';

import type { BeyondThreshold, ContrastTest, PairInfo, RankTest, RunToRun } from './test-types.ts';

/** Descriptive statistics of one run's measured rounds of one subject. */
export interface RunSummary {
  role: RunRole;
  runId: number;
  /** Measured (non-warm-up) rounds. */
  n: number;
  /** What one unit of replication is in this run (unknown for runs recorded before units were stored). */
  replicateUnit: Known<ReplicateUnit>;
  /** Units of replication behind the rounds (1 for a run that did not record them). */
  units: number;
  /** Measured rounds of each unit, in unit order. */
  roundsPerUnit: number[];
  /** The mean of each unit's rounds, in unit order: the observations the tests use. */
  unitMeansInUnit: number[];
  /** CV of the unit means in % (the between-unit noise); NaN with one unit. */
  unitCvPct: number;
  meanInUnit: number;
  medianInUnit: number;
  /** Sample standard deviation (n - 1); 0 when n = 1. */
  stdevInUnit: number;
  /** Coefficient of variation, stdev / mean, in %. */
  cvPct: number;
  minInUnit: number;
  maxInUnit: number;
  /** Student-t interval of the mean at options.confidenceLevel; insufficient when n < 2. */
  ciMeanInUnit: Interval | InsufficientData;
  /** Measured values in measurement order, aligned with `seqs` and `opsPerRound`. */
  valuesInUnit: number[];
  /** Round.seq of each value (position in the run's measurement order, across subjects). */
  seqs: number[];
  /** Round.ops of each value. */
  opsPerRound: number[];
}

/**
 * A contrast's p-values after the family-wise correction. `familySize` is
 * the number of subjects whose contrast was tested (a subject with
 * insufficient data is not tested and does not count). With `none` the
 * values equal the raw ones.
 */
export type AdjustedP =
  | {
      kind: 'adjusted';
      correction: Correction;
      familySize: number;
      /** The deciding test's p after the correction: what the verdict compares with alpha. */
      pValue: number;
      /** The rank test's p after the same correction (for the tests-disagree caveat); null when not computed. */
      rankPValue: number | null;
      /** `Contrast.beyondThreshold`'s p after the same correction over its own family: a claim needs it below alpha (absent before schema 7). */
      beyondThresholdPValue?: number;
    }
  | { kind: 'not-tested'; reason: string };

/**
 * One candidate-vs-baseline contrast: B vs A, A2 vs A (drift), B vs pooled
 * A+A2. Means are means of unit means. `test` decides (see TestMethod) and
 * `ciPct` is its interval of the % change, so p < alpha exactly when the
 * interval excludes 0. For pairs the change is the geometric mean of the
 * per-pair ratios, exp(mean d) - 1.
 */
export interface Contrast {
  candidate: RunRole;
  /** Which rounds form the baseline. */
  baseline: 'A' | 'A+A2';
  baselineMeanInUnit: number;
  candidateMeanInUnit: number;
  /** candidate mean - baseline mean. */
  changeInUnit: number;
  /** 100 * (candidate mean / baseline mean - 1). */
  changePct: number;
  /** candidate mean / baseline mean. */
  ratio: number;
  ciPct: Interval | InsufficientData;
  /** Units of replication behind each side (their means are the tests' observations). */
  units: { baseline: number; candidate: number };
  /** The deciding test (its method says which). */
  test: ContrastTest;
  /** The one-sided test of a change beyond the noise threshold: a claim needs its adjusted p below alpha too (absent before schema 7). */
  beyondThreshold?: BeyondThreshold;
  /** The rank test shown beside it: a disagreement is a caveat, never a verdict. */
  rank: RankTest;
  /** Paired designs: the pairs behind the contrast; null for unpaired ones. */
  pairs: PairInfo | null;
  /** Welch's test with every round taken as independent: shown for reference, never decides a verdict. */
  roundWelch: WelchTest;
  runToRun: RunToRun;
  /** The p-values corrected over the contrast's family (every subject's same contrast). */
  adjusted: AdjustedP;
}

/** Things a reader must know about a verdict. */
export type Caveat =
  /** |A2 vs A drift| is at least as large as |B vs A change|: the change may be drift. */
  | 'drift-as-large-as-change'
  /** The deciding test and the rank test (Mann-Whitney, or Wilcoxon signed-rank for pairs) disagree about significance at alpha. */
  | 'tests-disagree'
  /** A run taking part is not `complete` (only with allowIncomplete). */
  | 'incomplete-run'
  /** A and B are two separate runs without A2: a shift between runs cannot be told from a change. */
  | 'separate-runs'
  /** The deciding test's p is below alpha and the CI excludes 0, but the change is not shown beyond the noise threshold: a real change, too small to claim. */
  | 'inside-threshold'
  /** Boots as units, but one side's boots ran in one block of time: a session's shift cannot be told from a change (src/compare/boot-order.ts). */
  | 'boots-in-blocks';

export interface VerdictResult {
  verdict: Verdict;
  /** One sentence saying why, with the numbers that decided it. */
  reason: string;
  caveats: Caveat[];
  /**
   * Instruction counts only: every unit (boot) of each run gave the same
   * count, so the change is exact for the emulated execution and was
   * judged by the exact rule (src/compare/exact.ts), not by a test.
   */
  exact?: true;
}

/** A/B/A: how far the baseline moved, and B judged against both baselines. */
export type DriftAnalysis =
  | { kind: 'no-a2' }
  | InsufficientData
  | {
      kind: 'measured';
      /** A2 vs A. */
      drift: Contrast;
      /** A2 vs A judged like B vs A: 'no difference proven' is what a stable baseline gives. */
      driftVerdict: VerdictResult;
      /** B vs the pooled rounds of A and A2. */
      vsPooled: Contrast;
      /** B vs the midpoint (mean(A) + mean(A2)) / 2. */
      vsMidpoint: { midpointInUnit: number; changeInUnit: number; changePct: number };
      /** |drift %| >= |B vs A change %|. */
      driftAsLargeAsChange: boolean;
    };

/** How small a change these rounds can see, and how many rounds a given one needs. */
export type PowerAnalysis =
  | {
      kind: 'ok';
      /** Two-sided alpha and power (1 - beta) the figures assume. */
      alpha: number;
      power: number;
      /**
       * Smallest |change| in % the deciding test (the judged contrast's, with
       * every term it uses: A2, run-to-run, pairing) detects at this power,
       * for a subject changed alone among the family (Holm's alpha / m):
       * the exact noncentral-t multiple of its standard error.
       */
      mdePct: number;
      /**
       * Smallest |change| in % the verdict claims with this power: the larger
       * of mdePct and the threshold plus what the minimum-effect test needs
       * (one-sided noncentral-t multiple of the standard error; for a run
       * stopped by a precision target, the sequence's half-width plus
       * z(power) standard errors). What the reports call detectable.
       */
      claimablePct: number;
      /** The effect asked for with --detect, in %, or null. */
      detectPct: number | null;
      /** Units of replication per run (processes, boots, pairs) needed to detect `detectPct`, or null when not asked or when more units cannot help (A/B/A's run-to-run term). */
      unitsNeeded: number | null;
      /** What design or budget would reach a change worth claiming, said when nothing is proven (null when there is nothing to add). */
      advice: string | null;
    }
  | InsufficientData;

export interface SubjectComparison {
  subject: string;
  /** One summary per run present, in role order A, B, A2. */
  runs: RunSummary[];
  /** B vs A. */
  change: Contrast;
  drift: DriftAnalysis;
  power: PowerAnalysis;
  verdict: VerdictResult;
  /** The contrast the verdict was judged on: B vs A, or with A2, B vs A+A2 (with run-to-run variation). */
  judgedOn: 'B vs A' | 'B vs A+A2';
  /** Named with --control: shown, left out of the geometric mean and the regressions. */
  control: boolean;
}

/** One environment field shown side by side across runs. */
export interface EnvironmentField {
  /** Dotted path, e.g. 'kernel.release', 'cpu.model', 'opsPerRound', 'subjectParams'. */
  field: string;
  /** Display text per role ('unknown: <reason>' when the run could not read it). */
  values: Partial<Record<RunRole, string>>;
  /** checked: must agree (or be allowed); expected: expected to differ (kernel, seccomp injection); info: shown only. */
  kind: 'checked' | 'expected' | 'info';
  same: boolean;
}

/** The run as compared, without its rounds (those are in each RunSummary). */
export interface ComparedRun extends Omit<Run, 'unit'> {
  role: RunRole;
  /** What its rounds were timed on (src/compare/clock.ts). */
  clock: Known<RunClock>;
}

export type GeometricMean =
  | {
      kind: 'ok';
      /** Geometric mean over compared subjects of mean(B) / mean(A). */
      ratio: number;
      /** 100 * (ratio - 1). */
      changePct: number;
      /** ratio is on the good side of 1 for the unit's direction. */
      improved: boolean;
      subjects: number;
      /**
       * Subjects (controls left out) whose own verdict claims a change. The
       * geometric mean is a point estimate with no test of its own: with no
       * claim under it, its side of 1 is noise and reports say so instead of
       * better/worse.
       */
      claims: number;
    }
  | InsufficientData;

/** The families the correction ran over: how many subjects' tests each counted. */
export interface MultipleComparisons {
  correction: Correction;
  /** Subjects whose B vs A test took part (the verdicts' family). */
  familySize: number;
  /** Subjects whose A2 vs A drift test took part; null without A2. */
  driftFamilySize: number | null;
}

/** A stressor a macro run asked for but did not run (`run.params.extra.unavailable`, see src/macro/stressors.ts). */
export interface NotRun {
  stressor: string;
  /** As recorded, e.g. 'not in stress-ng 0.15.06'. */
  reason: string;
  /** The runs that lacked it (every run, usually). */
  runs: RunRole[];
}

/**
 * What the runs' unit measures: `time` (ns, emulated time, bogo-ops/s) can
 * be faster or slower; `instructions` (qemu -icount) only more or fewer
 * instructions: counts ignore cycles, caches and stalls.
 */
export type Measures = 'time' | 'instructions';

/** The designs a comparison can rest on (src/compare/design.ts). */
export type DesignKind = 'processes' | 'duet' | 'alternation' | 'aba' | 'abbaab' | 'boots' | 'separate-runs';

export interface ComparisonDesign {
  kind: DesignKind;
  /** One short line, e.g. 'duet: A and B at once on CPUs 0 and 1, 40 pairs, CPUs swapped every block'. */
  text: string;
  /** Paired designs: probe processes per side (a duet starts a fresh pair per block); null for the others, whose units are processes, boots or invocations. */
  processesPerSide: ProcessesPerSide;
  /** The CPUs the design's probes ran on when it used more than the pinned one (a duet's two, A's first); null otherwise. */
  cpus: number[] | null;
  /** Two processes taking turns: the pairs one generation of processes measured; the verdicts are judged on each generation's mean. Absent otherwise. */
  pairsPerGeneration?: number;
  /** Boots as units: the order of the boots in time and what it lets a claim rest on (src/compare/boot-order.ts). Absent for other designs and before schema 8. */
  bootOrder?: BootOrder;
}

/**
 * Doubtful data, said by every report (the verdicts stand; the reader
 * weighs them). `busy-machine`: a run timed on the wall clock while the
 * 1-minute load average, less the run's own probe at the end, exceeded
 * the CPUs online (src/compare/busy.ts).
 */
export type ComparisonWarning = {
  kind: 'busy-machine';
  role: RunRole;
  runId: number;
  cpus: number;
  /** 1-minute load averages as recorded; null when not read. */
  loadStart: number | null;
  loadEnd: number | null;
  /** One sentence naming the run, the load, the CPUs and what to do. */
  message: string;
};

export interface Comparison {
  schema: typeof COMPARISON_SCHEMA;
  /** The design the verdicts rest on; reports print its text. */
  design: ComparisonDesign;
  unit: Unit;
  /** The clock every run's rounds were timed on; unknown (saying which run used which) when they differ. */
  clock: Known<RunClock>;
  measures: Measures;
  direction: Direction;
  runs: ComparedRun[];
  options: ComparisonOptions;
  subjects: SubjectComparison[];
  /** Subjects not measured in every run: listed, not compared. */
  notCompared: { subject: string; presentIn: RunRole[] }[];
  /** Stressors a macro run could not run: the set measured was incomplete. */
  notRun: NotRun[];
  multipleComparisons: MultipleComparisons;
  geometricMean: GeometricMean;
  /** Subjects whose verdict is 'slower', in subject order, even when the geometric mean improved; controls left out. */
  regressions: string[];
  /** Control subjects named with --control that were compared (left out of the geometric mean and regressions). */
  controls: string[];
  environment: EnvironmentField[];
  /** Checked fields that differ, accepted because allowMismatch was set. */
  mismatchesAllowed: EnvironmentField[];
  /** Typed warnings about the data; absent in documents before version 7 (stored trials), which read as none. */
  warnings?: ComparisonWarning[];
}
