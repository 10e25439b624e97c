/**
 * A boot order at the place the flags name (src/targets/place.ts): the
 * factory opens its site (qemu here, a LAVA lab, a fake guest), `--resume`
 * leaves out what the lab has stored complete already (./lava.ts), the
 * scheduler (./runner.ts) boots the rest, and the site is closed however
 * the order ends.
 */
import { openBootSite, type BootPlace } from '../targets/factory.ts';
import type { LavaAddress } from '../targets/lava/address.ts';
import type { LavaProgress } from '../targets/lava/target.ts';
import type { SiteContext, SiteEvent } from '../targets/site.ts';
import { resumeSteps, type ResumeStep } from './lava.ts';
import { runVm, type StepPlan, type VmDeps, type VmRequest, type VmResult } from './runner.ts';

export interface PlacedVmDeps extends Omit<VmDeps, 'site'>, Pick<SiteContext, 'pollMs' | 'onEvent'> {
  /** What `--resume` found: the steps done, and why each stored one that is not boots again. */
  onResume?: (done: StepPlan[], again: ResumeStep[]) => void;
}

/** The step indices `--resume` leaves out, said through `onResume`; none without it. */
function resumed(place: BootPlace, req: VmRequest, deps: PlacedVmDeps): number[] {
  if (place.kind === 'qemu' || !place.resume) return [];
  const steps = resumeSteps(deps.store, req, place.address.name, deps.probe.buildId);
  deps.onResume?.(steps.flatMap((s) => (s.why === null ? [s.plan] : [])), steps.filter((s) => s.why !== null && s.why !== 'not stored'));
  return steps.flatMap((s) => (s.why === null ? [s.plan.index] : []));
}

/** Run the request's boot order at `place`. */
export async function runVmAt(place: BootPlace, req: VmRequest, deps: PlacedVmDeps): Promise<VmResult> {
  const site = await openBootSite(place, { probe: deps.probe, cacheDir: deps.cacheDir, launcher: deps.launcher, icount: req.icount, labelPrefix: req.labelPrefix, pollMs: deps.pollMs, onEvent: deps.onEvent });
  try {
    const skipSteps = resumed(place, req, deps);
    return await runVm(skipSteps.length ? { ...req, skipSteps } : req, { ...deps, site });
  } finally {
    await site.close();
  }
}

/** A boot order on a LAVA lab, as the trial runs its measured boots there. */
export interface LavaVmDeps extends Omit<PlacedVmDeps, 'onEvent'> {
  address: LavaAddress;
  /** `--resume`: boots of this order already stored complete are not run again. */
  resume?: boolean;
  onLavaProgress?: (p: LavaProgress) => void;
  /** The usable devices, and how many boots run at once on them. */
  onDevices?: (devices: string[], parallel: number) => void;
}

/** Run the request's boot order as LAVA jobs. */
export function runVmOnLava(req: VmRequest, deps: LavaVmDeps): Promise<VmResult> {
  const onEvent = (e: SiteEvent) => (e.kind === 'devices' ? deps.onDevices?.(e.devices, e.parallel) : deps.onLavaProgress?.(e.progress));
  return runVmAt({ kind: 'lava', address: deps.address, resume: deps.resume === true }, req, { ...deps, onEvent });
}
