/**
 * A place that boots kernels, one boot per run of a Target: qemu on this
 * machine (./guest-site.ts), a LAVA lab (./lava/site.ts), a fake that
 * answers the probe without booting (./fake-guest.ts). The boot scheduler
 * (src/vm/runner.ts) knows only this contract and the Target's; the factory
 * (./factory.ts) opens the site a place names.
 *
 * Invariant: after `close`, nothing the site opened (a file server, the
 * guard of submitted jobs) is left running.
 */
import type { ProbeBuild } from '../launch/probe-build.ts';
import type { VmLauncher } from '../launch/qemu.ts';
import type { Accel } from '../environment/record.ts';
import type { GuestSpec } from './guest.ts';
import type { LavaProgress } from './lava/target.ts';
import type { Target, TargetExit } from './target.ts';

/**
 * How the site's boots are accelerated: `decided` by the site (a lab's
 * devices, a fake), or chosen by a `trial` boot under KVM of a kernel
 * (qemu here: resolves to null when KVM ran the probe, else why not).
 */
export type SiteAccel = { kind: 'decided'; accel: Accel; why: string } | { kind: 'trial'; trial(image: string, abort: AbortSignal): Promise<string | null> };

/** What a site says while it is opened and used, for the command to show. */
export type SiteEvent =
  /** A lab's usable devices, and how many boots run at once on them. */
  | { kind: 'devices'; devices: string[]; parallel: number }
  /** Where a LAVA job stands. */
  | { kind: 'lava-job'; progress: LavaProgress };

/** What opening a site needs; each site reads the parts it uses. */
export interface SiteContext {
  /** The static probe, the guests' /init. */
  probe: ProbeBuild;
  /** Where initramfs images are kept (default: next to the probe cache). */
  cacheDir?: string;
  /** qemu's launcher for boots on this machine (default: qemu under the process supervisor). */
  launcher?: VmLauncher;
  /** Whether the boots count instructions (`-icount`): a lab then runs two at once where it can. */
  icount: boolean;
  /** Run labels' prefix (`vm-`), for the names a lab shows its jobs by. */
  labelPrefix: string;
  /** Between two looks at a lab's job (default 2 s). */
  pollMs?: number;
  onEvent?: (event: SiteEvent) => void;
}

export interface BootSite {
  /** For messages: `qemu on this machine`, `lava://lab/qemu`. */
  readonly name: string;
  readonly accel: SiteAccel;
  /** The kernel command line the boots run with, as stored with each run. */
  readonly append: string;
  /** Boots at once: 2 runs consecutive boots of an order in pairs. */
  readonly parallel: number;
  /**
   * Aborted when the site cannot go on (a LAVA submission whose job is
   * unknown: another would only add an unknown job); `problem` says why.
   */
  readonly stopped: AbortSignal;
  /** Why the site stopped the boots, to raise once they are over; null when it did not. */
  problem(): Error | null;
  /** The target that boots `spec`, one run per boot. */
  target(spec: GuestSpec): Target;
  /** What a run stores of its boots here beyond the guest's own facts (a lab: its jobs), from their exits in boot order; null: nothing. */
  environmentOf(exits: readonly TargetExit[]): Record<string, unknown> | null;
  close(): Promise<void>;
}

/** A site's `stopped` and `problem` for a site that never stops on its own. */
export function neverStops(): Pick<BootSite, 'stopped' | 'problem'> {
  return { stopped: new AbortController().signal, problem: () => null };
}

/**
 * A kind of boot site as the factory's table lists it (./factory.ts): its
 * `--target` address, the words messages name it by, and how it is opened.
 */
export interface SiteKind<A extends { name: string }> {
  /** The scheme of its `--target` addresses. */
  scheme: RegExp;
  /** In messages: `a LAVA lab`. */
  words: string;
  /** Whether `vm --resume` can continue an order there (its runs record what it needs). */
  resumes: boolean;
  /** The `--target` address, checked (a UserError naming the flag otherwise). */
  parse(value: string, env: NodeJS.ProcessEnv): A;
  /** Why hintlab cannot boot there, from the address alone; null when it can. */
  problem(address: A): string | null;
  open(address: A, ctx: SiteContext): Promise<BootSite>;
}
