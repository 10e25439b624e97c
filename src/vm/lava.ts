/**
 * `hintlab vm --target lava://...`: the same boot order as `vm` (A B A, or
 * A B B A ... with --repeat), each boot one LAVA job on a device of the
 * address's type (src/target/lava/). Before anything is submitted the
 * server is asked whether the token works and the device type has a usable
 * device, so a bad token or an empty device type is one message, not a
 * failed run per boot.
 *
 * Only qemu device types for now: their runs are emulated, so the unit is
 * instructions/call under --icount and emulated-time/call without, never ns
 * (hintlab cannot see whether a lab's qemu device has KVM).
 */
import { UserError } from '../errors.ts';
import { parseLavaAddress } from '../target/lava/address.ts';
import { LavaClient } from '../target/lava/client.ts';
import { type JobGuard, startLavaGuard } from '../target/lava/guard.ts';
import { LAVA_APPEND } from '../target/lava/job.ts';
import { lavaTarget, type LavaProgress } from '../target/lava/target.ts';
import { type FileServer, serveFiles } from '../target/lava/serve.ts';
import type { AccelChoice } from './accel.ts';
import { RunNotFoundError, type Store } from '../store/store.ts';
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
  /** The steps `--resume` found done. */
  onResume?: (done: StepPlan[]) => void;
  /** The usable devices, and how many boots run at once on them. */
  onDevices?: (devices: string[], parallel: number) => void;
}

const ACCEL: AccelChoice = { accel: 'tcg', why: "a LAVA qemu device: emulated, so no ns are claimed" };

/**
 * `--resume`: the steps of this order already stored complete from this lab,
 * by step index. A step counts as done when the newest run of its label is
 * complete and was made by the same order, profiles, icount, kernel image
 * and LAVA server; anything else runs again. One run per boot only: a
 * --repeat design pools its boots into one run per kernel.
 */
export function stepsDone(store: Store, req: VmRequest, server: string): number[] {
  if (req.poolBoots) throw new UserError('--resume continues an order with one run per boot (--order); a --repeat design pools boots into one run per kernel, so run it again whole', 2);
  return planSteps(req).flatMap((plan) => {
    let run;
    try {
      run = store.resolveRun(plan.runLabel);
    } catch (err) {
      if (err instanceof RunNotFoundError) return [];
      throw err;
    }
    const extra = run.params.extra as { order?: string; icount?: boolean } | undefined;
    const env = run.environment as { lava?: { server?: string }; vm?: { kernelPath?: string } };
    const same =
      run.status === 'complete' &&
      extra?.order === req.steps.join(',') &&
      extra.icount === req.icount &&
      run.params.subjects.join(',') === req.profiles.map((p) => p.name).join(',') &&
      env.lava?.server === server &&
      env.vm?.kernelPath === plan.kernel.image;
    return same ? [plan.index] : [];
  });
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

function runOnLab(req: VmRequest, deps: LavaVmDeps, { client, parallel, files, boots, guard }: Lab): Promise<VmResult> {
  const address = client.address;
  const skipSteps = deps.resume ? stepsDone(deps.store, req, address.name) : [];
  if (skipSteps.length) deps.onResume?.(skipSteps.map((i) => planSteps(req)[i]!));
  return runVm(
    { ...req, parallel, skipSteps },
    {
      ...deps,
      launcher: { boot: () => Promise.reject(new Error('internal: a LAVA run boots no local qemu')) },
      chooseAccel: async () => ACCEL,
      append: LAVA_APPEND,
      targetFor: (spec) =>
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
    },
  );
}
