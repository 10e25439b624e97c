/**
 * A LAVA lab as a boot site: each boot one LAVA job on a device of the
 * address's type (./target.ts). Opening it asks the server whether the
 * token works and the device type has a usable device, so a bad token or an
 * empty device type is one message, not a failed run per boot; it starts
 * the file server a worker on another machine downloads from, and the
 * guard that cancels the jobs of a killed hintlab (./guard.ts) before the
 * first submission.
 *
 * Only qemu device types: their runs are emulated, so the unit is
 * instructions/call under icount and emulated-time/call without, never ns
 * (hintlab cannot see whether a lab's qemu device has KVM).
 */
import { UserError } from '../../errors.ts';
import type { BootSite, SiteContext, SiteKind } from '../site.ts';
import type { Target, TargetExit } from '../target.ts';
import { parseLavaAddress, type LavaAddress } from './address.ts';
import { LavaClient, LavaSubmissionUnknown } from './client.ts';
import { startLavaGuard } from './guard.ts';
import { LAVA_APPEND } from './job.ts';
import { serveFiles } from './serve.ts';
import { lavaTarget, type LabJob, type LavaTarget } from './target.ts';

/** Why hintlab cannot boot on this address, found from the address alone; null when it can. */
export function lavaAddressProblem(address: LavaAddress): string | null {
  if (address.deviceType.startsWith('qemu')) return null;
  return `--target ${address.name}: hintlab writes LAVA jobs for qemu device types only so far (the job boots kernel and initramfs with LAVA's qemu method); name a qemu device type`;
}

/** Open the lab: its devices checked, the file server (with `serve=`) and the guard started. */
export async function openLavaSite(address: LavaAddress, ctx: SiteContext): Promise<BootSite> {
  const problem = lavaAddressProblem(address);
  if (problem) throw new UserError(problem, 2);
  const client = new LavaClient(address);
  const devices = await client.checkDeviceType(address.deviceType, address.tags);
  // instruction counts do not depend on what else runs: with two devices, boots go in pairs
  const parallel = ctx.icount && devices.length >= 2 ? 2 : 1;
  ctx.onEvent?.({ kind: 'devices', devices: devices.map((d) => d.hostname), parallel });
  // a worker on another machine downloads the kernels from hintlab; one on this machine reads file:// URLs
  const files = address.serve ? await serveFiles(address.serve) : null;
  let guard;
  try {
    guard = await startLavaGuard(address);
  } catch (err) {
    await files?.close();
    throw err;
  }
  const boots = new Map<string, number>();
  const jobs = new WeakMap<TargetExit, LabJob>();
  const stop = new StopOnUnknownJob();
  return {
    name: address.name,
    accel: { kind: 'decided', accel: 'tcg', why: 'a LAVA qemu device: emulated, so no ns are claimed' },
    append: LAVA_APPEND,
    parallel,
    stopped: stop.signal,
    problem: () => (stop.unknown ? new UserError(stop.unknown.message) : null),
    target: (spec) => {
      const target = lavaTarget(spec, {
        client,
        probe: ctx.probe,
        cacheDir: ctx.cacheDir,
        pollMs: ctx.pollMs,
        guard,
        ...(files ? { urlOf: (p: string) => files.url(p) } : {}),
        jobName: () => {
          const n = (boots.get(spec.label) ?? 0) + 1;
          boots.set(spec.label, n);
          return `hintlab ${ctx.labelPrefix}${spec.label}: kernel ${spec.label}, boot ${n}`;
        },
        onProgress: (progress) => ctx.onEvent?.({ kind: 'lava-job', progress }),
      });
      return stop.watch(remembered(target, jobs));
    },
    environmentOf: (exits) => lavaRecord(exits.flatMap((e) => jobs.get(e) ?? [])),
    close: async () => {
      try {
        await guard.release();
      } finally {
        await files?.close();
      }
    },
  };
}

/** The target, with the job of each exit kept for the run's record. */
function remembered(target: LavaTarget, jobs: WeakMap<TargetExit, LabJob>): Target {
  return {
    ...target,
    run: async (job, onLine, abort) => {
      const exit = await target.run(job, onLine, abort);
      if (exit.labJob) jobs.set(exit, exit.labJob);
      return exit;
    },
  };
}

/** What a run stores of its LAVA boots: the server and device type once, then each job. */
function lavaRecord(jobs: LabJob[]): Record<string, unknown> | null {
  const first = jobs[0];
  if (!first) return null;
  return { lava: { server: first.server, deviceType: first.deviceType, jobs: jobs.map(({ server: _server, deviceType: _deviceType, ...job }) => job) } };
}

/** LAVA labs in the factory's table (src/targets/factory.ts). */
export const LAVA_SITE: SiteKind<LavaAddress> = {
  scheme: /^lava(\+https)?:\/\//,
  words: 'a LAVA lab',
  resumes: true,
  parse: parseLavaAddress,
  problem: lavaAddressProblem,
  open: openLavaSite,
};

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
