/**
 * `hintlab vm`: boot each kernel of the order in turn (A, B, A, ...), run
 * the probe as the guest's /init, and store every boot as its own run of
 * kind 'vm', so `hintlab compare vm-A-1 vm-B-1 vm-A-2` works unchanged.
 *
 * Invariant: a boot that did not end with every requested round (panic,
 * timeout, garbage, probe error, Ctrl-C) is stored as a failed run whose
 * error holds the last console lines and the qemu command line; its rounds
 * are never treated as data.
 */
import { shellLine } from '../shell.ts';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultCacheDir, type ProbeBuild } from '../bench/build.ts';
import type { ProfileInfo } from '../bench/profiles.ts';
import { parseLine } from '../bench/protocol.ts';
import { probeArgs, probeRunShape, runParams, type BenchRequest } from '../bench/runner.ts';
import { type ProbeSession, type SessionOutcome, startProbeRun } from '../bench/session.ts';
import { invocationExtra, type RunInvocation, type RunParams, type Unit } from '../model.ts';
import type { Store } from '../store/store.ts';
import { chooseAccel, type AccelChoice, type AccelRequest } from './accel.ts';
import { guestKernel, vmEnvironment } from '../environment/guest.ts';
import type { GuestEnvironment } from '../environment/record.ts';
import { probeInitramfs, type CpioEntry } from './initramfs.ts';
import type { VmKernel } from './kernels.ts';
import { BASE_APPEND, qemuCommand, type Accel, type BootResult, type VmLauncher } from './qemu.ts';

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
  command: string;
  /** The arguments as typed and the working directory, stored as params.extra.invocation. */
  invocation?: RunInvocation;
  hintlabVersion: string;
}

export interface VmDeps {
  store: Store;
  launcher: VmLauncher;
  probe: ProbeBuild;
  abort: AbortSignal;
  /** Where initramfs images are kept (default: next to the probe cache). */
  cacheDir?: string;
  /** Overrides the KVM check (tests). */
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
const TRIAL_TIMEOUT_S = 20;

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
  const extra = { kernelLabel: step.kernel.label, ...pooled, accel, icount: req.icount, order: req.steps.join(','), ...invocationExtra(req) };
  return runParams(req, { cpu: 0, otherCpu: cpus > 1 ? 1 : null }, extra);
}

/** The guest probe's arguments: the same as a host bench, pinned to guest CPU 0. */
function guestProbeArgs(req: VmRequest, cpus: number): string[] {
  const bench: BenchRequest = { ...req, cpu: 0, label: null, injectSeccomp: null, processes: 1 };
  return probeArgs(bench, { cpu: 0, otherCpu: cpus > 1 ? 1 : null });
}

/** Why a boot's output is not data, in the words a user needs, with the evidence to debug it. */
export function describeBootFailure(what: string, boot: BootResult, argv: string[]): string {
  const panic = boot.consoleTail.find((l) => /Kernel panic|BUG:|Oops/.test(l));
  const lines = [
    panic ? `${what}; the kernel reported: ${panic.trim()}` : what,
    'last console lines:',
    ...(boot.consoleTail.length ? boot.consoleTail.slice(-12).map((l) => `  | ${l}`) : ['  (the guest printed nothing)']),
  ];
  if (boot.stderrTail.length) lines.push('qemu said:', ...boot.stderrTail.slice(-5).map((l) => `  | ${l}`));
  lines.push(`qemu command: ${shellLine(argv)}`);
  return lines.join('\n');
}

function bootOutcome(session: ProbeSession, boot: BootResult, argv: string[]): SessionOutcome {
  const end = boot.end;
  if (end.kind === 'aborted') return { state: 'failed', reason: describeBootFailure('interrupted (Ctrl-C): qemu was killed', boot, argv) };
  if (end.kind === 'timeout') {
    return { state: 'failed', reason: describeBootFailure(`no complete result within ${end.seconds} s (--timeout); qemu was killed`, boot, argv) };
  }
  // qemu exits 0 whenever the guest reboots; whether the probe finished is in its own lines
  const out = session.outcome({ code: end.code, signal: end.signal });
  if (out.state === 'failed') return { state: 'failed', reason: describeBootFailure(out.reason.replace(/^probe exited with status/, 'qemu exited with status'), boot, argv) };
  if (session.corruptLines.length) {
    return { state: 'failed', reason: describeBootFailure(`the guest printed ${session.corruptLines.length} corrupt probe line(s), first: ${session.corruptLines[0]}`, boot, argv) };
  }
  return out;
}

/**
 * The initramfs for these probe arguments, kept under its content hash: no
 * temporary file to clean up, and the qemu command line in an error message
 * stays runnable by hand afterwards.
 */
export function initramfsFile(probe: ProbeBuild, args: string[], cacheDir = join(dirname(defaultCacheDir()), 'initramfs'), extra: CpioEntry[] = []): string {
  const image = probeInitramfs(readFileSync(probe.path), args, extra);
  const path = join(cacheDir, `${createHash('sha256').update(image).digest('hex').slice(0, 16)}.cpio.gz`);
  if (!existsSync(path)) {
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, image);
    renameSync(tmp, path);
  }
  return path;
}

/** Boot the first kernel under KVM with `--list`: null when KVM works, else why not. */
export async function trialBoot(req: Pick<VmRequest, 'kernels' | 'steps'>, deps: Pick<VmDeps, 'probe' | 'cacheDir' | 'launcher' | 'abort'>): Promise<string | null> {
  const first = req.kernels.find((k) => k.label === req.steps[0]) ?? req.kernels[0];
  if (!first) return 'no kernel to try';
  const initrd = initramfsFile(deps.probe, ['--list'], deps.cacheDir);
  const argv = qemuCommand({ kernel: first.image, initrd, accel: 'kvm', icount: false, cpus: 1, memoryMiB: MEMORY_MIB, append: BASE_APPEND });
  let profiles = 0;
  const boot = await deps.launcher.boot({
    argv,
    timeoutSeconds: TRIAL_TIMEOUT_S,
    abort: deps.abort,
    onLine: (l) => {
      const p = parseLine(l);
      if (p.kind === 'event' && p.event.type === 'profile') profiles++;
    },
  });
  if (boot.end.kind === 'exited' && boot.end.code === 0 && profiles > 0) return null;
  if (boot.end.kind === 'timeout') return `no probe output within ${TRIAL_TIMEOUT_S} s; last console line: ${boot.consoleTail.at(-1) ?? '(none)'}`;
  if (boot.end.kind === 'aborted') return 'interrupted';
  return `qemu exited with ${boot.end.code ?? boot.end.signal} after ${profiles} probe lines; ${boot.stderrTail.at(-1) ?? boot.consoleTail.at(-1) ?? ''}`.trim();
}

/** A run that boots are feeding: one per boot, or one per kernel when boots are pooled. */
interface OpenRun {
  runId: number;
  session: ProbeSession;
  env: GuestEnvironment;
  bootSeconds: number[];
}

function openRun(req: VmRequest, deps: VmDeps, step: StepPlan, accel: Accel): OpenRun {
  const env: GuestEnvironment = vmEnvironment({
    probe: deps.probe,
    kernel: step.kernel,
    append: BASE_APPEND,
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
      environment: env as unknown as Record<string, unknown>,
    },
    { ...probeRunShape(req), rounds: req.rounds * boots, processes: boots },
    (done, total, profile) => deps.onRound?.(step, done, total, profile),
  );
  return { runId, session, env, bootSeconds: [] };
}

/** Boot once into `run`'s session; the run is finished here only when it is not pooled or the boot failed. */
async function runStep(req: VmRequest, deps: VmDeps, step: StepPlan, accel: Accel, initrd: string, run: OpenRun): Promise<StepResult> {
  const { runId, session, env } = run;
  if (req.poolBoots) session.startSegment(req.rounds);
  const argv = qemuCommand({ kernel: step.kernel.image, initrd, accel, icount: req.icount, cpus: guestCpus(req.icount), memoryMiB: MEMORY_MIB, append: BASE_APPEND });
  // a round that cannot be stored (disk full) stops qemu too
  const abort = AbortSignal.any([deps.abort, session.stopped]);
  const boot = await deps.launcher.boot({ argv, timeoutSeconds: req.timeoutSeconds, abort, onLine: (l) => session.feed(l) });
  if (session.storeFailure) deps.store.abandonRun(runId, session.storeFailure);
  const hello = session.helloEvent;
  if (hello) deps.store.updateEnvironment(runId, { kernel: guestKernel(hello, env.kernel) });
  run.bootSeconds.push(boot.elapsedMs / 1000);
  const seconds = req.poolBoots ? run.bootSeconds : boot.elapsedMs / 1000;
  deps.store.updateEnvironment(runId, { vm: { ...env.vm, bootSeconds: seconds } });
  const outcome = bootOutcome(session, boot, argv);
  if (outcome.state === 'failed') {
    const reason = req.poolBoots ? `boot ${step.bootIndex} of kernel ${step.kernel.label}: ${outcome.reason}` : outcome.reason;
    deps.store.finishRun(runId, 'failed', reason);
    return { ...step, state: 'failed', runId, reason: outcome.reason };
  }
  if (!req.poolBoots) deps.store.finishRun(runId, 'complete');
  return { ...step, state: 'complete', runId, seconds: boot.elapsedMs / 1000 };
}

/** Finish the pooled runs still open: complete when every boot was, else failed naming the boot that stopped them. */
function finishPooled(deps: VmDeps, open: Map<string, OpenRun>, steps: StepResult[], planned: number): void {
  const failed = steps.find((s) => s.state === 'failed');
  for (const [label, run] of open) {
    if (failed?.kernel.label === label) continue; // already finished with its own reason
    if (!failed && steps.length === planned) deps.store.finishRun(run.runId, 'complete');
    else if (failed) deps.store.finishRun(run.runId, 'failed', `stopped after boot ${failed.bootIndex} of kernel ${failed.kernel.label} failed (run #${failed.runId})`);
    else deps.store.finishRun(run.runId, 'failed', `interrupted after ${steps.length} of ${planned} boots`);
  }
}

/** Run every step of the order. Nothing is left behind but the stored runs and the cached initramfs. */
export async function runVm(req: VmRequest, deps: VmDeps): Promise<VmResult> {
  const accel = await (deps.chooseAccel ?? chooseAccel)(req.accel, req.icount, () => trialBoot(req, deps));
  deps.onAccel?.(accel);
  const unit = vmUnit(accel.accel, req.icount);
  const initrd = initramfsFile(deps.probe, guestProbeArgs(req, guestCpus(req.icount)), deps.cacheDir);
  const steps: StepResult[] = [];
  const plans = planSteps(req);
  const open = new Map<string, OpenRun>();
  const done = (state: VmResult['state']): VmResult => {
    if (req.poolBoots) finishPooled(deps, open, steps, plans.length);
    return { state, accel, unit, steps };
  };
  for (const plan of plans) {
    if (deps.abort.aborted) return done('interrupted');
    deps.onStepStart?.(plan);
    const key = req.poolBoots ? plan.kernel.label : String(plan.index);
    const run = open.get(key) ?? openRun(req, deps, plan, accel.accel);
    open.set(key, run);
    const result = await runStep(req, deps, plan, accel.accel, initrd, run);
    steps.push(result);
    deps.onStepEnd?.(result);
    if (deps.abort.aborted) return done('interrupted');
    // a pooled run with a failed boot has no complete unit set: stop instead of booting on
    if (req.poolBoots && result.state === 'failed') return done('finished');
  }
  return done('finished');
}
