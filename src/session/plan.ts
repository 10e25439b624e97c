/**
 * What a session on a box does, as stored with it: the kernels (each image
 * with its sha256 and the release and build its header names), the boot
 * order, the bench plan run after every boot, and how to boot. A resumed
 * session runs this plan, never the command line it was resumed with; its
 * kernels must still be the same files (checked by sha256).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { UserError } from '../errors.ts';
import { kernelIdentity } from '../targets/bzimage.ts';
import type { HomeKernel } from '../targets/ssh-box.ts';
import type { NewStep } from '../store/sessions.ts';

export const PLAN_VERSION = 1;

export interface SessionKernel {
  label: string;
  /** Absolute path of the image on this machine. */
  image: string;
  sha256: string;
  /** `uname -r` and `uname -v` the booted kernel must show, from the image's header. */
  release: string;
  version: string;
  /** A local initrd copied to the box, or null (the box's /boot/initrd.img-<release> if it has one). */
  initrd: string | null;
  initrdSha256: string | null;
}

export interface BenchPlan {
  profiles: string[];
  ops: number | null;
  warmups: number;
  rounds: number;
  processes: number;
  cpu: number | null;
}

export interface SessionPlan {
  version: typeof PLAN_VERSION;
  target: string;
  kernels: SessionKernel[];
  /** Kernel labels in boot order. */
  order: string[];
  bench: BenchPlan;
  /** Run labels are `<prefix><kernel label>-<boot index>`; default `s<session id>-`. */
  labelPrefix: string | null;
  /** Added to every test kernel's command line. */
  append: string | null;
  bootTimeoutSeconds: number;
  watchdogSeconds: number;
  /** On failure or Ctrl-C, leave the box on the kernel it runs (its watchdog cancelled). */
  keepOnFailure: boolean;
}

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A kernel of the plan from its image (and initrd): what the boot must show, read from the image's header. */
export function sessionKernel(label: string, image: string, initrd: string | null): SessionKernel {
  const id = kernelIdentity(image);
  if (!id) throw new UserError(`--kernel ${label}: ${image} has no version string in its boot header, so hintlab could not check that the box booted it; pass a bzImage or vmlinuz`, 2);
  if (initrd !== null && !existsSync(initrd)) throw new UserError(`--initrd ${label}: ${initrd} does not exist`, 2);
  return { label, image, sha256: sha256File(image), release: id.release, version: id.version, initrd, initrdSha256: initrd === null ? null : sha256File(initrd) };
}

/** The label prefix a session's runs get. */
export function prefixOf(plan: Pick<SessionPlan, 'labelPrefix'>, id: number): string {
  return plan.labelPrefix ?? `s${id}-`;
}

/** The steps of the order, each labelled: the n-th boot of kernel A is `<prefix>A-<n>`. */
export function planSteps(plan: Pick<SessionPlan, 'order' | 'labelPrefix'>, id: number): NewStep[] {
  const seen = new Map<string, number>();
  return plan.order.map((label) => {
    const bootIndex = (seen.get(label) ?? 0) + 1;
    seen.set(label, bootIndex);
    return { kernelLabel: label, bootIndex, runLabel: `${prefixOf(plan, id)}${label}-${bootIndex}` };
  });
}

/** A stored plan, checked: written by this hintlab's format, and its kernels still the same files. */
export function readPlan(stored: unknown, id: number): SessionPlan {
  const plan = stored as Partial<SessionPlan> | null;
  if (!plan || plan.version !== PLAN_VERSION || !Array.isArray(plan.kernels) || !Array.isArray(plan.order) || !plan.bench) {
    throw new UserError(`session #${id} was stored in a plan format this hintlab does not know (version ${String(plan?.version)}); start a new session`);
  }
  for (const k of plan.kernels) {
    const changed = (path: string, sha: string) => !existsSync(path) || sha256File(path) !== sha;
    if (changed(k.image, k.sha256)) throw new UserError(`session #${id}: kernel ${k.label}'s image ${k.image} is gone or changed since the session started (sha256 ${k.sha256.slice(0, 16)}...); a resumed session boots the same kernels: put it back, or start a new session`);
    if (k.initrd !== null && k.initrdSha256 !== null && changed(k.initrd, k.initrdSha256)) throw new UserError(`session #${id}: kernel ${k.label}'s initrd ${k.initrd} is gone or changed since the session started; put it back, or start a new session`);
  }
  return plan as SessionPlan;
}

/** A stored home kernel, or null when the session never got to record it. */
export function readHome(stored: unknown): HomeKernel | null {
  const h = stored as Partial<HomeKernel> | null;
  if (!h || typeof h.release !== 'string' || typeof h.cmdline !== 'string' || typeof h.bootId !== 'string') return null;
  return { release: h.release, version: h.version ?? '', cmdline: h.cmdline, bootId: h.bootId, hostname: h.hostname ?? '', bootImage: h.bootImage ?? null, bootInitrd: h.bootInitrd ?? null };
}
