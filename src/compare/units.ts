/**
 * Units of replication in a comparison: grouping a run's rounds by unit,
 * naming units for people ("3 processes x 5 rounds"), saying what to run
 * when there are too few, and pairing the units of paired designs.
 *
 * Why units: rounds of one probe process (or boot, or stress-ng
 * invocation) share its state, so they are not independent evidence about
 * a kernel; between-unit variation is what a second run sees again
 * (Kalibera & Jones 2013, "Rigorous benchmarking in reasonable time").
 */
import type { Known, ReplicateUnit, RunWithRounds } from '../model.ts';
import { unitNounOf } from '../format/units.ts';
import type { Sample } from '../stats/descriptive.ts';
import type { Pairs } from './contrast.ts';

/**
 * A subject's measured rounds grouped by unit, in unit order (empty units
 * skipped). `roundsAsUnits` makes every round its own unit.
 */
export function unitsOf(run: RunWithRounds, subject: string, roundsAsUnits: boolean): Sample[] {
  const rounds = run.rounds.filter((r) => r.subject === subject && !r.warmup);
  if (roundsAsUnits) return rounds.map((r): Sample => [r.value]);
  return [...keyedUnitsOf(run, subject).values()];
}

/** A subject's measured rounds by unit index (Round.replicate), in index order. */
export function keyedUnitsOf(run: RunWithRounds, subject: string): Map<number, Sample> {
  const byUnit = new Map<number, number[]>();
  for (const r of run.rounds) if (r.subject === subject && !r.warmup) byUnit.set(r.replicate, [...(byUnit.get(r.replicate) ?? []), r.value]);
  return new Map([...byUnit.keys()].sort((a, b) => a - b).map((k) => [k, byUnit.get(k) as unknown as Sample]));
}

/**
 * Paired designs: unit k of A with unit k of B (the same instant in a duet,
 * adjacent blocks in an alternation); a unit measured in one run only is
 * dropped and counted.
 */
export function pairsOf(a: RunWithRounds, b: RunWithRounds, subject: string): Pairs {
  const ua = keyedUnitsOf(a, subject);
  const ub = keyedUnitsOf(b, subject);
  const keys = [...ua.keys()].filter((k) => ub.has(k));
  return { a: keys.map((k) => ua.get(k)!), b: keys.map((k) => ub.get(k)!), keys, dropped: ua.size + ub.size - 2 * keys.length };
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
