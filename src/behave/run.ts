/**
 * `hintlab behave` as a library call: the same scenarios run in a qemu
 * guest of each kernel (icount, one CPU, the probe's `--behave` mode as
 * /init), A booted twice (A, B, A again), each trace stored under what
 * determines it, and the three compared step by step into a
 * BehaveDocument (./compare.ts), where only what A repeats is judged.
 *
 * `runBehave(request, deps)` is the entry point for callers above (the CLI,
 * `trial`): it returns the document and stores the traces and the
 * comparison, so a rerun with an unchanged kernel image, scenario plan,
 * runner build and guest conditions boots nothing.
 *
 * Invariant: a boot that did not deliver a whole trace (panic, timeout,
 * corrupt lines, a runner error) throws a BehaveBootError with the console
 * tail and the qemu command; it is never stored and never compared.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ProbeBuild } from '../launch/probe-build.ts';
import { UserError } from '../errors.ts';
import type { Store } from '../store/store.ts';
import { guestTarget } from '../targets/guest.ts';
import type { Target, TargetFile, TargetJob } from '../targets/target.ts';
import type { VmKernel } from '../vm/kernels.ts';
import type { VmLauncher } from '../launch/qemu.ts';
import { compareTraces, type BehaveDocument, type BehaveKernel } from './compare.ts';
import { compilePlan, type Scenario, type TraceProgram } from './scenario.ts';
import { TraceReader, type Trace } from './trace.ts';

/** Where the plan is, relative to the job's working directory (the guest's root, the host's temp dir). */
const PLAN_FILE = 'behave.plan';
const PROGRAM_DIR = 'behave';
/** Kernel warnings (KERN_WARNING, level 4) must reach the console: `quiet` would hide WARN() and lockdep. */
export const BEHAVE_APPEND = 'console=ttyS0 panic=-1 nokaslr loglevel=5';
const MEMORY_MIB = 256;
/** icount guests get one CPU (SMP bring-up hangs under qemu's icount, src/vm/runner.ts). */
const GUEST_CPUS = 1;

export class BehaveBootError extends UserError {}

/** A user's static program whose output lines are its trace. */
export interface ProgramFile {
  /** The scenario name of its trace (the file's name). */
  name: string;
  /** Where it is on this machine, for messages. */
  hostPath: string;
  data: Buffer;
}

export interface BehaveRequest {
  kernels: readonly [VmKernel, VmKernel];
  scenarios: readonly Scenario[];
  programs?: readonly ProgramFile[];
  timeoutSeconds: number;
  hintlabVersion: string;
  /** Boot even when a stored trace has the same key (the new trace replaces it): a check that traces repeat. */
  fresh?: boolean;
}

export interface BehaveDeps {
  /** Where traces are kept for reuse; null stores nothing. */
  store: Store | null;
  launcher: VmLauncher;
  /** The static probe: the guest's /init and the runner. */
  probe: Pick<ProbeBuild, 'path' | 'buildId'>;
  abort: AbortSignal;
  cacheDir?: string;
  onBoot?(label: string, state: 'reused' | 'booting' | 'booted', seconds?: number): void;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** What runs in every guest: the plan of the scenarios that can run there, and the programs. */
export interface BehaveJob {
  plan: string;
  /** sha256 of the plan and every program's bytes. */
  planSha256: string;
  job: TargetJob;
  /** Scenario names in run order, as the trace must hold them. */
  expected: string[];
  notRun: { name: string; source: string; reason: string }[];
  order: { name: string; source: string; notRun?: string }[];
}

/** The job every guest runs; a scenario needing two CPUs is listed as not run (icount guests have one). */
export function behaveJob(scenarios: readonly Scenario[], programs: readonly ProgramFile[], timeoutSeconds: number, cpus = GUEST_CPUS): BehaveJob {
  const order = scenarios.map((s) => ({
    name: s.name,
    source: s.source,
    notRun: s.cpus > cpus ? `needs ${s.cpus} CPUs; icount guests have ${cpus}, since SMP bring-up hangs under qemu's icount` : undefined,
  }));
  for (const p of programs) {
    if (order.some((o) => o.name === p.name)) throw new UserError(`--program ${p.hostPath}: its name '${p.name}' is also a scenario's; rename the file`, 2);
    order.push({ name: p.name, source: `program:${p.hostPath}`, notRun: undefined });
  }
  const runnable = scenarios.filter((s) => s.cpus <= cpus);
  const traced: TraceProgram[] = programs.map((p) => ({ name: p.name, path: `${PROGRAM_DIR}/${p.name}` }));
  const plan = compilePlan(runnable, traced);
  const files: TargetFile[] = [{ path: PLAN_FILE, data: Buffer.from(plan) }, ...programs.map((p) => ({ path: `${PROGRAM_DIR}/${p.name}`, data: p.data, mode: 0o755 }))];
  const planSha256 = sha256(JSON.stringify({ plan, programs: programs.map((p) => sha256(p.data)) }));
  return {
    plan,
    planSha256,
    job: { program: 'probe', args: ['--behave', PLAN_FILE], files, timeoutSeconds },
    expected: order.filter((o) => !o.notRun).map((o) => o.name),
    notRun: order.flatMap((o) => (o.notRun ? [{ name: o.name, source: o.source, reason: o.notRun }] : [])),
    order,
  };
}

/** Run the job on a target and read its trace; a run that is not a whole trace throws BehaveBootError. */
export async function traceOn(target: Target, job: BehaveJob, abort: AbortSignal): Promise<{ trace: Trace; seconds: number }> {
  const reader = new TraceReader();
  const exit = await target.run(job.job, (l) => reader.feed(l), abort);
  const end = exit.end;
  let problem: string | null;
  if (end.kind === 'aborted') problem = 'interrupted (Ctrl-C)';
  else if (end.kind === 'timeout') problem = `no complete trace within ${end.seconds} s (--timeout)`;
  else if (end.kind === 'lost') problem = end.reason;
  else problem = reader.problem(job.expected);
  if (!problem && end.kind === 'exited' && end.code !== 0 && target.kind === 'host') problem = `the runner exited with status ${end.code ?? end.signal}`;
  if (problem) throw new BehaveBootError(exit.describe(`${target.name}: ${problem}; no trace was stored or compared`));
  return { trace: reader.result(), seconds: exit.elapsedMs / 1000 };
}

/** Which boot of a kernel a trace is: A's second boot is kept apart from its first, so reuse never stands in for a repeat. */
export type BootNumber = 1 | 2;

/**
 * What determines a kernel's trace: its image, the plan, the runner build,
 * the guest's conditions, and which boot it is. A first boot keeps the key
 * it always had, so traces stored before A was booted twice are reused.
 */
export function traceKey(imageSha256: string, job: BehaveJob, runnerBuild: string, boot: BootNumber = 1): string {
  const what = { schema: 1, image: imageSha256, plan: job.planSha256, runner: runnerBuild, icount: true, cpus: GUEST_CPUS, memoryMiB: MEMORY_MIB, append: BEHAVE_APPEND };
  return sha256(JSON.stringify(boot === 1 ? what : { ...what, boot }));
}

function storedTrace(store: Store | null, key: string): { trace: Trace; kernelRelease: string | null; bootSeconds: number | null } | null {
  const row = store?.behave.getTrace(key);
  if (!row) return null;
  try {
    return { trace: JSON.parse(row.traceJson) as Trace, kernelRelease: row.kernelRelease, bootSeconds: row.bootSeconds };
  } catch {
    // an unreadable stored trace is made again, never guessed at
    return null;
  }
}

async function kernelTrace(req: BehaveRequest, deps: BehaveDeps, kernel: VmKernel, job: BehaveJob, boot: BootNumber): Promise<{ side: BehaveKernel; trace: Trace }> {
  const imageSha256 = sha256(readFileSync(kernel.image));
  const key = traceKey(imageSha256, job, deps.probe.buildId, boot);
  const label = boot === 1 ? kernel.label : `${kernel.label} again`;
  const side = (reused: boolean, kernelRelease: string | null, bootSeconds: number | null): BehaveKernel => ({ label, image: kernel.image, imageSha256, kernelRelease, traceKey: key, reused, bootSeconds });
  const stored = req.fresh ? null : storedTrace(deps.store, key);
  if (stored) {
    deps.onBoot?.(label, 'reused');
    return { side: side(true, stored.kernelRelease, stored.bootSeconds), trace: stored.trace };
  }
  deps.onBoot?.(label, 'booting');
  const target = guestTarget(
    { label, image: kernel.image, accel: 'tcg', icount: true, cpus: GUEST_CPUS, memoryMiB: MEMORY_MIB, append: BEHAVE_APPEND },
    { probe: deps.probe, launcher: deps.launcher, cacheDir: deps.cacheDir },
  );
  const { trace, seconds } = await traceOn(target, job, deps.abort);
  deps.onBoot?.(label, 'booted', seconds);
  deps.store?.behave.putTrace({
    key, kernelSha256: imageSha256, planSha256: job.planSha256, runnerBuild: deps.probe.buildId, icount: true,
    kernelRelease: trace.kernelRelease, bootSeconds: seconds, traceJson: JSON.stringify(trace), hintlabVersion: req.hintlabVersion,
  });
  return { side: side(false, trace.kernelRelease, seconds), trace };
}

/**
 * Boot (or reuse) A, B and A again, compare them, store the comparison;
 * returns its document. A boots a second time so that a step whose result
 * varies from boot to boot is not judged (./judge.ts); the order A, B, A
 * again is docs/behave.md's.
 */
export async function runBehave(req: BehaveRequest, deps: BehaveDeps): Promise<BehaveDocument> {
  const job = behaveJob(req.scenarios, req.programs ?? [], req.timeoutSeconds);
  if (job.expected.length === 0) throw new UserError(`no scenario can run in an icount guest: ${job.notRun.map((s) => `${s.name} ${s.reason}`).join('; ')}`, 2);
  const [ka, kb] = req.kernels;
  const a = await kernelTrace(req, deps, ka, job, 1);
  const b = await kernelTrace(req, deps, kb, job, 1);
  const again = await kernelTrace(req, deps, ka, job, 2);
  const guest = { icount: true, cpus: GUEST_CPUS, runnerBuild: deps.probe.buildId };
  const doc = compareTraces({ a: a.side, b: b.side, aAgain: again.side, traceA: a.trace, traceB: b.trace, traceAAgain: again.trace, scenarios: job.order, guest });
  // the third trace is named by the key and kept in the document (a_trace and b_trace are A's first boot and B)
  deps.store?.behave.putComparison(sha256(`${a.side.traceKey}\0${b.side.traceKey}\0${again.side.traceKey}`), a.side.traceKey, b.side.traceKey, JSON.stringify(doc));
  return doc;
}
