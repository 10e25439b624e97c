/**
 * qemu on this machine as a boot site: each boot is a qemu guest
 * (./guest.ts), the accelerator chosen by one trial boot under KVM.
 */
import { BASE_APPEND, qemuLauncher } from '../launch/qemu.ts';
import { guestTarget, kvmTrial, type GuestOptions } from './guest.ts';
import { neverStops, type BootSite, type SiteContext } from './site.ts';

/** The qemu guests of this machine; nothing to open or close. */
export function openGuestSite(ctx: SiteContext): Promise<BootSite> {
  const opts: GuestOptions = { probe: ctx.probe, launcher: ctx.launcher ?? qemuLauncher(), cacheDir: ctx.cacheDir };
  return Promise.resolve({
    name: 'qemu on this machine',
    accel: { kind: 'trial', trial: (image, abort) => kvmTrial(image, opts, abort) },
    append: BASE_APPEND,
    parallel: 1,
    ...neverStops(),
    target: (spec) => guestTarget(spec, opts),
    environmentOf: () => null,
    close: () => Promise.resolve(),
  });
}
