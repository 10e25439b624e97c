/** What `hintlab vm` prints per boot and at the end, with or without --macro. */
import type { VmDeps, StepResult } from '../vm/runner.ts';
import { stepsTable } from '../vm/summary.ts';
import type { Store } from '../store/store.ts';
import { type CliIO, UserError } from './io.ts';
import type { Progress } from './progress.ts';

/** One line per finished boot (the failure's reason indented below it). */
export function stepLine(s: StepResult): string {
  if (s.state === 'complete') return `  ${s.runLabel}: complete (run #${s.runId}, ${s.seconds.toFixed(1)} s)\n`;
  return `  ${s.runLabel}: FAILED (run #${s.runId} stored as failed)\n${s.reason.replace(/^/gm, '    ')}\n`;
}

/** The table of every boot, then the failures as an error, or the compare command to run next. */
export function reportSteps(io: CliIO, store: Store, result: { state: 'finished' | 'interrupted'; steps: StepResult[] }, planned: number, db: string | undefined): void {
  const runs = result.steps.map((s) => store.getRun(s.runId));
  if (runs.length) io.stdout(stepsTable(runs));
  const failed = result.steps.filter((s) => s.state === 'failed');
  if (result.state === 'interrupted') throw new UserError(`interrupted after ${result.steps.length} of ${planned} boots; qemu was stopped and the boot in flight is stored as failed`);
  if (failed.length) {
    throw new UserError(`${failed.length} of ${planned} boots failed (${failed.map((s) => s.runLabel).join(', ')}); they are stored as failed runs in ${store.path} and never used as data`);
  }
  const line = compareLine(result.steps, db);
  if (line) io.stdout(line);
}

/**
 * The compare command for the boots just made: each kernel's boots given
 * together, since boots are the units of replication; with fewer than 3
 * boots of a kernel, what to boot for a claim.
 */
export function compareLine(steps: readonly StepResult[], db: string | undefined): string | undefined {
  const byKernel = new Map<string, string[]>();
  for (const s of steps) byKernel.set(s.kernel.label, [...(byKernel.get(s.kernel.label) ?? []), s.runLabel]);
  const [a, b] = [...byKernel.values()];
  if (!a || !b) return undefined;
  const few = Math.min(a.length, b.length) < 3 ? '\n  (fewer than 3 boots per kernel: compare will say insufficient units; boot each kernel 3 or more times, e.g. --order A,B,A,B,A,B)' : '';
  return `compare with: hintlab compare ${a.join(',')} ${b.join(',')}${db ? ` --db ${db}` : ''}${few}\n`;
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
