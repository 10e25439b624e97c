/**
 * Which accelerator a VM session uses. KVM only when asked for, or when
 * `auto` and a trial boot under KVM really printed the probe's output (on
 * hosts with /dev/kvm but broken nested virtualization the guest hangs);
 * otherwise TCG. The choice always comes with its reason.
 */
import { accessSync, constants } from 'node:fs';
import { UserError } from '../errors.ts';
import type { Accel } from '../environment/record.ts';

export type AccelRequest = 'auto' | Accel;

export interface AccelChoice {
  accel: Accel;
  why: string;
}

/** The trial boot: resolves to null when KVM worked, or what went wrong. */
export type KvmTrial = () => Promise<string | null>;

/** null when /dev/kvm can be opened read-write, else why not. */
export function kvmDeviceProblem(device = '/dev/kvm'): string | null {
  try {
    accessSync(device, constants.R_OK | constants.W_OK);
    return null;
  } catch (err) {
    return `${device}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
}

export async function chooseAccel(
  requested: AccelRequest,
  icount: boolean,
  trial: KvmTrial,
  deviceProblem: () => string | null = kvmDeviceProblem,
): Promise<AccelChoice> {
  if (requested === 'tcg') return { accel: 'tcg', why: 'requested with --accel tcg' };
  if (icount) {
    if (requested === 'kvm') {
      throw new UserError('--icount counts instructions by emulating them, so it needs TCG: use --accel tcg (or auto) with --icount, or drop --icount for KVM timings', 2);
    }
    return { accel: 'tcg', why: '--icount needs TCG (qemu counts instructions only when it emulates them)' };
  }
  const problem = deviceProblem();
  if (requested === 'kvm') {
    if (problem) throw new UserError(`--accel kvm: ${problem}; load the kvm module and give this user access to /dev/kvm, or use --accel tcg`, 2);
    return { accel: 'kvm', why: 'requested with --accel kvm' };
  }
  if (problem) return { accel: 'tcg', why: `KVM is not available (${problem})` };
  const failure = await trial();
  if (failure === null) return { accel: 'kvm', why: 'a trial boot under KVM ran the probe' };
  return { accel: 'tcg', why: `a trial boot under KVM failed (${failure}); nested virtualization may not work on this host` };
}
