/** What `hintlab vm` prints per boot and at the end, with or without --macro. */
import type { VmDeps, StepResult } from '../vm/runner.ts';
import { stepsTable } from '../vm/summary.ts';
import { bootsNeeded, bootsNeededText } from '../vm/boots-needed.ts';
import type { RunWithRounds } from '../model.ts';
import type { Store } from '../store/store.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import type { Progress } from './progress.ts';

/** One line per finished boot (the failure's reason indented below it). */
export function stepLine(s: StepResult): string {
  // a pooled boot's run label names the kernel only
  const name = s.runLabel.endsWith(`-${s.bootIndex}`) ? s.runLabel : `${s.runLabel} boot ${s.bootIndex}`;
  if (s.state === 'complete') return `  ${name}: complete (run #${s.runId}, ${s.seconds.toFixed(1)} s)\n`;
  return `  ${name}: FAILED (run #${s.runId} stored as failed)\n${s.reason.replace(/^/gm, '    ')}\n`;
}

/** The table of every boot, then the failures as an error, or the compare command to run next. */
/** What happened to the boot in flight when a run was interrupted, by where boots run. */
const IN_FLIGHT = {
  qemu: 'qemu was stopped and the boot in flight is stored as failed',
  lava: 'the LAVA job in flight was asked to cancel and its boot is stored as failed',
} as const;

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
