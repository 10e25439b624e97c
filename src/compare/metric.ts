/**
 * Compare one cost counter of `vm --cost` (a per-call metric of each round,
 * named by its unit, e.g. 'taken-branches/call') between runs: the
 * counter's per-round values take the place of the primary value and go
 * through `compare()` unchanged (same units of replication, tests, family
 * correction over the subjects, threshold and verdict rule). The claim is
 * then worded in the counter's own terms ('more taken branches'), never
 * faster/slower, and the document carries the cost model's scope line.
 *
 * Format history (METRIC_COMPARISON_SCHEMA):
 *   1: first version.
 *   2: `identicalUnits` became `exact` (the verdict came from the exact
 *      rule of src/compare/exact.ts: 'identical', or a claim of any size).
 *   3: `MetricEntry.rule`: a counter the plugin counts exactly is judged
 *      by the events-per-call rule (src/compare/exact.ts), a modelled one
 *      against the percentage threshold; `MetricSubject.boots` (boots per
 *      run) and `ciInUnit` (the interval in the counter's unit).
 */
import { COST_METRICS, COST_SCOPE, costCounter, costWords } from '../cost-counters.ts';
import type { RunWithRounds } from '../model.ts';
import { ComparisonRefused } from './checks.ts';
import { type CompareInput, compare } from './compare.ts';
import { EXACT_MIN_PER_CALL, intervalInUnit, withEventsPerCall } from './exact.ts';
import type { Comparison, Contrast, RunRole, SubjectComparison } from './types.ts';
import type { ComparisonOptions } from './options.ts';

export const METRIC_COMPARISON_SCHEMA = 3;

/**
 * How a counter's changes are judged: a count of the emulated execution in
 * events per call (a change of `minPerCall` or more, src/compare/exact.ts),
 * a model's output against the percentage noise threshold.
 */
export type MetricRule = { name: 'events-per-call'; minPerCall: number } | { name: 'percent-threshold'; thresholdPct: number };

/** One subject's change in one counter, from the contrast its verdict was judged on. */
export interface MetricSubject {
  subject: string;
  judgedOn: SubjectComparison['judgedOn'];
  /** Baseline and candidate means (of unit means) in the counter's unit. */
  baselineMean: number;
  candidateMean: number;
  change: number;
  changePct: number;
  ciPct: Contrast['ciPct'];
  /** 'more taken branches' / 'fewer taken branches', or the comparison's own no-claim verdict. */
  verdict: string;
  reason: string;
  /**
   * Every unit (boot) of every run gave the same value: the verdict came
   * from the exact rule ('identical', or more/fewer of any size), not a test.
   */
  exact: boolean;
  /** Units (boots) of each run behind the means (absent before schema 3). */
  boots?: Partial<Record<RunRole, number>>;
  /** The judged contrast's interval of the change in the counter's unit; null without one, as for an exact verdict (absent before schema 3). */
  ciInUnit?: { low: number; high: number; level: number } | null;
}

export interface MetricEntry {
  /** The metric's name as stored (its unit): 'taken-branches/call'. */
  metric: string;
  /** The unit in words: 'taken branches/call'. */
  unit: string;
  /** The rule its verdicts were judged by (absent before schema 3: the percentage threshold, or the exact rule where `exact`). */
  rule?: MetricRule;
  /** How many subjects the family correction ran over (per counter). */
  familySize: number;
  subjects: MetricSubject[];
  notCompared: Comparison['notCompared'];
}

export interface MetricComparison {
  schema: typeof METRIC_COMPARISON_SCHEMA;
  kind: 'cost-metrics';
  /** The cost model's scope: counts and model outputs, never a time. */
  scope: string;
  design: Comparison['design'];
  runs: { role: RunRole; runId: number; label: string | null }[];
  options: ComparisonOptions;
  metrics: MetricEntry[];
}

/** The run with each round's value replaced by its metric `name`; rounds without it are left out. */
export function metricRun(run: RunWithRounds, name: string): RunWithRounds {
  const rounds = run.rounds.flatMap((r) => {
    const m = r.metrics.find((x) => x.name === name);
    return m ? [{ ...r, value: m.value, total: m.value * r.ops }] : [];
  });
  return { ...run, rounds };
}

/** The cost counters a run carries on its measured rounds, in report order. */
export function costCountersOf(run: RunWithRounds): string[] {
  const names = new Set(run.rounds.filter((r) => !r.warmup).flatMap((r) => r.metrics.map((m) => m.name)));
  return COST_METRICS.filter((c) => names.has(c));
}

/** 'all' is every counter A and B both carry; a named one must be a counter both carry. */
function metricsToCompare(input: CompareInput, metric: string): string[] {
  const inA = costCountersOf(input.a);
  const both = costCountersOf(input.b).filter((c) => inA.includes(c));
  const carried = both.length ? both.join(', ') : 'none (run them with vm --cost)';
  if (metric === 'all') {
    if (both.length === 0) throw new ComparisonRefused(`--metric all: A and B carry no cost counter in common; cost counters in both: ${carried}`);
    return both;
  }
  if (!COST_METRICS.includes(metric)) throw new ComparisonRefused(`--metric ${metric}: not a cost counter; use one of ${COST_METRICS.join(', ')} or all`);
  if (!both.includes(metric)) throw new ComparisonRefused(`--metric ${metric}: not carried by both A and B; cost counters in both: ${carried}`);
  return [metric];
}

/** A claim in the counter's words; verdicts that claim nothing stay as they are. */
function verdictIn(metric: string, verdict: string): string {
  const { thing } = costWords(metric);
  if (verdict === 'more instructions') return `more ${thing}`;
  if (verdict === 'fewer instructions') return `fewer ${thing}`;
  return verdict;
}

/** The rule of a counter: events per call for an exact count, the threshold for a model's output. */
function ruleOf(metric: string, options: ComparisonOptions): MetricRule {
  return costCounter(metric)?.source === 'exact' ? { name: 'events-per-call', minPerCall: EXACT_MIN_PER_CALL } : { name: 'percent-threshold', thresholdPct: options.thresholdPct };
}

function subjectOf(metric: string, s: SubjectComparison, rule: MetricRule, options: ComparisonOptions): MetricSubject {
  const judged = s.judgedOn === 'B vs A' || s.drift.kind !== 'measured' ? s.change : s.drift.vsPooled;
  const verdict = rule.name === 'events-per-call' ? withEventsPerCall(s.verdict, judged, 'lower-is-better', options, costCounter(metric)?.per) : s.verdict;
  return {
    subject: s.subject,
    judgedOn: s.judgedOn,
    baselineMean: judged.baselineMeanInUnit,
    candidateMean: judged.candidateMeanInUnit,
    change: judged.changeInUnit,
    changePct: judged.changePct,
    ciPct: judged.ciPct,
    verdict: verdictIn(metric, verdict.verdict),
    reason: verdict.reason,
    exact: verdict.exact === true,
    boots: Object.fromEntries(s.runs.map((r) => [r.role, r.units])),
    ciInUnit: verdict.exact ? null : intervalInUnit(judged),
  };
}

/**
 * Compare the cost counter `metric` (or 'all' of them) of B (and A2) with A.
 * The runs must be instruction-counted (`vm --cost`), so compare() words its
 * claims as counts, which are then put in the counter's words. Throws
 * ComparisonRefused as compare() does, and for a counter not in both runs.
 */
export function compareMetrics(input: CompareInput, metric: string, options: Partial<ComparisonOptions> = {}): MetricComparison {
  if (input.a.unit !== 'instructions/call') {
    throw new ComparisonRefused(`--metric: run A (#${input.a.id}) counts ${input.a.unit}; cost counters come from vm --cost runs (instructions/call)`);
  }
  const entries = metricsToCompare(input, metric).map((name) => {
    const over = (run: RunWithRounds) => metricRun(run, name);
    const cmp = compare({ a: over(input.a), b: over(input.b), ...(input.a2 ? { a2: over(input.a2) } : {}) }, options);
    return { cmp, entry: entryOf(name, cmp) };
  });
  const first = entries[0]!.cmp;
  return {
    schema: METRIC_COMPARISON_SCHEMA,
    kind: 'cost-metrics',
    scope: COST_SCOPE,
    design: first.design,
    runs: first.runs.map((r) => ({ role: r.role, runId: r.id, label: r.label })),
    options: first.options,
    metrics: entries.map((e) => e.entry),
  };
}

function entryOf(name: string, cmp: Comparison): MetricEntry {
  const rule = ruleOf(name, cmp.options);
  return {
    metric: name,
    unit: costWords(name).perOp,
    rule,
    familySize: cmp.multipleComparisons.familySize,
    subjects: cmp.subjects.map((s) => subjectOf(name, s, rule, cmp.options)),
    notCompared: cmp.notCompared,
  };
}
