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
 * 'emulated-bogo-ops/s'; under KVM they are real 'bogo-ops/s'; under
 * `icount` (a trial's stressors) the guest clock advances one ns per guest
 * instruction, so rounds are 'icount-bogo-ops/s', bogo-ops per guest
 * second, and the guest has one CPU (SMP bring-up hangs under icount).
 * With `poolBoots` every boot of a kernel is one unit of that kernel's run
 * (as `vm --repeat` pools probe boots); otherwise each boot is its own run.
 */
import type { StressNgExecutor } from '../macro/executor.ts';
import { buildPlan, parseInstances, resolveInstances, type PlanItem } from '../macro/plan.ts';
import { parseStressNgVersion, parseStressorList, selectStressors, type UnavailableStressor } from '../macro/stressors.ts';
import type { RunParams, Unit } from '../model.ts';
import { invocationExtra, type RunInvocation } from '../run-record.ts';
import { drive, type OpenedRun } from '../targets/driver.ts';
import { openBootSite } from '../targets/factory.ts';
import type { BootSite } from '../targets/site.ts';
import type { TargetExit, TargetFile, TargetJob } from '../targets/target.ts';
import type { AccelChoice, AccelRequest } from './accel.ts';
import { guestKernel, vmEnvironment } from '../environment/guest.ts';
import type { GuestEnvironment, Accel } from '../environment/record.ts';
import type { CpioEntry } from '../launch/initramfs.ts';
import type { VmKernel } from './kernels.ts';
import { guestPlanText, guestStressNgArgs, GUEST_PLAN, MACRO_PROBE_ARGS, MacroGuestSession, PooledMacroSession } from './macro-session.ts';
import type { VmLauncher } from '../launch/qemu.ts';
import { guestCpus, planSteps, siteAccel, stepReports, type StepPlan, type StepResult, type VmDeps } from './runner.ts';
import { GUEST_STRESS_NG, stressNgFiles } from '../launch/stress-ng-image.ts';

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
  /** The guest clock counts instructions (qemu -icount shift=0): one guest CPU, rounds in bogo-ops per guest second. */
  icount?: boolean;
  /** Boots as units: one run per kernel (`<prefix><label>`), each boot one replicate of it. */
  poolBoots?: boolean;
  timeoutSeconds: number;
  labelPrefix: string;
  command: string;
  /** The arguments as typed and the working directory, stored as params.extra.invocation. */
  invocation?: RunInvocation;
  hintlabVersion: string;
}

/** The runner's dependencies: those of a probe run (launcher, store, callbacks), plus stress-ng's files. */
export interface VmMacroDeps extends Pick<VmDeps, 'store' | 'probe' | 'abort' | 'cacheDir' | 'chooseAccel' | 'onAccel' | 'onStepStart' | 'onStepEnd'> {
  /** qemu's launcher: vm --macro boots in qemu on this machine (src/targets/guest-site.ts). */
  launcher: VmLauncher;
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

/** Rounds of a TCG guest count emulated seconds, under icount guest seconds (instructions); only KVM's are real time. */
export function macroVmUnit(accel: Accel, icount = false): Unit {
  if (icount) return 'icount-bogo-ops/s';
  return accel === 'kvm' ? 'bogo-ops/s' : 'emulated-bogo-ops/s';
}

/** Megabytes of guest RAM: the initramfs (stress-ng and its libraries, ~25 MB unpacked) lives in it. */
const MACRO_MEMORY_MIB = 512;

/** Check the request against the host's stress-ng (the binary the guest runs) and lay out the plan. */
export async function planVmMacro(req: VmMacroRequest, stressNg: StressNgExecutor): Promise<VmMacroPlan> {
  const version = parseStressNgVersion(await stressNg.version());
  const selection = selectStressors(req, { version, stressors: parseStressorList(await stressNg.stressors()) });
  // qemu -smp: the guest's CPUs, all of them stress-ng's
  const instances = resolveInstances(parseInstances(req.instances), guestCpus(req.icount === true));
  const items = buildPlan(selection.available, instances, req.repeats);
  return { stressNgVersion: version, stressors: selection.available, unavailable: selection.unavailable, instances, items };
}

const bootsOf = (req: VmMacroRequest, label: string): number => req.steps.filter((s) => s === label).length;

function macroRunParams(req: VmMacroRequest, plan: VmMacroPlan, step: StepPlan, accel: Accel): RunParams {
  const icount = req.icount === true;
  const pooled = req.poolBoots ? { boots: bootsOf(req, step.kernel.label) } : { bootIndex: step.bootIndex };
  const subjectParams: RunParams['subjectParams'] = {};
  for (const item of plan.items.filter((i) => i.repeat === 0)) {
    const args = guestStressNgArgs({ ...item, seq: 0 }, req.seconds).join(' ');
    subjectParams[item.subject] = { stressor: item.stressor, instances: item.instances, seconds: req.seconds, cpuList: null, stressNgVersion: plan.stressNgVersion, args };
  }
  return {
    subjects: Object.keys(subjectParams),
    ops: null,
    warmups: 0,
    rounds: req.repeats * (req.poolBoots ? bootsOf(req, step.kernel.label) : 1),
    cpu: null,
    subjectParams,
    extra: { kernelLabel: step.kernel.label, ...pooled, accel, icount, order: req.steps.join(','), seconds: req.seconds, instances: req.instances, sets: req.sets, unavailable: plan.unavailable, guestCpus: guestCpus(icount), ...invocationExtra(req) },
  };
}

/** A macro run being filled: by one boot, or by every boot of its kernel (pooled). */
type MacroRun = OpenedRun & { session: MacroGuestSession | PooledMacroSession; env: GuestEnvironment; bootSeconds: number[] };

/** Create one boot's run (or, pooled, its kernel's) and the session that fills it. */
function openMacroRun(req: VmMacroRequest, deps: VmMacroDeps, plan: VmMacroPlan, step: StepPlan, accel: Accel, append: string): MacroRun {
  const icount = req.icount === true;
  const facts = { kernelLabel: step.kernel.label, kernelPath: step.kernel.image, bootIndex: step.bootIndex, accel, icount, guestCpus: guestCpus(icount) };
  // stress-ng spreads its instances over the guest's CPUs: nothing is pinned
  const env = { ...vmEnvironment({ probe: deps.probe, kernel: step.kernel, append, facts }), pinnedCpu: null };
  const unit = macroVmUnit(accel, icount);
  const stressNg = { version: plan.stressNgVersion, binary: GUEST_STRESS_NG };
  const runId = deps.store.createRun({
    label: step.runLabel,
    kind: 'vm',
    unit,
    // one stress-ng invocation per repeat inside the boot, as in a host macro run; pooled, each boot is the unit
    replicateUnit: req.poolBoots ? 'boot' : 'invocation',
    command: req.command,
    hintlabVersion: req.hintlabVersion,
    params: macroRunParams(req, plan, step, accel),
    environment: { ...env, stressNg },
  });
  const run = { store: deps.store, runId, items: plan.items, repeats: req.repeats, unit, stressNg };
  const onInvocation = (done: number) => deps.onInvocation?.(step, done, plan.items.length);
  return { runId, env, bootSeconds: [], session: req.poolBoots ? new PooledMacroSession(run, onInvocation) : new MacroGuestSession(run, onInvocation) };
}

/** The guest's job: the probe runs the plan file with stress-ng and its libraries beside it, then sends the files back. */
function macroJob(req: VmMacroRequest, deps: VmMacroDeps, plan: VmMacroPlan): TargetJob {
  const entries = deps.stressNgEntries ?? stressNgFiles(deps.stressNgBinary ?? GUEST_STRESS_NG).entries;
  const files: TargetFile[] = entries.flatMap((e) => (e.kind === 'file' ? [{ path: e.path, data: e.data, mode: e.mode }] : []));
  files.push({ path: GUEST_PLAN.slice(1), data: Buffer.from(guestPlanText(plan.items, req.seconds)) });
  return { program: 'probe', args: MACRO_PROBE_ARGS, files, timeoutSeconds: req.timeoutSeconds };
}

/** Boot every step of the order with the macro plan; each boot is its own run and a failed one does not stop the order, or (pooled) each kernel's boots are one run and a failed boot stops them all. */
export async function runVmMacro(req: VmMacroRequest, plan: VmMacroPlan, deps: VmMacroDeps): Promise<VmMacroResult> {
  const icount = req.icount === true;
  const site = await openBootSite({ kind: 'qemu', accel: req.accel, cost: null }, { probe: deps.probe, cacheDir: deps.cacheDir, launcher: deps.launcher, icount, labelPrefix: req.labelPrefix });
  try {
    return await bootMacro(req, plan, deps, site);
  } finally {
    await site.close();
  }
}

async function bootMacro(req: VmMacroRequest, plan: VmMacroPlan, deps: VmMacroDeps, site: BootSite): Promise<VmMacroResult> {
  const icount = req.icount === true;
  const pooled = req.poolBoots === true;
  const accel = await siteAccel(site, req, deps);
  deps.onAccel?.(accel);
  const job = macroJob(req, deps, plan);
  const plans = planSteps(req);
  const steps: StepResult[] = [];
  const spec = (k: VmKernel) => ({ label: k.label, image: k.image, accel: accel.accel, icount, cpus: guestCpus(icount), memoryMiB: MACRO_MEMORY_MIB });
  const targets = new Map(req.kernels.map((k) => [k.label, site.target(spec(k))]));
  // pooled: one run per kernel, in the order the kernels first boot
  const keys = [...new Set(plans.map((p) => (pooled ? p.kernel.label : String(p.index))))];
  const keyOf = (p: StepPlan) => keys.indexOf(pooled ? p.kernel.label : String(p.index));
  const opened: (MacroRun | null)[] = keys.map(() => null);
  const result = await drive({
    store: deps.store,
    abort: deps.abort,
    runs: keys.map((_k, i) => ({ open: () => (opened[i] = openMacroRun(req, deps, plan, plans.find((p) => keyOf(p) === i)!, accel.accel, site.append)) })),
    segments: plans.map((p) => ({
      run: keyOf(p),
      target: targets.get(p.kernel.label)!,
      what: `the guest (kernel ${p.kernel.label})`,
      job,
      begin: () => {
        const session = opened[keyOf(p)]!.session;
        if (session instanceof PooledMacroSession) session.startBoot(p.bootIndex - 1);
      },
      ended: (_o, exit) => recordMacroBoot(deps, opened[keyOf(p)]!, exit, pooled),
      storedReason: (reason) => (pooled ? `boot ${p.bootIndex} of kernel ${p.kernel.label}: ${reason}` : reason),
    })),
    // a pooled run with a failed boot has no complete set of units: stop instead of booting on
    stopOnFailure: pooled,
    together: pooled,
    ...stepReports(plans, deps, steps),
  });
  return { state: result.interrupted ? 'interrupted' : 'finished', accel, unit: macroVmUnit(accel.accel, icount), plan, steps };
}

/** After a boot: the guest's kernel from the hello line, and how long the boot (pooled: each boot) took. */
function recordMacroBoot(deps: VmMacroDeps, run: MacroRun, exit: TargetExit | null, pooled: boolean): void {
  if (run.session.hello) deps.store.updateEnvironment(run.runId, { kernel: guestKernel(run.session.hello, run.env.kernel) });
  if (!exit) return;
  run.bootSeconds.push(exit.elapsedMs / 1000);
  deps.store.updateEnvironment(run.runId, { vm: { ...run.env.vm, bootSeconds: pooled ? run.bootSeconds : exit.elapsedMs / 1000 } });
}
