/**
 * Build a Comparison document from two or three runs (A, B, optional A2).
 * All statistics are computed here, once; reports only format them.
 */
import { type Direction, type RunWithRounds, directionOf, measuredValues } from '../model.ts';
import { bootstrapChangePct } from '../stats/bootstrap.ts';
import { type Sample, cvPct, geometricMean, isSample, max, mean, median, min, stdev } from '../stats/descriptive.ts';
import { studentTQuantile } from '../stats/distributions.ts';
import { minimumDetectableEffect, roundsNeeded } from '../stats/power.ts';
import { type InsufficientData, insufficient } from '../stats/result.ts';
import { mannWhitneyU, welchTTest } from '../stats/tests.ts';
import { type RoleRun, checkEnvironment, checkStatus, checkUnits, environmentTable } from './checks.ts';
import { type FamilyMember, correctFamily } from './family.ts';
import { notRunOf } from './not-run.ts';
import {
  COMPARISON_SCHEMA,
  type ComparedRun,
  type Comparison,
  type ComparisonOptions,
  type Contrast,
  type DriftAnalysis,
  type GeometricMean,
  type MultipleComparisons,
  type PowerAnalysis,
  type RunRole,
  type RunSummary,
  type SubjectComparison,
} from './types.ts';
import { judge, withDrift } from './verdict.ts';

export const DEFAULT_OPTIONS: ComparisonOptions = {
  alpha: 0.05,
  correction: 'holm',
  thresholdPct: 1,
  confidenceLevel: 0.95,
  bootstrapResamples: 10_000,
  bootstrapSeed: 1,
  power: 0.8,
  minRounds: 5,
  detectPct: null,
  allowMismatch: false,
  allowIncomplete: false,
};

export interface CompareInput {
  a: RunWithRounds;
  b: RunWithRounds;
  a2?: RunWithRounds;
}

function roundsOf(run: RunWithRounds, subject: string) {
  return run.rounds.filter((r) => r.subject === subject && !r.warmup);
}

function summarize(role: RunRole, run: RunWithRounds, subject: string, values: Sample, level: number): RunSummary {
  const rounds = roundsOf(run, subject);
  const m = mean(values);
  const sd = stdev(values);
  const halfWidth = values.length >= 2 ? studentTQuantile((1 + level) / 2, values.length - 1) * (sd / Math.sqrt(values.length)) : 0;
  return {
    role,
    runId: run.id,
    n: values.length,
    meanInUnit: m,
    medianInUnit: median(values),
    stdevInUnit: sd,
    cvPct: cvPct(values),
    minInUnit: min(values),
    maxInUnit: max(values),
    ciMeanInUnit:
      values.length >= 2
        ? { kind: 'ok', low: m - halfWidth, high: m + halfWidth, level }
        : insufficient('an interval of the mean needs at least 2 rounds'),
    valuesInUnit: [...values],
    seqs: rounds.map((r) => r.seq),
    opsPerRound: rounds.map((r) => r.ops),
  };
}

function contrast(
  baselineRole: Contrast['baseline'],
  baselineRuns: readonly Sample[],
  candidateRole: RunRole,
  candidate: Sample,
  options: ComparisonOptions,
): Contrast {
  const pooled = baselineRuns.flat();
  const baseMean = pooled.reduce((s, x) => s + x, 0) / pooled.length;
  const candMean = mean(candidate);
  return {
    candidate: candidateRole,
    baseline: baselineRole,
    baselineMeanInUnit: baseMean,
    candidateMeanInUnit: candMean,
    changeInUnit: candMean - baseMean,
    changePct: 100 * (candMean / baseMean - 1),
    ratio: candMean / baseMean,
    ciPct: bootstrapChangePct(baselineRuns, candidate, {
      resamples: options.bootstrapResamples,
      seed: options.bootstrapSeed,
      level: options.confidenceLevel,
    }),
    welch: welchTTest(pooled, candidate),
    mannWhitney: mannWhitneyU(pooled, candidate),
    // Filled in by correctFamily once every subject's contrast of this kind is known.
    adjusted: { kind: 'not-tested', reason: 'not yet corrected' },
  };
}

function powerOf(a: RunSummary, b: RunSummary, options: ComparisonOptions): PowerAnalysis {
  const noiseA = { stdev: a.stdevInUnit, n: a.n };
  const noiseB = { stdev: b.stdevInUnit, n: b.n };
  const po = { alpha: options.alpha, power: options.power };
  const mde = minimumDetectableEffect(noiseA, noiseB, po);
  if (mde.kind !== 'ok') return mde;
  let needed: number | null = null;
  if (options.detectPct !== null) {
    const r = roundsNeeded(noiseA, noiseB, (options.detectPct / 100) * Math.abs(a.meanInUnit), po);
    if (r.kind !== 'ok') return r;
    needed = r.rounds;
  }
  return {
    kind: 'ok',
    alpha: options.alpha,
    power: options.power,
    mdePct: (100 * mde.effect) / Math.abs(a.meanInUnit),
    detectPct: options.detectPct,
    roundsNeeded: needed,
  };
}

/** A/B/A before the correction: the contrasts and the rounds behind them. */
type DriftDraft =
  | { kind: 'no-a2' }
  | InsufficientData
  | {
      kind: 'measured';
      drift: FamilyMember;
      vsPooled: FamilyMember;
      vsMidpoint: { midpointInUnit: number; changeInUnit: number; changePct: number };
    };

/** A subject measured in A and B, before its families are corrected and its verdicts judged. */
interface SubjectDraft {
  subject: string;
  runs: RunSummary[];
  change: FamilyMember;
  drift: DriftDraft;
  power: PowerAnalysis;
  incomplete: boolean;
}

function driftOf(aValues: Sample, bValues: Sample, a2Values: readonly number[] | null, options: ComparisonOptions): DriftDraft {
  if (a2Values === null) return { kind: 'no-a2' };
  if (!isSample(a2Values)) return insufficient('not measured in A2');
  const midpoint = (mean(aValues) + mean(a2Values)) / 2;
  const bMean = mean(bValues);
  return {
    kind: 'measured',
    drift: { contrast: contrast('A', [aValues], 'A2', a2Values, options), rounds: { baseline: aValues.length, candidate: a2Values.length } },
    vsPooled: {
      contrast: contrast('A+A2', [aValues, a2Values], 'B', bValues, options),
      rounds: { baseline: aValues.length + a2Values.length, candidate: bValues.length },
    },
    vsMidpoint: { midpointInUnit: midpoint, changeInUnit: bMean - midpoint, changePct: 100 * (bMean / midpoint - 1) },
  };
}

function measureSubject(subject: string, runs: readonly RoleRun[], options: ComparisonOptions): SubjectDraft | null {
  const values = new Map(runs.map((r) => [r.role, measuredValues(r.run, subject)]));
  const aValues = values.get('A') ?? [];
  const bValues = values.get('B') ?? [];
  if (!isSample(aValues) || !isSample(bValues)) return null;
  const summaries: RunSummary[] = [];
  for (const { role, run } of runs) {
    const v = values.get(role) ?? [];
    if (isSample(v)) summaries.push(summarize(role, run, subject, v, options.confidenceLevel));
  }
  const a2 = runs.some((r) => r.role === 'A2') ? (values.get('A2') ?? []) : null;
  const [sa, sb] = summaries;
  return {
    subject,
    runs: summaries,
    change: { contrast: contrast('A', [aValues], 'B', bValues, options), rounds: { baseline: aValues.length, candidate: bValues.length } },
    drift: driftOf(aValues, bValues, a2, options),
    power: powerOf(sa!, sb!, options),
    incomplete: runs.some((r) => r.run.status !== 'complete'),
  };
}

/** A subject's A/B/A analysis and verdicts, from contrasts that carry their family's adjusted p-values. */
function judgeSubject(
  d: SubjectDraft,
  change: Contrast,
  corrected: { drift: Contrast; vsPooled: Contrast } | null,
  direction: Direction,
  options: ComparisonOptions,
): SubjectComparison {
  let drift: DriftAnalysis = d.drift.kind === 'measured' ? insufficient('the drift was not corrected') : d.drift;
  if (d.drift.kind === 'measured' && corrected !== null) {
    drift = {
      kind: 'measured',
      drift: corrected.drift,
      driftVerdict: judge(corrected.drift, d.drift.drift.rounds, direction, options),
      vsPooled: corrected.vsPooled,
      vsMidpoint: d.drift.vsMidpoint,
      driftAsLargeAsChange: Math.abs(corrected.drift.changePct) >= Math.abs(change.changePct),
    };
  }
  let verdict = judge(change, d.change.rounds, direction, options);
  if (drift.kind === 'measured') verdict = withDrift(verdict, change, drift.drift);
  if (d.incomplete) verdict = { ...verdict, caveats: [...verdict.caveats, 'incomplete-run'] };
  return { subject: d.subject, runs: d.runs, change, drift, power: d.power, verdict };
}

/**
 * Correct each family (B vs A, A2 vs A, B vs A+A2) over the subjects, then
 * judge every subject on its adjusted p-values.
 */
function judgeAll(drafts: readonly SubjectDraft[], direction: Direction, options: ComparisonOptions) {
  const changes = correctFamily(drafts.map((d) => d.change), options);
  const measured = drafts.flatMap((d) => (d.drift.kind === 'measured' ? [d.drift] : []));
  const drifts = correctFamily(measured.map((m) => m.drift), options);
  const pooled = correctFamily(measured.map((m) => m.vsPooled), options);
  let k = 0;
  const subjects = drafts.map((d, i) => {
    const corrected = d.drift.kind === 'measured' ? { drift: drifts.contrasts[k]!, vsPooled: pooled.contrasts[k++]! } : null;
    return judgeSubject(d, changes.contrasts[i]!, corrected, direction, options);
  });
  const multipleComparisons: MultipleComparisons = {
    correction: options.correction,
    familySize: changes.familySize,
    driftFamilySize: drafts.some((d) => d.drift.kind !== 'no-a2') ? drifts.familySize : null,
  };
  return { subjects, multipleComparisons };
}

/** Subjects in first-measured order: A's, then any only B or A2 measured. */
function subjectOrder(runs: readonly RoleRun[]): string[] {
  const seen = new Set<string>();
  for (const { run } of runs) for (const r of run.rounds) if (!r.warmup) seen.add(r.subject);
  return [...seen];
}

function geometricMeanOf(subjects: readonly SubjectComparison[], direction: Direction): GeometricMean {
  const ratios = subjects.map((s) => s.change.ratio);
  if (!isSample(ratios)) return insufficient('no subject was measured in both A and B');
  if (ratios.some((r) => !(r > 0) || !Number.isFinite(r))) {
    return insufficient('a mean is zero or negative, so ratios of means are not meaningful');
  }
  const ratio = geometricMean(ratios);
  const improved = direction === 'lower-is-better' ? ratio < 1 : ratio > 1;
  return { kind: 'ok', ratio, changePct: 100 * (ratio - 1), improved, subjects: ratios.length };
}

function comparedRun(role: RunRole, run: RunWithRounds): ComparedRun {
  const { rounds: _rounds, unit: _unit, ...rest } = run;
  return { role, ...rest };
}

/**
 * Compare B (and A2) with A. Throws ComparisonRefused when units differ,
 * a run is not complete (unless allowIncomplete) or the checked environment
 * differs (unless allowMismatch).
 */
export function compare(input: CompareInput, partial: Partial<ComparisonOptions> = {}): Comparison {
  const options: ComparisonOptions = { ...DEFAULT_OPTIONS, confidenceLevel: 1 - (partial.alpha ?? DEFAULT_OPTIONS.alpha), ...partial };
  const runs: RoleRun[] = [
    { role: 'A', run: input.a },
    { role: 'B', run: input.b },
    ...(input.a2 ? [{ role: 'A2' as const, run: input.a2 }] : []),
  ];
  checkUnits(runs);
  checkStatus(runs, options.allowIncomplete);
  const unit = input.a.unit;
  const direction = directionOf(unit);
  const drafts: SubjectDraft[] = [];
  const notCompared: Comparison['notCompared'] = [];
  for (const subject of subjectOrder(runs)) {
    const draft = measureSubject(subject, runs, options);
    if (draft) drafts.push(draft);
    else {
      const presentIn = runs.filter((r) => measuredValues(r.run, subject).length > 0).map((r) => r.role);
      notCompared.push({ subject, presentIn });
    }
  }
  const { subjects, multipleComparisons } = judgeAll(drafts, direction, options);
  const environment = environmentTable(runs, subjects.map((s) => s.subject));
  const mismatchesAllowed = checkEnvironment(environment, options.allowMismatch);
  return {
    schema: COMPARISON_SCHEMA,
    unit,
    direction,
    runs: runs.map((r) => comparedRun(r.role, r.run)),
    options,
    subjects,
    notCompared,
    notRun: notRunOf(runs),
    multipleComparisons,
    geometricMean: geometricMeanOf(subjects, direction),
    regressions: subjects.filter((s) => s.verdict.verdict === 'slower').map((s) => s.subject),
    environment,
    mismatchesAllowed,
  };
}
