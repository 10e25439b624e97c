/**
 * `hintlab vm --macro`: the macro plan (stress-ng stressors at instance
 * counts, repeats interleaved) run inside each guest of an A/B/A order.
 * The initramfs holds the probe as /init, the plan, and the host's
 * stress-ng with every library it links; each boot is stored as a run of
 * kind 'vm' whose subjects are `stressor@instances`, so
 * `hintlab compare vm-A-1 vm-B-1 vm-A-2` compares kernels on macro
 * workloads exactly as it does on host macro runs. Each boot is one
 * segment of the run driver on its kernel's guest target.
 *
 * Under TCG the guest's second is emulated time, so rounds are in
 * 'emulated-bogo-ops/s'; under KVM they are real 'bogo-ops/s'.
 */
import type { StressNgExecutor } from '../macro/executor.ts';
import { buildPlan, parseInstances, resolveInstances, type PlanItem } from '../macro/plan.ts';
import { parseStressNgVersion, parseStressorList, selectStressors, type UnavailableStressor } from '../macro/stressors.ts';
import { invocationExtra, type RunInvocation, type RunParams, type Unit } from '../model.ts';
import { drive, type OpenedRun } from '../target/driver.ts';
import { guestTarget } from '../target/guest.ts';
import type { TargetExit, TargetFile, TargetJob } from '../target/target.ts';
import { chooseAccel, type AccelChoice, type AccelRequest } from './accel.ts';
import { guestKernel, vmEnvironment } from '../environment/guest.ts';
import type { GuestEnvironment } from '../environment/record.ts';
import type { CpioEntry } from './initramfs.ts';
import type { VmKernel } from './kernels.ts';
import { guestPlanText, guestStressNgArgs, GUEST_PLAN, MACRO_PROBE_ARGS, MacroGuestSession } from './macro-session.ts';
import { BASE_APPEND, type Accel } from './qemu.ts';
import { guestCpus, planSteps, stepReports, trialBoot, type StepPlan, type StepResult, type VmDeps } from './runner.ts';
import { GUEST_STRESS_NG, stressNgFiles } from './stress-ng-image.ts';

export interface VmMacroRequest {
  kernels: VmKernel[];
  steps: string[];
  stressors: string[];
  sets: string[];
  /** --instances text; `all` is one per guest CPU. */
  instances: string;
  seconds: number;
  repeats: number;
  accel: AccelRequest;
  timeoutSeconds: number;
  labelPrefix: string;
  command: string;
  /** The arguments as typed and the working directory, stored as params.extra.invocation. */
  invocation?: RunInvocation;
  hintlabVersion: string;
}

/** The runner's dependencies: those of a probe run (launcher, store, callbacks), plus stress-ng's files. */
export interface VmMacroDeps extends Pick<VmDeps, 'store' | 'launcher' | 'probe' | 'abort' | 'cacheDir' | 'chooseAccel' | 'onAccel' | 'onStepStart' | 'onStepEnd'> {
  /** The host binary copied into the guest (default /usr/bin/stress-ng). */
  stressNgBinary?: string;
  /** Overrides stress-ng's archive members (tests). */
  stressNgEntries?: CpioEntry[];
  onInvocation?: (step: StepPlan, done: number, total: number) => void;
}

/** The checked plan, before any boot. */
export interface VmMacroPlan {
  stressNgVersion: string;
  stressors: string[];
  unavailable: UnavailableStressor[];
  instances: number[];
  items: PlanItem[];
}

export type VmMacroResult = { state: 'finished' | 'interrupted'; accel: AccelChoice; unit: Unit; plan: VmMacroPlan; steps: StepResult[] };

/** Rounds of a TCG guest count emulated seconds; only KVM's are real time. */
export function macroVmUnit(accel: Accel): Unit {
  return accel === 'kvm' ? 'bogo-ops/s' : 'emulated-bogo-ops/s';
}

/** Megabytes of guest RAM: the initramfs (stress-ng and its libraries, ~25 MB unpacked) lives in it. */
const MACRO_MEMORY_MIB = 512;

/** Check the request against the host's stress-ng (the binary the guest runs) and lay out the plan. */
export async function planVmMacro(req: VmMacroRequest, stressNg: StressNgExecutor): Promise<VmMacroPlan> {
  const version = parseStressNgVersion(await stressNg.version());
  const selection = selectStressors(req, { version, stressors: parseStressorList(await stressNg.stressors()) });
  // qemu -smp: the guest's CPUs, all of them stress-ng's
  const instances = resolveInstances(parseInstances(req.instances), guestCpus(false));
  const items = buildPlan(selection.available, instances, req.repeats);
  return { stressNgVersion: version, stressors: selection.available, unavailable: selection.unavailable, instances, items };
}

function macroRunParams(req: VmMacroRequest, plan: VmMacroPlan, step: StepPlan, accel: Accel): RunParams {
  const subjectParams: RunParams['subjectParams'] = {};
  for (const item of plan.items.filter((i) => i.repeat === 0)) {
    const args = guestStressNgArgs({ ...item, seq: 0 }, req.seconds).join(' ');
    subjectParams[item.subject] = { stressor: item.stressor, instances: item.instances, seconds: req.seconds, cpuList: null, stressNgVersion: plan.stressNgVersion, args };
  }
  return {
    subjects: Object.keys(subjectParams),
    ops: null,
    warmups: 0,
    rounds: req.repeats,
    cpu: null,
    subjectParams,
    extra: { kernelLabel: step.kernel.label, bootIndex: step.bootIndex, accel, icount: false, order: req.steps.join(','), seconds: req.seconds, instances: req.instances, sets: req.sets, unavailable: plan.unavailable, guestCpus: guestCpus(false), ...invocationExtra(req) },
  };
}

/** Create one boot's run and the session that fills it. */
function openMacroRun(req: VmMacroRequest, deps: VmMacroDeps, plan: VmMacroPlan, step: StepPlan, accel: Accel): OpenedRun & { session: MacroGuestSession; env: GuestEnvironment } {
  const facts = { kernelLabel: step.kernel.label, kernelPath: step.kernel.image, bootIndex: step.bootIndex, accel, icount: false, guestCpus: guestCpus(false) };
  // stress-ng spreads its instances over the guest's CPUs: nothing is pinned
  const env = { ...vmEnvironment({ probe: deps.probe, kernel: step.kernel, append: BASE_APPEND, facts }), pinnedCpu: null };
  const unit = macroVmUnit(accel);
  const stressNg = { version: plan.stressNgVersion, binary: GUEST_STRESS_NG };
  const runId = deps.store.createRun({
    label: step.runLabel,
    kind: 'vm',
    unit,
    // one stress-ng invocation per repeat inside the boot, as in a host macro run
    replicateUnit: 'invocation',
    command: req.command,
    hintlabVersion: req.hintlabVersion,
    params: macroRunParams(req, plan, step, accel),
    environment: { ...env, stressNg } as unknown as Record<string, unknown>,
  });
  const run = { store: deps.store, runId, items: plan.items, repeats: req.repeats, unit, stressNg };
  return { runId, env, session: new MacroGuestSession(run, (done) => deps.onInvocation?.(step, done, plan.items.length)) };
}

/** The guest's job: the probe runs the plan file with stress-ng and its libraries beside it, then sends the files back. */
function macroJob(req: VmMacroRequest, deps: VmMacroDeps, plan: VmMacroPlan): TargetJob {
  const entries = deps.stressNgEntries ?? stressNgFiles(deps.stressNgBinary ?? GUEST_STRESS_NG).entries;
  const files: TargetFile[] = entries.flatMap((e) => (e.kind === 'file' ? [{ path: e.path, data: e.data, mode: e.mode }] : []));
  files.push({ path: GUEST_PLAN.slice(1), data: Buffer.from(guestPlanText(plan.items, req.seconds)) });
  return { program: 'probe', args: MACRO_PROBE_ARGS, files, timeoutSeconds: req.timeoutSeconds };
}

/** Boot every step of the order with the macro plan; each boot is its own run, a failed one does not stop the order. */
export async function runVmMacro(req: VmMacroRequest, plan: VmMacroPlan, deps: VmMacroDeps): Promise<VmMacroResult> {
  const accel = await (deps.chooseAccel ?? chooseAccel)(req.accel, false, () => trialBoot(req, deps));
  deps.onAccel?.(accel);
  const job = macroJob(req, deps, plan);
  const plans = planSteps(req);
  const steps: StepResult[] = [];
  const targets = new Map(req.kernels.map((k) => [k.label, guestTarget({ label: k.label, image: k.image, accel: accel.accel, icount: false, cpus: guestCpus(false), memoryMiB: MACRO_MEMORY_MIB }, deps)]));
  const opened: (ReturnType<typeof openMacroRun> | null)[] = plans.map(() => null);
  const result = await drive({
    store: deps.store,
    abort: deps.abort,
    runs: plans.map((p, i) => ({ open: () => (opened[i] = openMacroRun(req, deps, plan, p, accel.accel)) })),
    segments: plans.map((p, i) => ({
      run: i,
      target: targets.get(p.kernel.label)!,
      what: `the guest (kernel ${p.kernel.label})`,
      job,
      ended: (_o, exit) => recordMacroBoot(deps, opened[i]!, exit),
    })),
    stopOnFailure: false,
    together: false,
    ...stepReports(plans, deps, steps),
  });
  return { state: result.interrupted ? 'interrupted' : 'finished', accel, unit: macroVmUnit(accel.accel), plan, steps };
}

/** After a boot: the guest's kernel from the hello line, and how long the boot took. */
function recordMacroBoot(deps: VmMacroDeps, run: ReturnType<typeof openMacroRun>, exit: TargetExit | null): void {
  if (run.session.hello) deps.store.updateEnvironment(run.runId, { kernel: guestKernel(run.session.hello, run.env.kernel) });
  if (exit) deps.store.updateEnvironment(run.runId, { vm: { ...run.env.vm, bootSeconds: exit.elapsedMs / 1000 } });
}
