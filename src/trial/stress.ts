/**
 * A trial's stressors (`trial --stressor NAME`, `--set sched`): stress-ng
 * in A/B boots of the measured kernels, after the profile boots, through
 * `vm --macro`'s guest runner (src/vm/macro.ts), in the profiles' boot
 * order (A B B A ...), each boot one unit of its kernel's run. Under
 * icount (the default) the guest clock counts instructions, so every
 * round is bogo-ops per guest second ('icount-bogo-ops/s'), never per
 * second of real time; with --kvm they are real bogo-ops/s.
 *
 * The boots are their own (not the profile boots): a profile boot runs the
 * probe's profiles as /init in a 256 MiB one-CPU guest whose initramfs holds
 * the probe only; stress-ng and its libraries (~25 MB) need 512 MiB and a
 * plan run of the probe, and adding them to the profile boots would change
 * what the profiles measure (and the key of every stored profile step).
 *
 * The selection is checked against the installed stress-ng before anything
 * builds (`planStress`): a name it does not know is refused with the
 * closest one it does; what --set sched asks for and it lacks is said once.
 */
import { readFileSync } from 'node:fs';
import { ComparisonRefused } from '../compare/checks.ts';
import { compare } from '../compare/compare.ts';
import { UserError } from '../errors.ts';
import { processExecutor, StressNgMissingError, type StressNgExecutor } from '../macro/executor.ts';
import { PlanError } from '../macro/plan.ts';
import { StressNgOutputError, StressorSelectionError } from '../macro/stressors.ts';
import type { VmMacroPlan, VmMacroRequest, VmMacroResult } from '../vm/macro.ts';
import { repeatOrder } from '../vm/runner.ts';
import { GUEST_STRESS_NG } from '../launch/stress-ng-image.ts';
import type { TrialKernel, TrialStressors } from './document.ts';
import { sha256, stepKey, type TrialDeps, type TrialRequest, type TrialServices, type TrialStressRequest } from './request.ts';
import { imageHash, runsComplete, vmDeps, vmFailure, vmKernel, type StepOutcome } from './steps.ts';
import type { VmKernel } from '../vm/kernels.ts';

/** Real seconds a boot may take per guest second of stress-ng under TCG -icount, beyond --timeout (a loaded 2-CPU host runs ~10^8 guest instructions/s). */
const REAL_PER_GUEST_SECOND = 60;

const REQUEST_ERRORS = [PlanError, StressorSelectionError, StressNgOutputError];

/** The stressors checked against the installed stress-ng, before anything is built; null without --stressor/--set. */
export async function planStress(req: TrialRequest, stressNg: StressNgExecutor | undefined, planVmMacro: TrialServices['planVmMacro']): Promise<VmMacroPlan | null> {
  const s = req.stress;
  if (!s) return null;
  try {
    return await planVmMacro(macroRequest(req, s, [], 0), stressNg ?? processExecutor());
  } catch (err) {
    if (REQUEST_ERRORS.some((E) => err instanceof E)) throw new UserError((err as Error).message, 2);
    if (err instanceof StressNgMissingError) throw new UserError(err.message);
    throw err;
  }
}

/** "stress-ng 0.15.06 lacks cpu-sched, flipflop of --set sched; measuring the other 12". */
export function unavailableLine(plan: VmMacroPlan): string | null {
  if (plan.unavailable.length === 0) return null;
  return `stress-ng ${plan.stressNgVersion} lacks ${plan.unavailable.length} of the stressors asked for (${plan.unavailable.map((u) => u.stressor).join(', ')}); measuring the other ${plan.stressors.length}`;
}

function macroRequest(req: TrialRequest, s: TrialStressRequest, order: string[], trialId: number): VmMacroRequest {
  return {
    kernels: [],
    steps: order,
    stressors: s.stressors,
    sets: s.sets,
    instances: s.instances,
    seconds: s.seconds,
    // repeats interleaved inside every boot; the boots are the units
    repeats: s.repeats,
    accel: req.kvm ? 'auto' : 'tcg',
    icount: !req.kvm,
    poolBoots: true,
    timeoutSeconds: req.timeoutSeconds,
    labelPrefix: `trial${trialId}-stress-`,
    command: req.command,
    invocation: req.invocation,
    hintlabVersion: req.hintlabVersion,
  };
}

/** The stored shape of the stress step: the document's stressors before the comparison, with the boots' time. */
export type StressStepResult = Omit<TrialStressors, 'comparison'> & { bootSeconds: number };

function isStressResult(v: unknown): v is StressStepResult {
  const r = v as { runs?: { A?: { id?: unknown }; B?: { id?: unknown } }; stressors?: unknown };
  return typeof v === 'object' && v !== null && typeof r.runs?.A?.id === 'number' && typeof r.runs.B?.id === 'number' && Array.isArray(r.stressors);
}


function describeStress(r: StressStepResult): string {
  const n = r.stressors.length;
  return `${r.order.length} boots (${r.order.join(' ')}), ${n} stressor${n === 1 ? '' : 's'} x ${r.seconds} s, ${r.icount ? 'qemu -icount: bogo-ops per guest second' : `${r.accel.accel}: ${r.unit}`}; runs ${r.runs.A.label}, ${r.runs.B.label}`;
}

function stressResult(result: VmMacroResult, order: string[], icount: boolean, seconds: number): StressStepResult {
  const runOf = (label: 'A' | 'B') => {
    const s = result.steps.find((x) => x.kernel.label === label)!;
    return { id: s.runId, label: s.runLabel };
  };
  const bootSeconds = result.steps.reduce((t, s) => t + (s.state === 'complete' ? s.seconds : 0), 0);
  const p = result.plan;
  return {
    runs: { A: runOf('A'), B: runOf('B') },
    order,
    accel: result.accel,
    icount,
    unit: result.unit,
    stressNgVersion: p.stressNgVersion,
    stressors: p.stressors,
    unavailable: p.unavailable,
    instances: p.instances,
    seconds,
    bootSeconds: Math.round(bootSeconds * 10) / 10,
  };
}

/** The sha256 of what the guests run: the binary copied into them (or the members given instead, in tests). */
function stressNgHash(deps: TrialDeps): string {
  if (deps.stressNgEntries) return sha256(Buffer.concat(deps.stressNgEntries.flatMap((e) => (e.kind === 'file' ? [Buffer.from(e.path), e.data] : []))));
  const binary = deps.stressNgBinary ?? GUEST_STRESS_NG;
  try {
    return sha256(readFileSync(binary));
  } catch (err) {
    throw new UserError(`cannot read ${binary}, the stress-ng the stressor boots copy into the guest: ${(err as Error).message}; install it (apt-get install -y stress-ng)`);
  }
}

/** What decides the stressor boots' figures besides the kernel images: part of every key over them. */
export function stressInputs(req: TrialRequest, deps: TrialDeps, plan: VmMacroPlan): Record<string, unknown> {
  const s = req.stress!;
  return { stressors: plan.stressors, instances: plan.instances, seconds: s.seconds, repeats: s.repeats, repeat: req.repeat, kvm: req.kvm, stressNg: plan.stressNgVersion, binary: stressNgHash(deps), probe: deps.probe.buildId };
}

/** Boots of the trial's kernels in `order` running the stressors; a failed or interrupted boot is thrown. */
export async function bootStressors(req: TrialRequest, deps: TrialDeps, services: TrialServices, trialId: number, plan: VmMacroPlan, kernels: VmKernel[], order: string[]): Promise<VmMacroResult> {
  const s = req.stress!;
  const macro = macroRequest(req, s, order, trialId);
  macro.kernels = kernels;
  macro.timeoutSeconds = req.timeoutSeconds + plan.items.length * s.seconds * REAL_PER_GUEST_SECOND;
  const result = await services.runVmMacro(macro, plan, { ...vmDeps(req, deps, order.length), ...(deps.stressNgBinary ? { stressNgBinary: deps.stressNgBinary } : {}), ...(deps.stressNgEntries ? { stressNgEntries: deps.stressNgEntries } : {}) });
  const failure = vmFailure(result);
  if (failure) throw failure;
  return result;
}

/** stress-ng in A/B boots of the measured kernels, or the stored runs of the same images, plan and stress-ng build. */
export async function stressStep(req: TrialRequest, deps: TrialDeps, services: TrialServices, trialId: number, plan: VmMacroPlan, a: TrialKernel, b: TrialKernel): Promise<StepOutcome<StressStepResult>> {
  const key = stepKey('stress', { a: imageHash(a.image), b: imageHash(b.image), ...stressInputs(req, deps, plan) });
  const stored = deps.store.trials.findResult('stress', key);
  if (stored && isStressResult(stored.result) && runsComplete(deps, [stored.result.runs.A.id, stored.result.runs.B.id])) {
    return { key, state: 'reused', result: stored.result, summary: `reused: ${describeStress(stored.result)}`, earlierSeconds: stored.result.bootSeconds };
  }
  const order = repeatOrder(['A', 'B'], req.repeat);
  const result = await bootStressors(req, deps, services, trialId, plan, [vmKernel('A', a, req.invocation.cwd), vmKernel('B', b, req.invocation.cwd)], order);
  const r = stressResult(result, order, !req.kvm, req.stress!.seconds);
  return { key, state: 'done', result: r, summary: describeStress(r) };
}

/** The stressors' comparison, B vs A, with compare's statistics, geometric mean and regressions. */
export function measureStress(deps: TrialDeps, req: TrialRequest, r: StressStepResult): TrialStressors {
  let comparison;
  try {
    comparison = compare({ a: deps.store.getRun(r.runs.A.id), b: deps.store.getRun(r.runs.B.id) }, { thresholdPct: req.thresholdPct });
  } catch (err) {
    if (err instanceof ComparisonRefused) throw new UserError(`the stressor runs ${r.runs.A.label} and ${r.runs.B.label} cannot be compared: ${err.message}`);
    throw err;
  }
  const { bootSeconds: _b, ...rest } = r;
  return { ...rest, comparison };
}
