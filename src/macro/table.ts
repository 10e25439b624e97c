/**
 * The text printed after a macro run: per subject the throughput with its
 * noise, the usr+sys throughput, and each stressor-specific metric's mean
 * with its unit and its spread (CV over the rounds). Returns text; the CLI decides where it goes.
 */
import type { RunWithRounds } from '../model.ts';
import { cvPct, isSample, max, mean, min } from '../stats/descriptive.ts';
import { formatNumber } from '../format/numbers.ts';
import { formatColumnPct } from '../format/percent.ts';
import type { UnavailableStressor } from './stressors.ts';
import { alignColumns } from '../format/columns.ts';

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
