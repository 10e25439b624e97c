/**
 * What `hintlab macro` prints, on this machine or on a --target box: the
 * plan before it runs, and after a run per subject the throughput with its
 * noise, the usr+sys throughput, and each stressor-specific metric's mean
 * with its unit and its spread (CV over the rounds); the stressors the
 * installed stress-ng lacks, the warnings, and a failed run's message.
 * Text only; the CLI decides where it goes.
 */
import type { EnvWarning } from '../environment/record.ts';
import type { RunWithRounds } from '../model.ts';
import { cvPct, isSample, max, mean, min } from '../stats/descriptive.ts';
import { fixed, formatNumber } from '../format/numbers.ts';
import { formatColumnPct } from '../format/percent.ts';
import { formatDuration } from '../format/durations.ts';
import { alignColumns } from '../format/columns.ts';
import type { MacroPlan, MacroProgress } from '../macro/runner.ts';
import { secondsLeft } from '../macro/progress.ts';
import type { UnavailableStressor } from '../macro/stressors.ts';
import type { MacroWarning } from '../macro/warnings.ts';
import type { VmMacroPlan } from '../vm/macro.ts';
import { runHeadline } from './run-table.ts';

/** Metrics shown in the table's own columns, or not worth a line (context only). */
const NOT_LISTED = new Set(['bogo-ops', 'wall-clock-time', 'user-time', 'system-time', 'cpu-usage-per-instance', 'max-rss']);
const USR_SYS = 'bogo-ops-per-second-usr-sys-time';

function metricMean(run: RunWithRounds, subject: string, name: string): { mean: number; cvPct: number; rounds: number; unit: string } | null {
  const found = run.rounds.filter((r) => r.subject === subject && !r.warmup).flatMap((r) => r.metrics.filter((m) => m.name === name));
  const values = found.map((m) => m.value);
  return isSample(values) ? { mean: mean(values), cvPct: cvPct(values), rounds: values.length, unit: found[0]!.unit } : null;
}

function pad(rows: string[][]): string {
  return alignColumns(rows, (i) => i > 0).join('\n');
}

/** One row per subject; stressor-specific metrics follow as indented lines. */
export function macroTable(run: RunWithRounds): string {
  const rows: string[][] = [['subject', 'mean bogo-ops/s', 'CV', 'min', 'max', 'rounds', 'usr+sys bogo-ops/s']];
  const extras: string[] = [];
  for (const subject of run.params.subjects) {
    const values = run.rounds.filter((r) => r.subject === subject && !r.warmup).map((r) => r.value);
    if (!isSample(values)) continue;
    const usrSys = metricMean(run, subject, USR_SYS);
    rows.push([subject, formatNumber(mean(values)), values.length > 1 ? formatColumnPct(cvPct(values)) : 'n/a', formatNumber(min(values)), formatNumber(max(values)), String(values.length), usrSys ? formatNumber(usrSys.mean) : '-']);
    const names = [...new Set(run.rounds.filter((r) => r.subject === subject).flatMap((r) => r.metrics.map((m) => m.name)))];
    for (const name of names.filter((n) => !NOT_LISTED.has(n) && n !== USR_SYS)) {
      const m = metricMean(run, subject, name);
      if (m) extras.push(`  ${subject} ${name}: mean ${formatNumber(m.mean)} ${m.unit}, CV ${m.rounds > 1 ? formatColumnPct(m.cvPct) : 'n/a'} over ${m.rounds} round${m.rounds === 1 ? '' : 's'}`);
    }
  }
  if (rows.length === 1) return '(no measured rounds)\n';
  return `${pad(rows)}\n${extras.length > 0 ? `stressor metrics:\n${extras.join('\n')}\n` : ''}`;
}

/** The stressors a set asked for that the installed stress-ng lacks. */
export function unavailableText(unavailable: UnavailableStressor[]): string {
  if (unavailable.length === 0) return '';
  return `unavailable: ${unavailable.map((u) => `${u.stressor} (${u.reason})`).join(', ')}\n`;
}

/** What will run, before it runs (`where`: the box, for --target). */
export function planText(plan: MacroPlan, where = ''): string {
  const { req } = plan;
  return (
    unavailableText(plan.unavailable) +
    `${where}stress-ng ${plan.stressNgVersion}: ${plan.stressors.length} stressor${plan.stressors.length === 1 ? '' : 's'} x instances ${plan.instances.join(',')} x ${req.repeats} repeats ` +
    `of ${req.seconds} s, ${req.cooldownSeconds} s cool-down: about ${formatDuration(plan.plannedSeconds)}\n`
  );
}

/** `vm --macro`'s plan, before the boots: the stressors missing, then what each guest runs and for about how long. */
export function guestPlanText(plan: VmMacroPlan, seconds: number, repeats: number, boots: number): string {
  const plannedSeconds = plan.items.length * seconds;
  return (
    unavailableText(plan.unavailable) +
    `stress-ng ${plan.stressNgVersion} in each guest: ${plan.stressors.length} stressor${plan.stressors.length === 1 ? '' : 's'} x instances ${plan.instances.join(',')} x ${repeats} repeats ` +
    `of ${seconds} s: about ${formatDuration(plannedSeconds)} per boot, ${boots} boot${boots === 1 ? '' : 's'}\n`
  );
}

/** The progress bar's label, `elapsedSeconds` into the current phase: e.g. `fifo@2 repeat 3/5 running, 2m05s left`. */
export function progressLabel(p: MacroProgress, elapsedSeconds: number): string {
  const what = p.phase === 'running' ? 'running' : 'cooling down';
  return `${p.item.subject} repeat ${p.item.repeat + 1}/${p.repeats} ${what}, ${formatDuration(secondsLeft(p, elapsedSeconds))} left`;
}

/** A complete run's stdout: the box's name (for --target), the run's headline, its table and the stressors missing. */
export function macroRunText(run: RunWithRounds, plan: MacroPlan, box?: string): string {
  return `${box ? `${box}\n` : ''}${runHeadline(run)}\n${macroTable(run)}${unavailableText(plan.unavailable)}`;
}

/** What a doubtful macro figure means, in one sentence. */
export function macroWarningText(w: MacroWarning): string {
  return `${w.subject}: the stressor used ${fixed(w.meanCpuPct, 2)} % CPU per instance on average: it mostly waited (starved or blocked), so its bogo-ops/s measure waiting rather than work`;
}

/** A complete run's warning lines for stderr, each ending in a newline: the environment's, the doubtful figures', and metrics not stored; `box` prefixes each. */
export function macroWarningLines(envWarnings: readonly EnvWarning[], warnings: readonly MacroWarning[], unclassifiedMetrics: readonly string[], box?: string): string[] {
  const prefix = box ? `${box}: ` : '';
  const lines = [...envWarnings.map((w) => w.message), ...warnings.map(macroWarningText)].map((m) => `warning: ${prefix}${m}\n`);
  if (unclassifiedMetrics.length > 0) lines.push(`warning: ${prefix}stress-ng metrics not stored (their name gives no unit or direction): ${unclassifiedMetrics.join(', ')}\n`);
  return lines;
}

/** A run that did not complete: why, and where it is kept. */
export function macroFailureText(reason: string, run: RunWithRounds, dbPath: string, box?: string): string {
  return `${box ? `${box}: ` : ''}${reason}\nrun #${run.id} is marked failed in ${dbPath}; its ${run.rounds.length} rounds are kept for inspection but never used as valid data`;
}
