/**
 * How many boots per kernel a claim of a given size needs, from the spread
 * between boots actually measured. A boot is the unit of a VM comparison:
 * rounds within one boot share its state, so the noise that decides a
 * verdict is the spread of the boots' means, not of the rounds.
 *
 * Method: the pooled standard deviation of boot means within each kernel
 * (boots of the same kernel differ only by noise), then the two-sample t
 * power approximation of src/stats/power.ts (Julious 2004) for the smallest
 * number of boots per kernel that detects the change with the given power.
 * The text is src/report/vm.ts's.
 */
import type { RunWithRounds } from '../model.ts';
import { roundsNeeded } from '../stats/power.ts';
import { mean } from '../stats/descriptive.ts';

export interface BootsNeeded {
  subject: string;
  /** Boots measured (all kernels) and the spread of boot means, in % of the baseline kernel's mean. */
  boots: number;
  spreadPct: number | null;
  /** Boots per kernel for the claim, or why it cannot be said. */
  needed: { kind: 'ok'; boots: number } | { kind: 'unknown'; reason: string };
}

/** The mean of every boot of `subject`: a boot is a (run, replicate) pair. */
function bootMeans(run: RunWithRounds, subject: string): number[] {
  const by = new Map<number, number[]>();
  for (const r of run.rounds) {
    if (r.subject !== subject || r.warmup) continue;
    by.set(r.replicate, [...(by.get(r.replicate) ?? []), r.value]);
  }
  return [...by.values()].map((v) => mean(v as [number, ...number[]]));
}

/**
 * Pooled within-kernel standard deviation of boot means:
 * sqrt(Σ_k Σ_i (x_ki - x̄_k)² / Σ_k (n_k - 1)), and the baseline's mean (the
 * first group: the first kernel of the order) that a % change refers to.
 */
export function pooledBootSpread(groups: readonly number[][]): { stdev: number; df: number; baseline: number } | null {
  let ss = 0;
  let df = 0;
  for (const g of groups) {
    if (g.length < 2) continue;
    const m = g.reduce((a, b) => a + b, 0) / g.length;
    ss += g.reduce((a, x) => a + (x - m) * (x - m), 0);
    df += g.length - 1;
  }
  const base = groups[0];
  if (df === 0 || !base?.length) return null;
  return { stdev: Math.sqrt(ss / df), df, baseline: base.reduce((a, b) => a + b, 0) / base.length };
}

/** Boots per kernel for a change of `effectPct` % of the mean, from boot means grouped by kernel. */
export function bootsForGroups(groups: readonly number[][], effectPct: number, options = { alpha: 0.05, power: 0.8 }): Omit<BootsNeeded, 'subject'> {
  const boots = groups.reduce((a, g) => a + g.length, 0);
  const spread = pooledBootSpread(groups);
  if (!spread) return { boots, spreadPct: null, needed: { kind: 'unknown', reason: 'needs two boots of one kernel to measure the spread between boots' } };
  const spreadPct = (100 * spread.stdev) / spread.baseline;
  // no spread at all: the fewest boots that still give a spread to check
  if (spread.stdev === 0) return { boots, spreadPct, needed: { kind: 'ok', boots: 2 } };
  const noise = { stdev: spread.stdev, n: 2 };
  const r = roundsNeeded(noise, noise, (effectPct / 100) * spread.baseline, options);
  return { boots, spreadPct, needed: r.kind === 'ok' ? { kind: 'ok', boots: r.rounds } : { kind: 'unknown', reason: r.reason } };
}

/**
 * Boots per kernel to detect a change of `effectPct` % of the mean, for every
 * subject, from complete runs grouped by kernel label.
 */
export function bootsNeeded(runsByKernel: Map<string, RunWithRounds[]>, effectPct: number): BootsNeeded[] {
  const subjects = [...new Set([...runsByKernel.values()].flat().flatMap((r) => r.params.subjects))];
  return subjects.map((subject) => {
    const groups = [...runsByKernel.values()].map((runs) => runs.flatMap((r) => bootMeans(r, subject)));
    return { subject, ...bootsForGroups(groups, effectPct) };
  });
}
