/**
 * The text `hintlab vm` prints at the end: one column per boot, one row per
 * profile, each cell the median of the measured rounds with its CV, in the
 * runs' unit. Returns text; the CLI decides where it goes.
 */
import type { RunWithRounds } from '../model.ts';
import { directionOf, measuredValues } from '../model.ts';
import { formatNumber } from '../format/numbers.ts';
import { formatColumnPct } from '../format/percent.ts';
import { unitSuffix } from '../format/units.ts';
import { cvPct, isSample, median } from '../stats/descriptive.ts';
import { alignColumns } from '../format/columns.ts';

function cell(run: RunWithRounds, subject: string): string {
  if (run.status !== 'complete') return run.status;
  const values = measuredValues(run, subject);
  if (!isSample(values)) return '-';
  return `${formatNumber(median(values))} ±${formatColumnPct(cvPct(values))}`;
}

/** Medians (with CV) of every profile in every boot, boots in order. */
export function stepsTable(runs: RunWithRounds[]): string {
  const first = runs[0];
  if (!first) return '';
  const subjects = [...new Set(runs.flatMap((r) => r.params.subjects))];
  const per = directionOf(first.unit) === 'higher-is-better' ? '' : '/call';
  const header = [`median ${unitSuffix(first.unit)}${per} (CV)`, ...runs.map((r) => r.label ?? `#${r.id}`)];
  const rows = subjects.map((s) => [s, ...runs.map((r) => cell(r, s))]);
  const all = [header, ...rows];
  return `${alignColumns(all, (i) => i > 0).join('\n')}\n`;
}
