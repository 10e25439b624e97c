/**
 * Units of replication in a comparison: grouping a run's rounds by unit,
 * naming units for people ("3 processes x 5 rounds"), saying what to run
 * when there are too few, and estimating run-to-run variation from A/A2.
 *
 * Why units: rounds of one probe process (or boot, or stress-ng
 * invocation) share its state, so they are not independent evidence about
 * a kernel; between-unit variation is what a second run sees again
 * (Kalibera & Jones 2013, "Rigorous benchmarking in reasonable time").
 */
import type { Known, ReplicateUnit, RunWithRounds } from '../model.ts';
import { unitNounOf } from '../format/units.ts';
import type { Units } from '../stats/bootstrap.ts';
import { type Sample, mean, variance } from '../stats/descriptive.ts';
import type { RunToRun } from './types.ts';

/**
 * A subject's measured rounds grouped by unit, in unit order (empty units
 * skipped). `roundsAsUnits` makes every round its own unit.
 */
export function unitsOf(run: RunWithRounds, subject: string, roundsAsUnits: boolean): Sample[] {
  const rounds = run.rounds.filter((r) => r.subject === subject && !r.warmup);
  if (roundsAsUnits) return rounds.map((r): Sample => [r.value]);
  const byUnit = new Map<number, number[]>();
  for (const r of rounds) byUnit.set(r.replicate, [...(byUnit.get(r.replicate) ?? []), r.value]);
  return [...byUnit.keys()].sort((a, b) => a - b).map((k) => byUnit.get(k) as unknown as Sample);
}

/** '3 processes', '1 boot', '1 unit (units not recorded)'. */
export function unitCount(unit: Known<ReplicateUnit>, n: number): string {
  if (!unit.known) return `${n} unit${n === 1 ? '' : 's'} (${unit.reason})`;
  return `${n} ${unitNounOf(unit.value, n !== 1)}`;
}

/** What to run so that every run has at least `minUnits` units, in the words of the run's unit. */
export function moreUnitsAdvice(unit: Known<ReplicateUnit>, minUnits: number): string {
  const n = Math.max(minUnits, 5);
  if (!unit.known) return `measure again with this hintlab, which records units: hintlab bench --processes ${n} (--rounds ${2 * n} or more)`;
  switch (unit.value) {
    case 'process':
      return `run ${minUnits} or more probe processes per run: hintlab bench --processes ${n} --rounds ${2 * n} (or more)`;
    case 'boot':
      return `boot each kernel ${minUnits} or more times (hintlab vm --order A,B,A,B,A,B, or hintlab session --order ABABAB on a box) and give each side's boots together: hintlab compare vm-A-1,vm-A-2,vm-A-3 vm-B-1,vm-B-2,vm-B-3`;
    case 'invocation':
      return `run ${minUnits} or more stress-ng invocations per subject: --repeats ${n}`;
  }
}

/**
 * The run-to-run variance of a run's level, estimated from two runs of the
 * same configuration (A and A2) by the method of moments: with unit-level
 * standard errors se_A and se_A2 of the two levels and d = level(A2) -
 * level(A), E[d²] = 2σ²_run + se_A² + se_A2², so σ²_run = max(0, (d² -
 * se_A² - se_A2²) / 2) (the one-way random-effects ANOVA estimator for two
 * groups; Searle, Casella & McCulloch 1992, Variance Components, §3.5).
 * B vs the midpoint of A and A2 then carries B's own run effect and the
 * mean of two baseline run effects: σ²_run (1 + 1/2). The estimate has one
 * degree of freedom; the test says so (src/compare/contrast.ts).
 */
export function runToRunOf(a: Units, a2: Units, baselineLevel: number): RunToRun {
  if (a.length < 2 || a2.length < 2) return { kind: 'not-estimated' };
  const ma = a.map((u) => mean(u)) as unknown as Sample;
  const ma2 = a2.map((u) => mean(u)) as unknown as Sample;
  const d = mean(ma2) - mean(ma);
  const se2 = variance(ma) / ma.length + variance(ma2) / ma2.length;
  const runVar = Math.max(0, (d * d - se2) / 2);
  const runSdPct = (100 * Math.sqrt(runVar)) / Math.abs(baselineLevel);
  return { kind: 'from-a2', runSdPct, addedSePct: Math.sqrt(1.5) * runSdPct };
}
