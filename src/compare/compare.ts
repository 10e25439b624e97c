/**
 * Build a Comparison document from two or three runs (A, B, optional A2).
 * All statistics are computed here, once; reports only format them.
 */
import { type Direction, type Known, type ReplicateUnit, type RunWithRounds, directionOf, measuredValues } from '../model.ts';
import { type Units, meanOfUnitMeans, unitMeans } from '../stats/bootstrap.ts';
import { type Sample, cvPct, geometricMean, isSample, max, mean, median, min, stdev } from '../stats/descriptive.ts';
import { studentTQuantile } from '../stats/distributions.ts';
import { type InsufficientData, insufficient } from '../stats/result.ts';
import { withExactCounts, withExactRates } from './exact.ts';
import { runLevelContrast } from './aba.ts';
import { abbaabContrast } from './abbaab.ts';
import { type RoleRun, checkEnvironment, checkStatus, checkUnits, environmentTable } from './checks.ts';
import { type PairGrouping, pairedContrast, unpairedContrast } from './contrast.ts';
import { type FamilyMember, correctFamily } from './family.ts';
import { notRunOf } from './not-run.ts';
import { adviceOf, powerOf } from './sensitivity.ts';
import { keyedUnitsOf, moreUnitsAdvice, pairsOf, unitCount, unitsOf } from './units.ts';
import { busyWarnings } from './busy.ts';
import { COMPARISON_SCHEMA, type ComparedRun, type Comparison, type ComparisonDesign, type Contrast, type DriftAnalysis, type GeometricMean, type Measures, type MultipleComparisons, type RunRole, type RunSummary, type SubjectComparison } from './types.ts';
import type { ComparisonOptions } from './options.ts';
import { type SideCounts, isClaim, isWorse, judge, withAdvice, withDesign, withDrift } from './verdict.ts';
import { type Design, designOf, designText, isPaired } from './design.ts';
import { clockOf, sharedClock } from './clock.ts';

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
  incomplete: boolean;
}

/**
 * A/B/A: the drift A2 vs A (unit-level Welch: does the baseline move?), and
 * B against both baselines: on run levels with the run-to-run term
 * (src/compare/aba.ts), or, when every unit is a boot of its own, on the
 * pooled boots (the run-to-run variation is then inside the units).
 */
function driftOf(a: Side, b: Side, a2: Side | null | undefined, options: ComparisonOptions, design: Design): DriftDraft {
  if (a2 === undefined) return { kind: 'no-a2' };
  if (a2 === null) return insufficient('not measured in A2');
  const levelA = meanOfUnitMeans([a.units]);
  const levelA2 = meanOfUnitMeans([a2.units]);
  const midpoint = (levelA + levelA2) / 2;
  const bLevel = meanOfUnitMeans([b.units]);
  // boots interleaved in time are units; boots in three blocks A, B, A2 are an A/B/A of blocks (./boot-order.ts)
  const boots = [a, b, a2].every((s) => s.replicateUnit.known && s.replicateUnit.value === 'boot') && !(design.kind === 'boots' && design.order.kind === 'aba-blocks');
  return {
    kind: 'measured',
    drift: { contrast: unpairedContrast('A', [a.units], 'A2', a2.units, options), counts: countsOf([a], a2, options) },
    vsPooled: {
      contrast: boots ? unpairedContrast('A+A2', [a.units, a2.units], 'B', b.units, options) : runLevelContrast(a.units, a2.units, b.units, options),
      counts: countsOf([a, a2], b, options),
    },
    vsMidpoint: { midpointInUnit: midpoint, changeInUnit: bLevel - midpoint, changePct: 100 * (bLevel / midpoint - 1) },
  };
}

/** B vs A: paired on unit k of each run for duet and alternation, unpaired on unit means otherwise. */
function changeOf(a: Side, b: Side, subject: string, design: Design, options: ComparisonOptions): FamilyMember {
  const counts = countsOf([a], b, options);
  if (design.kind === 'abbaab' && !options.roundsAsUnits) return abbaabChange(a, b, subject, design, options, counts);
  if (!isPaired(design) || options.roundsAsUnits) return { contrast: unpairedContrast('A', [a.units], 'B', b.units, options), counts };
  const pairs = pairsOf(a.run, b.run, subject);
  const dropped = pairs.dropped > 0 ? ` (${pairs.dropped} unit${pairs.dropped === 1 ? '' : 's'} measured on one side only, dropped)` : '';
  const grouping = pairGrouping(design);
  const contrast = pairedContrast(pairs, options, design.stopping !== null, grouping);
  const generations = typeof grouping === 'object' ? ` in ${contrast.units.candidate} generation${contrast.units.candidate === 1 ? '' : 's'} of processes (${grouping.generation} pairs each)` : '';
  return {
    contrast,
    counts: {
      ...counts,
      unitsText: `${pairs.a.length} pair${pairs.a.length === 1 ? '' : 's'} of A and B${generations}${dropped}`,
      advice: typeof grouping === 'object' ? `measure at least ${options.minUnits * grouping.generation} pairs (a longer --time), so that ${options.minUnits} generations of processes take part` : counts.advice,
    },
  };
}

/** abbaab: B vs A on the run levels; a run is the unit of replication, so the counts say runs. */
function abbaabChange(a: Side, b: Side, subject: string, design: Design & { kind: 'abbaab' }, options: ComparisonOptions, counts: SideCounts): FamilyMember {
  const why = insufficient('the abbaab runs do not record their probe processes per run, so their units cannot be grouped into runs');
  const contrast: Contrast =
    design.processesPerRun === null
      ? { ...unpairedContrast('A', [a.units], 'B', b.units, options), test: why, ciPct: why, beyondThreshold: why }
      : abbaabContrast(keyedUnitsOf(a.run, subject), keyedUnitsOf(b.run, subject), design.processesPerRun, design.order, options);
  const { baseline, candidate } = contrast.units;
  const unitsText = `A has ${baseline} run${baseline === 1 ? '' : 's'} and B has ${candidate} in the order ${design.order}`;
  return { contrast, counts: { ...counts, unitsText, advice: 'measure all six runs again: hintlab bench --label-b B --design abbaab' } };
}

/** Pairs of two processes taking turns share a generation; other paired designs' pairs are independent. */
function pairGrouping(design: Design): PairGrouping {
  if (design.kind !== 'alternation' || design.processes !== 2) return 'independent';
  return design.pairsPerProcess ? { generation: design.pairsPerProcess } : 'unrecorded';
}

function sideOf(role: RunRole, run: RunWithRounds, subject: string, options: ComparisonOptions): Side | null {
  const units = unitsOf(run, subject, options.roundsAsUnits);
  if (units.length === 0) return null;
  const replicateUnit: Known<ReplicateUnit> = options.roundsAsUnits ? { known: false, reason: 'every round taken as its own unit' } : run.replicateUnit;
  return { role, run, units, replicateUnit };
}

function measureSubject(subject: string, runs: readonly RoleRun[], options: ComparisonOptions, design: Design): SubjectDraft | null {
  const sides = new Map(runs.map((r) => [r.role, sideOf(r.role, r.run, subject, options)]));
  const a = sides.get('A');
  const b = sides.get('B');
  if (!a || !b) return null;
  const summaries = [...sides.values()].flatMap((s) => (s ? [summarize(s, subject, options.confidenceLevel)] : []));
  return {
    subject,
    runs: summaries,
    change: changeOf(a, b, subject, design, options),
    drift: driftOf(a, b, sides.get('A2'), options, design),
    incomplete: runs.some((r) => r.run.status !== 'complete'),
  };
}

/** What every subject of one comparison is judged with. */
interface JudgeContext {
  direction: Direction;
  options: ComparisonOptions;
  measures: Measures;
  design: Design;
  /** Seconds one pair of every subject took (paired designs), for the advice; null when unknown. */
  secondsPerPair: number | null;
  /** The unit repeats exactly boot to boot (stress-ng under icount): the exact rule of rates applies. */
  exactRates?: boolean;
  /** Subjects in the judged family (filled in by judgeAll): the power figures hold for one changed alone among them. */
  familySize?: number;
  /** Subjects compared (filled in by judgeAll): the family an exact claim's rate is held over. */
  subjects?: number;
}

/** Separate runs and boots in blocks claim nothing at any size: their reason already says which design can. */
function claimsPossible(design: Design): boolean {
  return design.kind !== 'separate-runs' && !(design.kind === 'boots' && design.order.kind === 'blocks');
}

/** A subject's A/B/A analysis and verdicts, from contrasts that carry their family's adjusted p-values. */
function judgeSubject(d: SubjectDraft, change: Contrast, corrected: { drift: Contrast; vsPooled: Contrast } | null, ctx: JudgeContext): SubjectComparison {
  const { direction, options, measures } = ctx;
  let drift: DriftAnalysis = d.drift.kind === 'measured' ? insufficient('the drift was not corrected') : d.drift;
  let verdict = withDesign(judge(change, d.change.counts, direction, options, measures), ctx.design);
  let judged = change;
  if (d.drift.kind === 'measured' && corrected !== null) {
    drift = {
      kind: 'measured',
      drift: corrected.drift,
      driftVerdict: judge(corrected.drift, d.drift.drift.counts, direction, options, measures),
      vsPooled: corrected.vsPooled,
      vsMidpoint: d.drift.vsMidpoint,
      driftAsLargeAsChange: Math.abs(corrected.drift.changePct) >= Math.abs(change.changePct),
    };
    // With A2, B is judged against both baselines, with the run-to-run variation A vs A2 showed.
    verdict = withDesign(withDrift(judge(corrected.vsPooled, d.drift.vsPooled.counts, direction, options, measures), change, corrected.drift), ctx.design);
    judged = corrected.vsPooled;
  }
  if (measures === 'instructions') verdict = withExactCounts(verdict, d.runs, direction, options, ctx.subjects);
  else if (ctx.exactRates) verdict = withExactRates(verdict, d.runs, direction, options, ctx.subjects);
  if (d.incomplete) verdict = { ...verdict, caveats: [...verdict.caveats, 'incomplete-run'] };
  let power = powerOf(judged, d.runs[0]!, d.runs[1]!, options, ctx.familySize);
  if (power.kind === 'ok' && verdict.verdict === 'no difference proven' && claimsPossible(ctx.design)) {
    const advice = adviceOf(judged, power, d.runs[0]!, d.runs[1]!, ctx.design, options, ctx.secondsPerPair, ctx.familySize);
    power = { ...power, advice };
    verdict = withAdvice(verdict, power);
  }
  const judgedOn: SubjectComparison['judgedOn'] = judged === change ? 'B vs A' : 'B vs A+A2';
  return { subject: d.subject, runs: d.runs, change, drift, power, verdict, judgedOn, control: options.controls.includes(d.subject) };
}

/**
 * Correct each family (B vs A, A2 vs A, B vs A+A2) over the subjects, then
 * judge every subject on its adjusted p-values.
 */
function judgeAll(drafts: readonly SubjectDraft[], ctx: JudgeContext) {
  const { options } = ctx;
  const changes = correctFamily(drafts.map((d) => d.change), options);
  const measured = drafts.flatMap((d) => (d.drift.kind === 'measured' ? [d.drift] : []));
  const drifts = correctFamily(measured.map((m) => m.drift), options);
  const pooled = correctFamily(measured.map((m) => m.vsPooled), options);
  let k = 0;
  const judgedFamily = measured.length > 0 ? pooled.familySize : changes.familySize;
  const subjects = drafts.map((d, i) => {
    const corrected = d.drift.kind === 'measured' ? { drift: drifts.contrasts[k]!, vsPooled: pooled.contrasts[k++]! } : null;
    return judgeSubject(d, changes.contrasts[i]!, corrected, { ...ctx, familySize: judgedFamily, subjects: drafts.length });
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

/** Seconds per pair of one paired invocation: from A's start to the later end, over the most pairs a subject has. */
function secondsPerUnit(a: RunWithRounds, b: RunWithRounds, units: readonly number[]): number | null {
  const start = Math.min(Date.parse(a.startedAt), Date.parse(b.startedAt));
  const end = Math.max(Date.parse(a.finishedAt ?? ''), Date.parse(b.finishedAt ?? ''));
  const n = Math.max(0, ...units);
  return Number.isFinite(start) && Number.isFinite(end) && end > start && n > 0 ? (end - start) / 1000 / n : null;
}

function comparedRun(role: RunRole, run: RunWithRounds): ComparedRun {
  const { rounds: _rounds, unit: _unit, ...rest } = run;
  return { role, ...rest, clock: clockOf(run) };
}

/** The document's design: its kind, its line, and the units a report states. */
function comparisonDesign(design: Design, judgedUnits: readonly number[]): ComparisonDesign {
  const paired = design.kind === 'duet' || design.kind === 'alternation';
  const cpus = design.kind === 'duet' && design.cpus !== null ? [...design.cpus] : null;
  const grouping = pairGrouping(design);
  return {
    kind: design.kind,
    text: designText(design, judgedUnits),
    processesPerSide: paired ? (design.processesPerSide ?? null) : null,
    cpus,
    ...(typeof grouping === 'object' ? { pairsPerGeneration: grouping.generation } : {}),
    ...(design.kind === 'boots' ? { bootOrder: design.order } : {}),
  };
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
  // the old round-level statistics (roundsAsUnits, kept for bench/aa-false-claims.ts) knew no design rule
  const design: Design = options.roundsAsUnits && !input.a2 ? { kind: 'processes' } : designOf(input.a, input.b, input.a2);
  const drafts: SubjectDraft[] = [];
  const notCompared: Comparison['notCompared'] = [];
  for (const subject of subjectOrder(runs)) {
    const draft = measureSubject(subject, runs, options, design);
    if (draft) drafts.push(draft);
    else {
      const presentIn = runs.filter((r) => measuredValues(r.run, subject).length > 0).map((r) => r.role);
      notCompared.push({ subject, presentIn });
    }
  }
  const measures: Measures = unit === 'instructions/call' ? 'instructions' : 'time';
  const judgedUnits = drafts.map((d) => (d.drift.kind === 'measured' ? d.drift.vsPooled.contrast.units.candidate : d.change.contrast.units.candidate));
  const secondsPerPair = isPaired(design) ? secondsPerUnit(input.a, input.b, judgedUnits) : null;
  const { subjects, multipleComparisons } = judgeAll(drafts, { direction, options, measures, design, secondsPerPair, exactRates: unit === 'icount-bogo-ops/s' });
  const environment = environmentTable(runs, subjects.map((s) => s.subject));
  const mismatchesAllowed = checkEnvironment(environment, options.allowMismatch);
  return {
    schema: COMPARISON_SCHEMA,
    design: comparisonDesign(design, judgedUnits),
    unit,
    clock: sharedClock(runs),
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
    warnings: busyWarnings(runs),
  };
}
