/** What `hintlab vm` prints per boot and at the end, with or without --macro. */
import type { VmDeps, StepResult } from '../vm/runner.ts';
import { stepsTable } from '../vm/summary.ts';
import { bootsNeeded, bootsNeededText } from '../vm/boots-needed.ts';
import type { RunWithRounds } from '../model.ts';
import type { Store } from '../store/store.ts';
import { type CliIO, UserError } from './io.ts';
import type { Progress } from './progress.ts';

/** One line per finished boot (the failure's reason indented below it). */
export function stepLine(s: StepResult): string {
  // a pooled boot's run label names the kernel only
  const name = s.runLabel.endsWith(`-${s.bootIndex}`) ? s.runLabel : `${s.runLabel} boot ${s.bootIndex}`;
  if (s.state === 'complete') return `  ${name}: complete (run #${s.runId}, ${s.seconds.toFixed(1)} s)\n`;
  return `  ${name}: FAILED (run #${s.runId} stored as failed)\n${s.reason.replace(/^/gm, '    ')}\n`;
}

/** The table of every boot, then the failures as an error, or the compare command to run next. */
export function reportSteps(io: CliIO, store: Store, result: { state: 'finished' | 'interrupted'; steps: StepResult[] }, planned: number, db: string | undefined, detectPct?: number): void {
  // pooled boots share their kernel's run: one column per run
  const runs = [...new Set(result.steps.map((s) => s.runId))].map((id) => store.getRun(id));
  if (runs.length) io.stdout(stepsTable(runs));
  const failed = result.steps.filter((s) => s.state === 'failed');
  if (result.state === 'interrupted') throw new UserError(`interrupted after ${result.steps.length} of ${planned} boots; qemu was stopped and the boot in flight is stored as failed`);
  if (failed.length) {
    throw new UserError(`${failed.length} of ${planned} boots failed (${failed.map((s) => s.runLabel).join(', ')}); they are stored as failed runs in ${store.path} and never used as data`);
  }
  if (detectPct !== undefined) io.stdout(bootsNeededText(bootsNeeded(byKernel(result.steps, runs), detectPct), detectPct));
  const kernelOf = (r: RunWithRounds): string => result.steps.find((s) => s.runId === r.id)!.kernel.label;
  const name = (r: RunWithRounds): string => r.label ?? `#${r.id}`;
  const [a, b, a2] = runs;
  if (a && b) io.stdout(`compare with: hintlab compare ${name(a)} ${name(b)}${a2 && kernelOf(a2) === kernelOf(a) ? ` ${name(a2)}` : ''}${db ? ` --db ${db}` : ''}\n`);
}


/** Complete runs grouped by the kernel they booted. */
function byKernel(steps: StepResult[], runs: RunWithRounds[]): Map<string, RunWithRounds[]> {
  const out = new Map<string, RunWithRounds[]>();
  for (const run of runs) {
    const label = steps.find((s) => s.runId === run.id)!.kernel.label;
    out.set(label, [...(out.get(label) ?? []), run]);
  }
  return out;
}

/** Progress lines for every boot: the accelerator chosen, each boot's start and its outcome. */
export function stepCallbacks(io: CliIO, bar: Progress, planned: number): Pick<VmDeps, 'onAccel' | 'onStepStart' | 'onStepEnd'> {
  return {
    onAccel: (c) => io.stderr(`accelerator: ${c.accel} (${c.why})\n`),
    onStepStart: (s) => io.stderr(`boot ${s.index + 1}/${planned}: kernel ${s.kernel.label} (${s.kernel.image})\n`),
    onStepEnd: (s) => {
      bar.clear();
      io.stderr(stepLine(s));
    },
  };
}
