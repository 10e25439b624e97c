/**
 * The one factory of boot sites: a place (./place.ts) that boots kernels
 * becomes the BootSite the scheduler runs on. qemu on this machine is the
 * place without `--target`; every `--target` kind is one line of SITES.
 * Adding a target is three files: the target with its SiteKind, its
 * address, and its line here.
 */
import type { Accel } from '../environment/record.ts';
import { FAKE_SITE } from './fake-guest.ts';
import { openGuestSite } from './guest-site.ts';
import { LAVA_SITE } from './lava/site.ts';
import type { BootSite, SiteContext, SiteKind } from './site.ts';

/** Every `--target` a boot order can run on; the first is the form a message offers for an address of no known scheme. */
export const SITES = {
  lava: LAVA_SITE,
  fake: FAKE_SITE,
};

type Sites = typeof SITES;
/** The address type of a kind of site. */
type AddressOf<K extends keyof Sites> = Sites[K] extends SiteKind<infer A> ? A : never;

/** A boot order on a `--target` site; `resume`: boot only what the same order has not stored complete. */
export type SitePlace = { [K in keyof Sites]: { kind: K; address: AddressOf<K>; resume: boolean } }[keyof Sites];

/** A boot order in qemu on this machine. `cost`: `--cost` with its model's text ('' for the default model), or null. */
export interface QemuPlace {
  kind: 'qemu';
  /** `--accel` (vm/accel.ts's AccelRequest). */
  accel: 'auto' | Accel;
  cost: { model: string } | null;
}

/** Where kernels are booted. */
export type BootPlace = QemuPlace | SitePlace;

/** The table's row of a kind of site. */
export function siteKind(kind: SitePlace['kind']): SiteKind<SitePlace['address']> {
  return SITES[kind];
}

/** Open the site `place` names; the caller closes it. */
export function openBootSite(place: BootPlace, ctx: SiteContext): Promise<BootSite> {
  if (place.kind === 'qemu') return openGuestSite(ctx);
  return siteKind(place.kind).open(place.address, ctx);
}
