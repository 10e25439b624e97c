/**
 * What `hintlab vm` prints, with or without --macro: each boot's progress
 * lines, the table of every boot (one column per boot, one row per profile,
 * each cell the median of the measured rounds with its CV, in the runs'
 * unit), the boots a claim needs, and the compare command to run next.
 * Text only; the CLI decides where it goes.
 */
import type { RunWithRounds } from '../model.ts';
import { directionOf, measuredValues } from '../model.ts';
import { formatNumber, significant } from '../format/numbers.ts';
import { formatColumnPct } from '../format/percent.ts';
import { formatSeconds } from '../format/durations.ts';
import { unitSuffix } from '../format/units.ts';
import { alignColumns } from '../format/columns.ts';
import { cvPct, isSample, median } from '../stats/descriptive.ts';
import type { AccelChoice } from '../vm/accel.ts';
import type { BootsNeeded } from '../vm/boots-needed.ts';
import type { StepPlan, StepResult } from '../vm/runner.ts';
import type { SiteEvent } from '../targets/site.ts';
import { describeLavaProgress } from '../targets/lava/target.ts';

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

/** One line per finished boot (the failure's reason indented below it). */
export function stepLine(s: StepResult): string {
  // a pooled boot's run label names the kernel only
  const name = s.runLabel.endsWith(`-${s.bootIndex}`) ? s.runLabel : `${s.runLabel} boot ${s.bootIndex}`;
  if (s.state === 'complete') return `  ${name}: complete (run #${s.runId}, ${formatSeconds(s.seconds, 1)})\n`;
  return `  ${name}: FAILED (run #${s.runId} stored as failed)\n${s.reason.replace(/^/gm, '    ')}\n`;
}

/** The accelerator chosen, and why. */
export function accelLine(c: AccelChoice): string {
  return `accelerator: ${c.accel} (${c.why})\n`;
}

/** A boot starting: its place in the order, its kernel and image. */
export function bootStartLine(s: StepPlan, planned: number): string {
  return `boot ${s.index + 1}/${planned}: kernel ${s.kernel.label} (${s.kernel.image})\n`;
}

/**
 * The compare command for the boots just made: each kernel's runs given
 * together, since boots are the units of replication (with --repeat a
 * kernel's boots are already one run); with fewer than 3 boots of a kernel,
 * what to boot for a claim.
 */
export function compareLine(steps: readonly StepResult[], db: string | undefined): string | undefined {
  const byKernel = new Map<string, { runs: Set<string>; boots: number }>();
  for (const s of steps) {
    const k = byKernel.get(s.kernel.label) ?? { runs: new Set<string>(), boots: 0 };
    k.runs.add(s.runLabel);
    k.boots += 1;
    byKernel.set(s.kernel.label, k);
  }
  const [a, b] = [...byKernel.values()];
  if (!a || !b) return undefined;
  const few = Math.min(a.boots, b.boots) < 3 ? '\n  (fewer than 3 boots per kernel: compare will say insufficient units; boot each kernel 3 or more times, e.g. --repeat 3)' : '';
  return `compare with: hintlab compare ${[...a.runs].join(',')} ${[...b.runs].join(',')}${db ? ` --db ${db}` : ''}${few}\n`;
}

/** The lines `hintlab vm` prints after the boot table: boots per kernel for a claim of `effectPct` %. */
export function bootsNeededText(rows: BootsNeeded[], effectPct: number): string {
  if (rows.length === 0) return '';
  const w = Math.max(...rows.map((r) => r.subject.length));
  const lines = rows.map((r) => {
    // icount boots agree to about 0.001 %: two decimals would print 0.00 %
    const pct = r.spreadPct === null ? '' : r.spreadPct > 0 && r.spreadPct < 0.01 ? `${significant(r.spreadPct, 2)} %` : formatColumnPct(r.spreadPct);
    const spread = r.spreadPct === null ? '' : ` (spread between boots ${pct})`;
    const n = r.needed.kind === 'ok' ? `${r.needed.boots}` : `unknown: ${r.needed.reason}`;
    return `  ${r.subject.padEnd(w)}  ${n}${spread}`;
  });
  return `boots per kernel to detect a ${effectPct} % change (alpha 0.05, power 80 %, from ${rows[0]!.boots} boots; --detect sets the size):\n${lines.join('\n')}\n`;
}

/** A boot site's news for stderr, one line with its newline: a lab's devices, a LAVA job's progress. */
export function siteEventText(e: SiteEvent): string {
  if (e.kind === 'devices') return `LAVA devices: ${e.devices.join(', ')}${e.parallel > 1 ? ` (boots run ${e.parallel} at once)` : ''}\n`;
  return `  ${describeLavaProgress(e.progress)}\n`;
}
