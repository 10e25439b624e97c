/** Where `hintlab vm`'s text goes per boot and at the end, with or without --macro (the text is src/report/vm.ts's). */
import type { VmDeps, StepResult } from '../vm/runner.ts';
import { bootsNeeded } from '../vm/boots-needed.ts';
import { accelLine, bootsNeededText, bootStartLine, compareLine, stepLine, stepsTable } from '../report/vm.ts';
import type { RunWithRounds } from '../model.ts';
import type { Store } from '../store/store.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import type { Progress } from './progress.ts';

/** What happened to the boot in flight when a run was interrupted, by where boots run. */
const IN_FLIGHT = {
  qemu: 'qemu was stopped and the boot in flight is stored as failed',
  lava: 'the LAVA job in flight was asked to cancel and its boot is stored as failed',
} as const;

/** The table of every boot, then the failures as an error, or the boots a claim needs and the compare command to run next. */
export function reportSteps(io: CliIO, store: Store, result: { state: 'finished' | 'interrupted'; steps: StepResult[] }, planned: number, db: string | undefined, detectPct?: number, where: keyof typeof IN_FLIGHT = 'qemu'): void {
  // pooled boots share their kernel's run: one column per run
  const runs = [...new Set(result.steps.map((s) => s.runId))].map((id) => store.getRun(id));
  if (runs.length) io.stdout(stepsTable(runs));
  const failed = result.steps.filter((s) => s.state === 'failed');
  if (result.state === 'interrupted') throw new UserError(`interrupted after ${result.steps.length} of ${planned} boots; ${IN_FLIGHT[where]}`);
  if (failed.length) {
    throw new UserError(`${failed.length} of ${planned} boots failed (${failed.map((s) => s.runLabel).join(', ')}); they are stored as failed runs in ${store.path} and never used as data`);
  }
  if (detectPct !== undefined) io.stdout(bootsNeededText(bootsNeeded(byKernel(result.steps, runs), detectPct), detectPct));
  const line = compareLine(result.steps, db);
  if (line) io.stdout(line);
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
    onAccel: (c) => io.stderr(accelLine(c)),
    onStepStart: (s) => io.stderr(bootStartLine(s, planned)),
    onStepEnd: (s) => {
      bar.clear();
      io.stderr(stepLine(s));
    },
  };
}
