/**
 * Build a Comparison document from two or three runs (A, B, optional A2).
 * All statistics are computed here, once; reports only format them.
 */
import { type Direction, type Known, type ReplicateUnit, type RunWithRounds, directionOf, measuredValues } from '../model.ts';
import { type Units, meanOfUnitMeans, unitMeans } from '../stats/bootstrap.ts';
import { type Sample, cvPct, geometricMean, isSample, max, mean, median, min, stdev } from '../stats/descriptive.ts';
import { studentTQuantile } from '../stats/distributions.ts';
import { minimumDetectableEffect, roundsNeeded } from '../stats/power.ts';
import { type InsufficientData, insufficient } from '../stats/result.ts';
import { type RoleRun, checkEnvironment, checkStatus, checkUnits, environmentTable } from './checks.ts';
import { contrastOf } from './contrast.ts';
import { type FamilyMember, correctFamily } from './family.ts';
import { notRunOf } from './not-run.ts';
import { moreUnitsAdvice, runToRunOf, unitCount, unitsOf } from './units.ts';
import {
  COMPARISON_SCHEMA,
  type ComparedRun,
  type Comparison,
  type ComparisonOptions,
  type Contrast,
  type DriftAnalysis,
  type GeometricMean,
  type Measures,
  type MultipleComparisons,
  type PowerAnalysis,
  type RunRole,
  type RunSummary,
  type SubjectComparison,
} from './types.ts';
import { type SideCounts, isClaim, isWorse, judge, withDesign, withDrift } from './verdict.ts';
import { type Design, designOf } from './design.ts';

export const DEFAULT_OPTIONS: ComparisonOptions = {
  alpha: 0.05,
  correction: 'holm',
  thresholdPct: 1,
  confidenceLevel: 0.95,
  bootstrapResamples: 10_000,
  bootstrapSeed: 1,
  power: 0.8,
  minRounds: 5,
  minUnits: 3,
  roundsAsUnits: false,
  controls: [],
  detectPct: null,
  allowMismatch: false,
  allowIncomplete: false,
};

export interface CompareInput {
  a: RunWithRounds;
  b: RunWithRounds;
  a2?: RunWithRounds;
}

/** One run's rounds of a subject, grouped by unit, with the run's unit of replication. */
interface Side {
  role: RunRole;
  run: RunWithRounds;
  units: Units;
  /** What a unit is, as compared (each round its own unit with roundsAsUnits). */
  replicateUnit: Known<ReplicateUnit>;
}

function summarize(side: Side, subject: string, level: number): RunSummary {
  const rounds = side.run.rounds.filter((r) => r.subject === subject && !r.warmup);
  const values = rounds.map((r) => r.value) as unknown as Sample;
  const means = unitMeans(side.units) as unknown as Sample;
  const m = mean(values);
  const sd = stdev(values);
  // the interval of the run's level is over its units (rounds of one unit share its state), centred on the mean of unit means
  const level0 = mean(means);
  const halfWidth = means.length >= 2 ? studentTQuantile((1 + level) / 2, means.length - 1) * (stdev(means) / Math.sqrt(means.length)) : 0;
  return {
    role: side.role,
    runId: side.run.id,
    n: values.length,
    replicateUnit: side.replicateUnit,
    units: side.units.length,
    roundsPerUnit: side.units.map((u) => u.length),
    unitMeansInUnit: [...means],
    unitCvPct: means.length >= 2 ? cvPct(means) : Number.NaN,
    meanInUnit: m,
    medianInUnit: median(values),
    stdevInUnit: sd,
    cvPct: cvPct(values),
    minInUnit: min(values),
    maxInUnit: max(values),
    ciMeanInUnit:
      means.length >= 2
        ? { kind: 'ok', low: level0 - halfWidth, high: level0 + halfWidth, level }
        : insufficient('an interval of the mean needs at least 2 units of replication'),
    valuesInUnit: [...values],
    seqs: rounds.map((r) => r.seq),
    opsPerRound: rounds.map((r) => r.ops),
  };
}

/** Rounds and units behind a contrast, and what to run when the units are too few. */
function countsOf(baseline: readonly Side[], candidate: Side, options: ComparisonOptions): SideCounts {
  const rounds = (s: Side) => s.units.reduce((n, u) => n + u.length, 0);
  const few = [...baseline, candidate].find((s) => s.units.length < options.minUnits) ?? candidate;
  const unitsText = [...baseline, candidate].map((s, i) => `${i === 0 ? '' : 'and '}${s.role} has ${unitCount(s.replicateUnit, s.units.length)}`).join(' ');
  return {
    baseline: baseline.reduce((n, s) => n + rounds(s), 0),
    candidate: rounds(candidate),
    unitsText,
    advice: moreUnitsAdvice(few.replicateUnit, options.minUnits),
  };
}

/** Power in units: the noise is the spread of unit means, the sample size the number of units. */
function powerOf(a: RunSummary, b: RunSummary, options: ComparisonOptions): PowerAnalysis {
  const noise = (s: RunSummary) => ({ stdev: s.units >= 2 ? stdev(s.unitMeansInUnit as unknown as Sample) : 0, n: s.units });
  const noiseA = noise(a);
  const noiseB = noise(b);
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
    claimablePct: (100 * mde.effect) / Math.abs(a.meanInUnit),
    detectPct: options.detectPct,
    unitsNeeded: needed,
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

function driftOf(a: Side, b: Side, a2: Side | null | undefined, options: ComparisonOptions): DriftDraft {
  if (a2 === undefined) return { kind: 'no-a2' };
  if (a2 === null) return insufficient('not measured in A2');
  const levelA = meanOfUnitMeans([a.units]);
  const levelA2 = meanOfUnitMeans([a2.units]);
  const midpoint = (levelA + levelA2) / 2;
  const bLevel = meanOfUnitMeans([b.units]);
  const runToRun = runToRunOf(a.units, a2.units, meanOfUnitMeans([a.units, a2.units]));
  return {
    kind: 'measured',
    drift: { contrast: contrastOf('A', [a.units], 'A2', a2.units, options), counts: countsOf([a], a2, options) },
    vsPooled: {
      contrast: contrastOf('A+A2', [a.units, a2.units], 'B', b.units, options, runToRun),
      counts: countsOf([a, a2], b, options),
    },
    vsMidpoint: { midpointInUnit: midpoint, changeInUnit: bLevel - midpoint, changePct: 100 * (bLevel / midpoint - 1) },
  };
}

function sideOf(role: RunRole, run: RunWithRounds, subject: string, options: ComparisonOptions): Side | null {
  const units = unitsOf(run, subject, options.roundsAsUnits);
  if (units.length === 0) return null;
  const replicateUnit: Known<ReplicateUnit> = options.roundsAsUnits ? { known: false, reason: 'every round taken as its own unit' } : run.replicateUnit;
  return { role, run, units, replicateUnit };
}

function measureSubject(subject: string, runs: readonly RoleRun[], options: ComparisonOptions): SubjectDraft | null {
  const sides = new Map(runs.map((r) => [r.role, sideOf(r.role, r.run, subject, options)]));
  const a = sides.get('A');
  const b = sides.get('B');
  if (!a || !b) return null;
  const summaries = [...sides.values()].flatMap((s) => (s ? [summarize(s, subject, options.confidenceLevel)] : []));
  return {
    subject,
    runs: summaries,
    change: { contrast: contrastOf('A', [a.units], 'B', b.units, options), counts: countsOf([a], b, options) },
    drift: driftOf(a, b, sides.get('A2'), options),
    power: powerOf(summaries[0]!, summaries[1]!, options),
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
  measures: Measures,
  design: Design,
): SubjectComparison {
  let drift: DriftAnalysis = d.drift.kind === 'measured' ? insufficient('the drift was not corrected') : d.drift;
  // With A2, B is judged against both baselines' units, its interval widened by the run-to-run variation A/A2 showed.
  let verdict = withDesign(judge(change, d.change.counts, direction, options, measures), design);
  let judgedOn: SubjectComparison['judgedOn'] = 'B vs A';
  if (d.drift.kind === 'measured' && corrected !== null) {
    drift = {
      kind: 'measured',
      drift: corrected.drift,
      driftVerdict: judge(corrected.drift, d.drift.drift.counts, direction, options, measures),
      vsPooled: corrected.vsPooled,
      vsMidpoint: d.drift.vsMidpoint,
      driftAsLargeAsChange: Math.abs(corrected.drift.changePct) >= Math.abs(change.changePct),
    };
    verdict = withDrift(judge(corrected.vsPooled, d.drift.vsPooled.counts, direction, options, measures), change, corrected.drift);
    judgedOn = 'B vs A+A2';
  }
  if (d.incomplete) verdict = { ...verdict, caveats: [...verdict.caveats, 'incomplete-run'] };
  const judged = corrected !== null && judgedOn === 'B vs A+A2' ? corrected.vsPooled : change;
  const power = claimFloor(d.power, judged, options.thresholdPct);
  return { subject: d.subject, runs: d.runs, change, drift, power, verdict, judgedOn, control: options.controls.includes(d.subject) };
}

/**
 * A claim needs Welch's test and the whole CI beyond ±threshold, so no change
 * smaller than threshold + the CI's half-width can be claimed, however small
 * Welch's detectable effect is (boots that repeat each other exactly give a
 * tiny one while the bootstrap still resamples the rounds inside them).
 */
function claimFloor(p: PowerAnalysis, judged: Contrast, thresholdPct: number): PowerAnalysis {
  if (p.kind !== 'ok') return p;
  const half = judged.ciPct.kind === 'ok' ? (judged.ciPct.high - judged.ciPct.low) / 2 : 0;
  return { ...p, claimablePct: Math.max(p.mdePct, thresholdPct + half) };
}

/**
 * Correct each family (B vs A, A2 vs A, B vs A+A2) over the subjects, then
 * judge every subject on its adjusted p-values.
 */
function judgeAll(drafts: readonly SubjectDraft[], direction: Direction, options: ComparisonOptions, measures: Measures, design: Design) {
  const changes = correctFamily(drafts.map((d) => d.change), options);
  const measured = drafts.flatMap((d) => (d.drift.kind === 'measured' ? [d.drift] : []));
  const drifts = correctFamily(measured.map((m) => m.drift), options);
  const pooled = correctFamily(measured.map((m) => m.vsPooled), options);
  let k = 0;
  const subjects = drafts.map((d, i) => {
    const corrected = d.drift.kind === 'measured' ? { drift: drifts.contrasts[k]!, vsPooled: pooled.contrasts[k++]! } : null;
    return judgeSubject(d, changes.contrasts[i]!, corrected, direction, options, measures, design);
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

/** Geometric mean of B/A over the compared subjects that are not controls. */
function geometricMeanOf(subjects: readonly SubjectComparison[], direction: Direction): GeometricMean {
  const ratios = subjects.filter((s) => !s.control).map((s) => s.change.ratio);
  if (!isSample(ratios)) return insufficient(subjects.length ? 'every subject compared is a control' : 'no subject was measured in both A and B');
  if (ratios.some((r) => !(r > 0) || !Number.isFinite(r))) {
    return insufficient('a mean is zero or negative, so ratios of means are not meaningful');
  }
  const ratio = geometricMean(ratios);
  const improved = direction === 'lower-is-better' ? ratio < 1 : ratio > 1;
  const claims = subjects.filter((s) => !s.control && isClaim(s.verdict.verdict)).length;
  return { kind: 'ok', ratio, changePct: 100 * (ratio - 1), improved, subjects: ratios.length, claims };
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
  const measures: Measures = unit === 'instructions/call' ? 'instructions' : 'time';
  // the old round-level statistics (roundsAsUnits, kept for bench/aa-false-claims.ts) knew no design rule
  const design: Design = options.roundsAsUnits || input.a2 ? { kind: 'interleaved' } : designOf(input.a, input.b);
  const { subjects, multipleComparisons } = judgeAll(drafts, direction, options, measures, design);
  const environment = environmentTable(runs, subjects.map((s) => s.subject));
  const mismatchesAllowed = checkEnvironment(environment, options.allowMismatch);
  return {
    schema: COMPARISON_SCHEMA,
    unit,
    measures,
    direction,
    runs: runs.map((r) => comparedRun(r.role, r.run)),
    options,
    subjects,
    notCompared,
    notRun: notRunOf(runs),
    multipleComparisons,
    geometricMean: geometricMeanOf(subjects, direction),
    regressions: subjects.filter((s) => !s.control && isWorse(s.verdict.verdict)).map((s) => s.subject),
    controls: subjects.filter((s) => s.control).map((s) => s.subject),
    environment,
    mismatchesAllowed,
  };
}
