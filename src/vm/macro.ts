/**
 * `hintlab vm --macro`: the macro plan (stress-ng stressors at instance
 * counts, repeats interleaved) run inside each guest of an A/B/A order.
 * The initramfs holds the probe as /init, the plan, and the host's
 * stress-ng with every library it links; each boot is stored as a run of
 * kind 'vm' whose subjects are `stressor@instances`, so
 * `hintlab compare vm-A-1 vm-B-1 vm-A-2` compares kernels on macro
 * workloads exactly as it does on host macro runs.
 *
 * Under TCG the guest's second is emulated time, so rounds are in
 * 'emulated-bogo-ops/s'; under KVM they are real 'bogo-ops/s'.
 */
import { shellLine } from '../shell.ts';
import type { StressNgExecutor } from '../macro/executor.ts';
import { buildPlan, parseInstances, resolveInstances, type PlanItem } from '../macro/plan.ts';
import { parseStressNgVersion, parseStressorList, selectStressors, type UnavailableStressor } from '../macro/stressors.ts';
import { invocationExtra, type RunInvocation, type RunParams, type Unit } from '../model.ts';
import { StoreError } from '../store/store.ts';
import { chooseAccel, type AccelChoice, type AccelRequest } from './accel.ts';
import { guestKernel, vmEnvironment } from '../environment/guest.ts';
import type { CpioEntry } from './initramfs.ts';
import type { VmKernel } from './kernels.ts';
import { guestPlanText, guestRounds, guestStressNgArgs, GUEST_PLAN, MACRO_PROBE_ARGS, MacroGuestSession } from './macro-session.ts';
import { BASE_APPEND, qemuCommand, type Accel } from './qemu.ts';
import { describeBootFailure, guestCpus, initramfsFile, planSteps, trialBoot, type StepPlan, type StepResult, type VmDeps } from './runner.ts';
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

async function runMacroStep(req: VmMacroRequest, deps: VmMacroDeps, plan: VmMacroPlan, step: StepPlan, accel: Accel, initrd: string): Promise<StepResult> {
  const append = BASE_APPEND;
  const facts = { kernelLabel: step.kernel.label, kernelPath: step.kernel.image, bootIndex: step.bootIndex, accel, icount: false, guestCpus: guestCpus(false) };
  // stress-ng spreads its instances over the guest's CPUs: nothing is pinned
  const env = { ...vmEnvironment({ probe: deps.probe, kernel: step.kernel, append, facts }), pinnedCpu: null };
  const unit = macroVmUnit(accel);
  const runId = deps.store.createRun({
    label: step.runLabel,
    kind: 'vm',
    unit,
    // one stress-ng invocation per repeat inside the boot, as in a host macro run
    replicateUnit: 'invocation',
    command: req.command,
    hintlabVersion: req.hintlabVersion,
    params: macroRunParams(req, plan, step, accel),
    environment: { ...env, stressNg: { version: plan.stressNgVersion, binary: GUEST_STRESS_NG } } as unknown as Record<string, unknown>,
  });
  const session = new MacroGuestSession((done) => deps.onInvocation?.(step, done, plan.items.length));
  const argv = qemuCommand({ kernel: step.kernel.image, initrd, accel, icount: false, cpus: guestCpus(false), memoryMiB: MACRO_MEMORY_MIB, append });
  const boot = await deps.launcher.boot({ argv, timeoutSeconds: req.timeoutSeconds, abort: deps.abort, onLine: (l) => session.feed(l) });
  if (session.hello) deps.store.updateEnvironment(runId, { kernel: guestKernel(session.hello, env.kernel) });
  deps.store.updateEnvironment(runId, { vm: { ...env.vm, bootSeconds: boot.elapsedMs / 1000 } });
  const { rounds, unclassified, failure } = guestRounds(session, plan.items, req.repeats, unit);
  try {
    for (const r of rounds) deps.store.addRound(runId, r);
  } catch (err) {
    if (err instanceof StoreError) deps.store.abandonRun(runId, err);
    throw err;
  }
  if (unclassified.length) deps.store.updateEnvironment(runId, { stressNg: { version: plan.stressNgVersion, binary: GUEST_STRESS_NG, unclassifiedMetrics: unclassified } });
  const tail = { ...boot, consoleTail: boot.consoleTail.filter((l) => !l.includes('@hl1 chunk ')) };
  const end = boot.end;
  const reason =
    end.kind === 'aborted'
      ? describeBootFailure('interrupted (Ctrl-C): qemu was killed', tail, argv)
      : end.kind === 'timeout'
        ? describeBootFailure(`no complete result within ${end.seconds} s (--timeout; ${session.statuses.length} of ${plan.items.length} invocations had finished); qemu was killed`, tail, argv)
        : failure?.by === 'stress-ng'
          ? `${failure.reason}\nqemu command: ${shellLine(argv)}`
          : failure && describeBootFailure(failure.reason, tail, argv);
  if (reason) {
    deps.store.finishRun(runId, 'failed', reason);
    return { ...step, state: 'failed', runId, reason };
  }
  deps.store.finishRun(runId, 'complete');
  return { ...step, state: 'complete', runId, seconds: boot.elapsedMs / 1000 };
}

/** Boot every step of the order with the macro plan. */
export async function runVmMacro(req: VmMacroRequest, plan: VmMacroPlan, deps: VmMacroDeps): Promise<VmMacroResult> {
  const accel = await (deps.chooseAccel ?? chooseAccel)(req.accel, false, () => trialBoot(req, deps));
  deps.onAccel?.(accel);
  const unit = macroVmUnit(accel.accel);
  const extra: CpioEntry[] = [
    ...(deps.stressNgEntries ?? stressNgFiles(deps.stressNgBinary ?? GUEST_STRESS_NG).entries),
    { kind: 'file', path: GUEST_PLAN.slice(1), data: Buffer.from(guestPlanText(plan.items, req.seconds)) },
  ];
  const initrd = initramfsFile(deps.probe, MACRO_PROBE_ARGS, deps.cacheDir, extra);
  const steps: StepResult[] = [];
  for (const s of planSteps(req)) {
    if (deps.abort.aborted) return { state: 'interrupted', accel, unit, plan, steps };
    deps.onStepStart?.(s);
    const result = await runMacroStep(req, deps, plan, s, accel.accel, initrd);
    steps.push(result);
    deps.onStepEnd?.(result);
    if (deps.abort.aborted) return { state: 'interrupted', accel, unit, plan, steps };
  }
  return { state: 'finished', accel, unit, plan, steps };
}
