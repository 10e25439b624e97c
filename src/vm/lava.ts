/**
 * `hintlab vm --target lava://...`: the same boot order as `vm` (A B A, or
 * A B B A ... with --repeat), each boot one LAVA job on a device of the
 * address's type (src/targets/lava/). Before anything is submitted the
 * server is asked whether the token works and the device type has a usable
 * device, so a bad token or an empty device type is one message, not a
 * failed run per boot.
 *
 * Only qemu device types for now: their runs are emulated, so the unit is
 * instructions/call under --icount and emulated-time/call without, never ns
 * (hintlab cannot see whether a lab's qemu device has KVM).
 */
import { UserError } from '../errors.ts';
import { parseLavaAddress } from '../targets/lava/address.ts';
import { LavaClient, LavaSubmissionUnknown } from '../targets/lava/client.ts';
import { type JobGuard, startLavaGuard } from '../targets/lava/guard.ts';
import { LAVA_APPEND } from '../targets/lava/job.ts';
import { lavaTarget, type LavaProgress } from '../targets/lava/target.ts';
import type { Target } from '../targets/target.ts';
import { type FileServer, serveFiles } from '../targets/lava/serve.ts';
import type { AccelChoice } from './accel.ts';
import { RunNotFoundError, type Store } from '../store/store.ts';
import type { Run } from '../model.ts';
import { readEnvironment, vmOf } from '../environment/read.ts';
import { fileSha256 } from '../targets/lava/job.ts';
import { planSteps, runVm, type StepPlan, type VmDeps, type VmRequest, type VmResult } from './runner.ts';

export interface LavaVmDeps extends Omit<VmDeps, 'launcher' | 'chooseAccel' | 'targetFor' | 'costPlugin'> {
  /** `lava://[TOKEN@]SERVER[:PORT]/DEVICE_TYPE[?tags=a,b]`. */
  target: string;
  env?: NodeJS.ProcessEnv;
  /** Between two looks at a job (default 2 s). */
  pollMs?: number;
  onLavaProgress?: (p: LavaProgress) => void;
  /** `--resume`: boots of this order already stored complete are not run again. */
  resume?: boolean;
  /** What `--resume` found: the steps done, and why each stored one that is not boots again. */
  onResume?: (done: StepPlan[], again: ResumeStep[]) => void;
  /** The usable devices, and how many boots run at once on them. */
  onDevices?: (devices: string[], parallel: number) => void;
}

const ACCEL: AccelChoice = { accel: 'tcg', why: "a LAVA qemu device: emulated, so no ns are claimed" };

/** A step of the order as `--resume` finds it: done (null), or why it boots (again). */
export interface ResumeStep {
  plan: StepPlan;
  /** Why the stored run is not taken: null when it is; `not stored` when there is none. */
  why: string | null;
}

/**
 * `--resume`: the steps of this order already stored complete from this
 * lab, by step index. A step counts as done only when the newest run of its
 * label is complete and was made by the same order, profiles, --ops,
 * --warmups, --rounds, --inject-work, icount, probe build and LAVA server,
 * from a kernel image with the same content (its sha256, stored with each
 * job): a bzImage rebuilt in place is booted again. A run stored without
 * the hash is booted again too, and says so. One run per boot only: a
 * --repeat design pools its boots into one run per kernel.
 */
export function resumeSteps(store: Store, req: VmRequest, server: string, probeBuildId: string): ResumeStep[] {
  if (req.poolBoots) throw new UserError('--resume continues an order with one run per boot (--order); a --repeat design pools boots into one run per kernel, so run it again whole', 2);
  const hashes = new Map<string, string>();
  const hashOf = (path: string) => hashes.get(path) ?? hashes.set(path, fileSha256(path)).get(path)!;
  return planSteps(req).map((plan) => {
    let run;
    try {
      run = store.resolveRun(plan.runLabel);
    } catch (err) {
      if (err instanceof RunNotFoundError) return { plan, why: 'not stored' };
      throw err;
    }
    return { plan, why: staleBecause(run, req, plan, { server, probeBuildId, kernelSha256: hashOf(plan.kernel.image) }) };
  });
}

/** The step indices `--resume` does not boot again. */
export function stepsDone(store: Store, req: VmRequest, server: string, probeBuildId: string): number[] {
  return resumeSteps(store, req, server, probeBuildId).flatMap((s) => (s.why === null ? [s.plan.index] : []));
}

/** Why a stored run is not this step's boot, or null when it is. */
function staleBecause(run: Run, req: VmRequest, plan: StepPlan, now: { server: string; probeBuildId: string; kernelSha256: string }): string | null {
  const extra = run.params.extra;
  const env = readEnvironment(run);
  const lava = env.where === 'guest' ? env.lava : undefined;
  const p = run.params;
  const differs = (flag: string, was: string | number | boolean | null | undefined, is: string | number | boolean | null | undefined) => (was === is ? null : `stored with ${flag} ${String(was ?? 'unset')}, not ${String(is ?? 'unset')}`);
  const hash = lava?.jobs?.at(-1)?.kernelSha256 ?? null;
  return (
    (run.status === 'complete' ? null : `stored ${run.status}`) ??
    differs('order', extra.order, req.steps.join(',')) ??
    differs('profiles', p.subjects.join(','), req.profiles.map((x) => x.name).join(',')) ??
    differs('--ops', p.ops, req.ops) ??
    differs('--warmups', p.warmups, req.warmups) ??
    differs('--rounds', p.rounds, req.rounds) ??
    differs('--inject-work', extra.injectWork ?? 0, req.injectWork?.[plan.kernel.label] ?? 0) ??
    differs('--icount', extra.icount === true, req.icount) ??
    (lava?.server === now.server ? null : `stored from ${lava?.server ?? 'local qemu'}`) ??
    (env.probe?.buildId === now.probeBuildId ? null : 'stored by another probe build') ??
    (vmOf(env)?.kernelPath === plan.kernel.image ? null : `stored from kernel ${vmOf(env)?.kernelPath ?? 'unknown'}`) ??
    (hash === null
      ? "stored without the kernel image's hash (an older hintlab), so it cannot be told from a rebuilt one"
      : hash === now.kernelSha256
        ? null
        : `kernel image ${plan.kernel.image} changed since (sha256 ${hash.slice(0, 12)}, now ${now.kernelSha256.slice(0, 12)})`)
  );
}

/** Run the request's boot order as LAVA jobs. */
export async function runVmOnLava(req: VmRequest, deps: LavaVmDeps): Promise<VmResult> {
  const address = parseLavaAddress(deps.target, deps.env);
  if (!address.deviceType.startsWith('qemu')) {
    throw new UserError(`--target ${address.name}: hintlab writes LAVA jobs for qemu device types only so far (the job boots kernel and initramfs with LAVA's qemu method); name a qemu device type`, 2);
  }
  if (req.cost) throw new UserError('--cost needs hintlab\'s qemu plugin on this machine; it does not run on a LAVA lab: drop --cost or --target', 2);
  if (req.accel === 'kvm') throw new UserError('--accel kvm: on a LAVA lab the device decides the accelerator; drop --accel (runs are stored as emulated)', 2);
  const client = new LavaClient(address);
  const devices = await client.checkDeviceType(address.deviceType, address.tags);
  // instruction counts do not depend on what else runs: with two devices, boots go in pairs
  const parallel = req.icount && devices.length >= 2 ? 2 : 1;
  deps.onDevices?.(devices.map((d) => d.hostname), parallel);
  const boots = new Map<string, number>();
  // a worker on another machine downloads the kernels from hintlab; one on this machine reads file:// URLs
  const files = address.serve ? await serveFiles(address.serve) : null;
  try {
    // before the first submission: a hintlab killed mid-design leaves no job holding a device
    const guard = await startLavaGuard(address);
    try {
      return await runOnLab(req, deps, { client, parallel, files, boots, guard });
    } finally {
      await guard.release();
    }
  } finally {
    await files?.close();
  }
}

interface Lab {
  client: LavaClient;
  parallel: number;
  files: FileServer | null;
  boots: Map<string, number>;
  guard: JobGuard;
}

async function runOnLab(req: VmRequest, deps: LavaVmDeps, { client, parallel, files, boots, guard }: Lab): Promise<VmResult> {
  const address = client.address;
  const resumed = deps.resume ? resumeSteps(deps.store, req, address.name, deps.probe.buildId) : [];
  const skipSteps = resumed.flatMap((s) => (s.why === null ? [s.plan.index] : []));
  if (deps.resume) deps.onResume?.(resumed.flatMap((s) => (s.why === null ? [s.plan] : [])), resumed.filter((s) => s.why !== null && s.why !== 'not stored'));
  // a submission LAVA answered without a job id stops the design: another would only add an unknown job
  const stop = new StopOnUnknownJob();
  const result = await runVm(
    { ...req, parallel, skipSteps },
    {
      ...deps,
      abort: AbortSignal.any([deps.abort, stop.signal]),
      launcher: { boot: () => Promise.reject(new Error('internal: a LAVA run boots no local qemu')) },
      chooseAccel: () => Promise.resolve(ACCEL),
      append: LAVA_APPEND,
      targetFor: (spec) =>
        stop.watch(
          lavaTarget(
            { label: spec.label, image: spec.image, icount: spec.icount, cpus: spec.cpus, memoryMiB: spec.memoryMiB },
            {
              client,
              probe: deps.probe,
              cacheDir: deps.cacheDir,
              pollMs: deps.pollMs,
              guard,
              ...(files ? { urlOf: (p: string) => files.url(p) } : {}),
              jobName: () => {
                const n = (boots.get(spec.label) ?? 0) + 1;
                boots.set(spec.label, n);
                return `hintlab ${req.labelPrefix}${spec.label}: kernel ${spec.label}, boot ${n}`;
              },
              onProgress: deps.onLavaProgress,
            },
          ),
        ),
    },
  );
  if (stop.unknown) throw new UserError(stop.unknown.message);
  return result;
}

/** Aborts the design at the first submission whose job LAVA did not name (LavaSubmissionUnknown), and keeps it to say. */
class StopOnUnknownJob {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  unknown: LavaSubmissionUnknown | null = null;

  watch(target: Target): Target {
    return {
      ...target,
      run: (job, onLine, abort) =>
        target.run(job, onLine, abort).catch((err: unknown) => {
          if (err instanceof LavaSubmissionUnknown) {
            this.unknown ??= err;
            this.controller.abort();
          }
          throw err;
        }),
    };
  }
}
