/**
 * `hintlab vm`: boot each kernel of the order in turn (A, B, A, ...), run
 * the probe as the guest's /init, and store every boot as its own run of
 * kind 'vm', so `hintlab compare vm-A-1 vm-B-1 vm-A-2` works unchanged.
 * Each boot is one segment of the run driver (src/targets/driver.ts) on the
 * target its boot site gives the kernel (src/targets/site.ts: qemu here, a
 * LAVA lab, a fake guest); this scheduler knows only the site and Target
 * contracts.
 *
 * Invariant: a boot that did not end with every requested round (panic,
 * timeout, garbage, probe error, Ctrl-C) is stored as a failed run whose
 * error holds the last console lines and the qemu command line; its rounds
 * are never treated as data.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProbeBuild } from '../launch/probe-build.ts';
import { probeArgs, probeRunShape, runParams } from '../bench/probe-run.ts';
import type { ProfileInfo } from '../bench/profiles.ts';
import { startProbeRun } from '../bench/session.ts';
import { BootSession } from './boot-session.ts';
import type { RunParams, Unit } from '../model.ts';
import { invocationExtra, type RunInvocation } from '../run-record.ts';
import type { Store } from '../store/store.ts';
import { drive, type DriverSegment, type DrivenRun, type DriveSpec, type DriveStop } from '../targets/driver.ts';
import type { GuestSpec } from '../targets/guest.ts';
import { openBootSite } from '../targets/factory.ts';
import type { BootSite } from '../targets/site.ts';
import type { Target, TargetExit } from '../targets/target.ts';
import { chooseAccel, type AccelChoice, type AccelRequest } from './accel.ts';
import { guestKernel, vmEnvironment } from '../environment/guest.ts';
import type { Accel, CostFacts, GuestEnvironment } from '../environment/record.ts';
import type { VmKernel } from './kernels.ts';
import type { VmLauncher } from '../launch/qemu.ts';
import { type CostModel, type CostPlugin, describeCostModel, pluginArg } from './cost-plugin.ts';
import { recordBootCost } from './cost-boot.ts';
import { systemMapFor } from './cost-functions.ts';
import type { FunctionCost } from '../cost-counters.ts';
import { vmlinuxFor } from './dwarf-lines.ts';

export interface VmRequest {
  kernels: VmKernel[];
  /** Kernel labels in boot order, e.g. ['A', 'B', 'A']. */
  steps: string[];
  profiles: ProfileInfo[];
  ops: number | null;
  warmups: number;
  rounds: number;
  accel: AccelRequest;
  icount: boolean;
  timeoutSeconds: number;
  /** Run labels are `<prefix><kernel label>-<boot index>`, e.g. vm-A-2 (pooled: `<prefix><kernel label>`). */
  labelPrefix: string;
  /**
   * Boots as units (`--repeat`): all boots of one kernel are one run, each
   * boot one replicate of it, so A and B each gain a unit per boot. Default:
   * every boot is a run of its own (vm-A-1, vm-B-1, vm-A-2).
   */
  poolBoots?: boolean;
  /** Known work (`--inject-work LABEL=N`): N dependent additions per call in the probe of every boot of kernel LABEL. */
  injectWork?: Record<string, number>;
  command: string;
  /** The arguments as typed and the working directory, stored as params.extra.invocation. */
  invocation?: RunInvocation;
  hintlabVersion: string;
  /** `--cost`: the cost plugin runs in every boot with this model (needs TCG and icount). */
  cost?: CostModel | null;
  /** Step indices already stored complete (`vm --target lava:// --resume`): their boots are not run again. */
  skipSteps?: number[];
}

export interface VmDeps {
  store: Store;
  /** Where the kernels boot (src/targets/factory.ts opens one from a place); default: qemu on this machine, with `launcher`. */
  site?: BootSite;
  /** qemu's launcher for the default site (tests give a scripted one; default: qemu under the process supervisor). */
  launcher?: VmLauncher;
  probe: ProbeBuild;
  abort: AbortSignal;
  /** The built cost plugin (src/vm/cost-plugin.ts), when the request has `cost`. */
  costPlugin?: CostPlugin;
  /** Where the plugin writes (default: a temporary directory removed after the boots). */
  costDir?: string;
  /** Where initramfs images are kept (default: next to the probe cache). */
  cacheDir?: string;
  /** Overrides the KVM check of a site whose accelerator a trial boot decides (tests; trial's --kvm). */
  chooseAccel?: typeof chooseAccel;
  onAccel?: (choice: AccelChoice) => void;
  onStepStart?: (step: StepPlan) => void;
  onStepEnd?: (step: StepResult) => void;
  onRound?: (step: StepPlan, done: number, total: number, profile: string) => void;
}

export interface StepPlan {
  index: number;
  kernel: VmKernel;
  bootIndex: number;
  runLabel: string;
}

export type StepResult = StepPlan & ({ state: 'complete'; runId: number; seconds: number } | { state: 'failed'; runId: number; reason: string });

export type VmResult =
  | { state: 'finished'; accel: AccelChoice; unit: Unit; steps: StepResult[] }
  | { state: 'interrupted'; accel: AccelChoice; unit: Unit; steps: StepResult[] };

/** The unit a VM run is stored in: never ns unless the clock is real. */
export function vmUnit(accel: Accel, icount: boolean): Unit {
  if (icount) return 'instructions/call';
  return accel === 'kvm' ? 'ns/call' : 'emulated-time/call';
}

/** SMP bring-up hangs under `-icount shift=0,sleep=off` (qemu 7.2), so icount guests get one CPU. */
export function guestCpus(icount: boolean): number {
  return icount ? 1 : 2;
}

export const MEMORY_MIB = 256;

/** Label each step: the n-th boot of kernel A is `<prefix>A-<n>`. */
export function planSteps(req: Pick<VmRequest, 'kernels' | 'steps' | 'labelPrefix' | 'poolBoots'>): StepPlan[] {
  const seen = new Map<string, number>();
  return req.steps.map((label, index) => {
    const kernel = req.kernels.find((k) => k.label === label);
    if (!kernel) throw new Error(`order step '${label}' names no kernel`);
    const bootIndex = (seen.get(label) ?? 0) + 1;
    seen.set(label, bootIndex);
    return { index, kernel, bootIndex, runLabel: req.poolBoots ? `${req.labelPrefix}${label}` : `${req.labelPrefix}${label}-${bootIndex}` };
  });
}

/**
 * The order `--repeat N` boots in: A B B A A B ... (N boots per kernel), so
 * that a linear drift of the host hits both kernels alike; with more than two
 * kernels, forward then backward (A B C C B A ...).
 */
export function repeatOrder(labels: readonly string[], perKernel: number): string[] {
  return Array.from({ length: perKernel }, (_, i) => (i % 2 === 0 ? [...labels] : [...labels].reverse())).flat();
}

function bootsOf(req: VmRequest, label: string): number {
  return req.steps.filter((s) => s === label).length;
}

function vmRunParams(req: VmRequest, step: StepPlan, accel: Accel, cpus: number): RunParams {
  const pooled = req.poolBoots ? { boots: bootsOf(req, step.kernel.label) } : { bootIndex: step.bootIndex };
  const work = req.injectWork?.[step.kernel.label];
  const extra = { kernelLabel: step.kernel.label, ...pooled, accel, icount: req.icount, order: req.steps.join(','), ...(work ? { injectWork: work } : {}), ...invocationExtra(req) };
  return runParams(req, { cpu: 0, otherCpu: cpus > 1 ? 1 : null }, extra);
}

/** The guest probe's arguments: the same as a host bench, pinned to guest CPU 0. */
function guestProbeArgs(req: VmRequest, cpus: number): string[] {
  return probeArgs({ ...req, injectSeccomp: null }, { cpu: 0, otherCpu: cpus > 1 ? 1 : null });
}

/** A run that boots feed: one per boot, or one per kernel when boots are pooled. */
interface OpenRun {
  runId: number;
  session: BootSession;
  env: GuestEnvironment;
  bootSeconds: number[];
  /** Per boot (`vm --cost`): each subject's functions, and its branches, per call. */
  costFunctions: CostFacts<FunctionCost>['functions'];
  costBranches: unknown[];
  /** How each of its boots ended, in boot order: what the site stores of them comes from these. */
  exits: TargetExit[];
}

/** The dependencies of the boots, with the site they run on. */
type SiteDeps = VmDeps & { site: BootSite };

function openRun(req: VmRequest, deps: SiteDeps, step: StepPlan, accel: Accel): OpenRun {
  const env: GuestEnvironment = vmEnvironment({
    probe: deps.probe,
    kernel: step.kernel,
    append: deps.site.append,
    facts: { kernelLabel: step.kernel.label, kernelPath: step.kernel.image, bootIndex: step.bootIndex, accel, icount: req.icount, guestCpus: guestCpus(req.icount) },
  });
  const boots = req.poolBoots ? bootsOf(req, step.kernel.label) : 1;
  const { runId, session } = startProbeRun(
    deps.store,
    {
      label: step.runLabel,
      kind: 'vm',
      unit: vmUnit(accel, req.icount),
      // pooled: each boot is one replicate of its kernel's run; else each boot is its own run (replicate 0)
      replicateUnit: 'boot',
      command: req.command,
      hintlabVersion: req.hintlabVersion,
      params: vmRunParams(req, step, accel, guestCpus(req.icount)),
      environment: env,
    },
    { ...probeRunShape(req), rounds: req.rounds * boots, processes: boots },
    (done, total, profile) => deps.onRound?.(step, done, total, profile),
  );
  return { runId, session: new BootSession(session), env, bootSeconds: [], costFunctions: [], costBranches: [], exits: [] };
}

/** After a boot: the guest's kernel from the probe's hello line, and how long the boot took. */
function recordBoot(req: VmRequest, deps: SiteDeps, run: OpenRun, exit: TargetExit | null): void {
  const hello = run.session.probe.helloEvent;
  if (hello) deps.store.updateEnvironment(run.runId, { kernel: guestKernel(hello, run.env.kernel) });
  if (!exit) return;
  run.exits.push(exit);
  const placed = deps.site.environmentOf(run.exits);
  if (placed) deps.store.updateEnvironment(run.runId, placed);
  run.bootSeconds.push(exit.elapsedMs / 1000);
  deps.store.updateEnvironment(run.runId, { vm: { ...run.env.vm, bootSeconds: req.poolBoots ? run.bootSeconds : exit.elapsedMs / 1000 } });
}

/** Where each boot's plugin output goes, and how it is stored after the boot; null without --cost. */
function costSetup(req: VmRequest, deps: VmDeps, plans: StepPlan[]): { arg: (boot: number) => string; record: (run: OpenRun, plan: StepPlan) => void } | null {
  if (!req.cost) return null;
  const model = req.cost;
  const plugin = deps.costPlugin;
  if (!plugin) throw new Error('internal: --cost without a built plugin');
  const dir = deps.costDir ?? '';
  const file = (boot: number) => join(dir, `boot-${boot + 1}.txt`);
  const maps = new Map<string, ReturnType<typeof systemMapFor>>();
  const mapOf = (image: string) => maps.get(image) ?? maps.set(image, systemMapFor(image)).get(image)!;
  // the plugin splits blocks at the kernel's function starts, so a block across a symbol is attributed exactly
  const symsFile = (plan: StepPlan): string | undefined => {
    const map = mapOf(plan.kernel.image);
    if (!map.known) return undefined;
    const path = join(dir, `syms-${plan.index + 1}.txt`);
    writeFileSync(path, `${map.value.symbols.map((s) => s.addr.toString(16)).join('\n')}\n`);
    return path;
  };
  return {
    arg: (boot) => pluginArg(plugin, file(boot), model, symsFile(plans[boot]!)),
    record: (run, plan) => {
      if (run.session.probe.storeFailure || run.session.costFailure) return;
      const symbols = mapOf(plan.kernel.image);
      const replicate = req.poolBoots ? plan.bootIndex - 1 : null;
      const got = recordBootCost({ store: deps.store, runId: run.runId, replicate, file: file(plan.index), model, symbols, debug: vmlinuxFor(plan.kernel.image) });
      if (typeof got === 'string') {
        run.session.costFailure = got;
        return;
      }
      run.costFunctions.push(got.functions);
      run.costBranches.push(got.branches);
      const systemMap = symbols.known ? symbols.value.path : null;
      deps.store.updateEnvironment(run.runId, {
        cost: { model: describeCostModel(model), plugin: plugin.buildId, qemu: plugin.qemuVersion, systemMap, functions: run.costFunctions, branches: run.costBranches },
      });
    },
  };
}

/** The boots as the driver's runs and segments: runs keyed by kernel when pooled, else one per boot. */
function layout(req: VmRequest, deps: SiteDeps, plans: StepPlan[], accel: Accel): { runs: DrivenRun[]; segments: DriverSegment[] } {
  const keys: string[] = [];
  const runs: DrivenRun[] = [];
  const open = new Map<string, OpenRun>();
  const targets = new Map<string, Target>();
  const args = guestProbeArgs(req, guestCpus(req.icount));
  const cost = costSetup(req, deps, plans);
  const single = plans.map((plan): DriverSegment => {
    const key = req.poolBoots ? plan.kernel.label : String(plan.index);
    if (!keys.includes(key)) {
      keys.push(key);
      runs.push({ open: () => open.set(key, openRun(req, deps, plan, accel)).get(key)! });
    }
    const { label, image } = plan.kernel;
    const spec: GuestSpec = { label, image, accel, icount: req.icount, cpus: guestCpus(req.icount), memoryMiB: MEMORY_MIB };
    if (!targets.has(label)) targets.set(label, deps.site.target(spec));
    return {
      run: keys.indexOf(key),
      // each cost boot writes its own file: one target per boot
      target: cost ? deps.site.target({ ...spec, plugin: cost.arg(plan.index) }) : targets.get(label)!,
      what: `the guest (kernel ${label})`,
      job: { program: 'probe', args: [...args, ...workArg(req.injectWork, label)], timeoutSeconds: req.timeoutSeconds },
      begin: () => req.poolBoots && open.get(key)!.session.probe.startSegment(req.rounds),
      ended: (_opened, exit) => {
        recordBoot(req, deps, open.get(key)!, exit);
        if (cost) cost.record(open.get(key)!, plan);
      },
      storedReason: (reason) => (req.poolBoots ? `boot ${plan.bootIndex} of kernel ${label}: ${reason}` : reason),
    };
  });
  return { runs, segments: pairSegments(single, deps.site.parallel) };
}

/** With two boots at once, consecutive segments run as pairs (the second alongside the first). */
function pairSegments(single: DriverSegment[], parallel: number): DriverSegment[] {
  if (parallel < 2) return single;
  const paired: DriverSegment[] = [];
  // each boot is its own unit: a failed boot does not stop the one beside it
  for (let i = 0; i < single.length; i += 2) paired.push(single[i + 1] ? { ...single[i]!, alongside: single[i + 1], independent: true } : single[i]!);
  return paired;
}

/** The plans each driver segment runs: one, or a pair when boots run two at once. */
export function segmentPlans(plans: StepPlan[], parallel = 1): StepPlan[][] {
  if (parallel < 2) return plans.map((p) => [p]);
  const groups: StepPlan[][] = [];
  for (let i = 0; i < plans.length; i += 2) groups.push(plans.slice(i, i + 2));
  return groups;
}

/** The driver's segment reports as the steps of a boot order, collected into `steps` and passed to the step callbacks. */
export function stepReports(plans: StepPlan[], deps: Pick<VmDeps, 'onStepStart' | 'onStepEnd'>, steps: StepResult[], parallel = 1): Pick<DriveSpec, 'onSegmentStart' | 'onSegmentEnd'> {
  const groups = segmentPlans(plans, parallel);
  return {
    onSegmentStart: (i) => groups[i]!.forEach((p) => deps.onStepStart?.(p)),
    onSegmentEnd: (r) => {
      const plan = groups[r.index]![r.alongside ? 1 : 0]!;
      const step: StepResult =
        r.outcome.state === 'failed'
          ? { ...plan, state: 'failed', runId: r.runId, reason: r.outcome.reason }
          : { ...plan, state: 'complete', runId: r.runId, seconds: (r.exit?.elapsedMs ?? 0) / 1000 };
      steps.push(step);
      deps.onStepEnd?.(step);
    },
  };
}

/** Why a pooled run with no failure of its own ends failed. */
function pooledStop(stop: DriveStop, plans: StepPlan[], parallel = 1): string {
  if (stop.kind === 'interrupted') return `interrupted after ${Math.min(stop.done * Math.max(1, parallel), plans.length)} of ${plans.length} boots`;
  // pooled runs are keyed by kernel, in the order kernels first boot
  const labels = [...new Set(plans.map((p) => p.kernel.label))];
  const group = segmentPlans(plans, parallel)[stop.segment]!;
  const failed = group.find((p) => labels.indexOf(p.kernel.label) === stop.run) ?? group[0]!;
  return `stopped after boot ${failed.bootIndex} of kernel ${failed.kernel.label} failed (run #${stop.runId})`;
}

/**
 * The accelerator of an order's boots on `site`: the site's own, or chosen
 * by a trial boot under KVM of the order's first kernel (vm and vm --macro).
 */
export function siteAccel(site: BootSite, req: Pick<VmRequest, 'kernels' | 'steps' | 'accel'> & { icount?: boolean }, deps: Pick<VmDeps, 'chooseAccel' | 'abort'>): Promise<AccelChoice> {
  const accel = site.accel;
  if (accel.kind === 'decided') return Promise.resolve({ accel: accel.accel, why: accel.why });
  const first = req.kernels.find((k) => k.label === req.steps[0]) ?? req.kernels[0];
  return (deps.chooseAccel ?? chooseAccel)(req.accel, req.icount === true, () => (first ? accel.trial(first.image, deps.abort) : Promise.resolve('no kernel to try')));
}

/**
 * Run every step of the order on `deps.site` (default: qemu here, opened
 * and closed around the order). Nothing is left behind but the stored runs
 * and the cached initramfs.
 */
export async function runVm(req: VmRequest, deps: VmDeps): Promise<VmResult> {
  if (deps.site) return runOnSite(req, { ...deps, site: deps.site });
  const site = await openBootSite({ kind: 'qemu', accel: req.accel, cost: null }, { probe: deps.probe, cacheDir: deps.cacheDir, launcher: deps.launcher, icount: req.icount, labelPrefix: req.labelPrefix });
  try {
    return await runOnSite(req, { ...deps, site });
  } finally {
    await site.close();
  }
}

async function runOnSite(req: VmRequest, deps: SiteDeps): Promise<VmResult> {
  const accel = await siteAccel(deps.site, req, deps);
  deps.onAccel?.(accel);
  const plans = planSteps(req).filter((p) => !req.skipSteps?.includes(p.index));
  const steps: StepResult[] = [];
  // the plugin's output files live only as long as the boots that write them
  const costDir = req.cost ? (deps.costDir ?? mkdtempSync(join(tmpdir(), 'hintlab-cost-'))) : undefined;
  try {
    const result = await driveBoots(req, { ...deps, costDir, abort: AbortSignal.any([deps.abort, deps.site.stopped]) }, accel, plans, steps);
    const problem = deps.site.problem();
    if (problem) throw problem;
    return result;
  } finally {
    if (costDir && !deps.costDir) rmSync(costDir, { recursive: true, force: true });
  }
}

async function driveBoots(req: VmRequest, deps: SiteDeps, accel: AccelChoice, plans: StepPlan[], steps: StepResult[]): Promise<VmResult> {
  const pooled = req.poolBoots === true;
  const parallel = deps.site.parallel;
  const result = await drive({
    store: deps.store,
    abort: deps.abort,
    ...layout(req, deps, plans, accel.accel),
    // a pooled run with a failed boot has no complete unit set: stop instead of booting on
    stopOnFailure: pooled,
    together: pooled,
    stoppedReason: (stop) => pooledStop(stop, plans, parallel),
    ...stepReports(plans, deps, steps, parallel),
  });
  return { state: result.interrupted ? 'interrupted' : 'finished', accel, unit: vmUnit(accel.accel, req.icount), steps };
}

/** `--inject-work N` for one boot: every boot of a known-work run gets one (0 where it has none) so all run the same fenced block (probes/work.c). */
function workArg(work: Record<string, number> | undefined, label: string): string[] {
  return work && Object.keys(work).length ? ['--inject-work', String(work[label] ?? 0)] : [];
}
