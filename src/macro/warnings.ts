/**
 * Doubtful macro data, as typed warnings printed after a run (not errors:
 * the numbers are what stress-ng measured, but a reader must know).
 */
import type { RunWithRounds } from '../model.ts';

/** A subject whose stressor mostly waited (words: src/report/macro.ts). */
export interface MacroWarning {
  kind: 'stalled';
  subject: string;
  /** Mean CPU use per instance over the measured rounds, in %. */
  meanCpuPct: number;
}

/**
 * Below this mean CPU use per instance a stressor mostly waited: on a
 * loaded machine `schedpolicy` at one instance was seen doing exactly 49
 * bogo ops in every 2 s round at 0.07 % CPU, a perfectly repeatable number
 * that measures starvation, not the scheduler path under test.
 */
export const STALLED_CPU_PCT = 1;

/** Subjects whose stressor used almost no CPU. */
export function macroWarnings(run: RunWithRounds): MacroWarning[] {
  const out: MacroWarning[] = [];
  for (const subject of run.params.subjects) {
    const usage = run.rounds
      .filter((r) => r.subject === subject && !r.warmup)
      .flatMap((r) => r.metrics.filter((m) => m.name === 'cpu-usage-per-instance').map((m) => m.value));
    if (usage.length === 0) continue;
    const meanPct = usage.reduce((a, b) => a + b, 0) / usage.length;
    if (meanPct < STALLED_CPU_PCT) {
      out.push({ kind: 'stalled', subject, meanCpuPct: meanPct });
    }
  }
  return out;
}
