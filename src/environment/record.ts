/**
 * The environment record stored with every run, typed: where the run
 * happened (`where`: this host, a qemu guest, a remote box over ssh) and what
 * was read there. Every machine value is a Known<T>: read, or unknown with
 * the reason, never guessed. Bottom floor: imports only the model.
 *
 * Format history (stored as JSON in runs.env_json, never rewritten):
 * - schema 1 without `where`: every run before the tag. Read back as a
 *   guest when the run is a VM run (kind 'vm', or a `vm` part: vm --macro),
 *   else as the host (see ./read.ts).
 * - schema 1 with `where`: the tag below.
 */
import type { Known } from '../model.ts';

/** Where a run happened. */
export type Where = 'host' | 'guest' | 'remote';

export type WarningKind = 'turbo-on' | 'governor' | 'virtualized' | 'load' | 'smt' | 'not-isolated';

export interface EnvWarning {
  kind: WarningKind;
  message: string;
}

export type LoadAvg = [number, number, number];

/** The probe build that ran (the fields of launch/probe-build.ts ProbeBuild worth storing). */
export interface ProbeFacts {
  buildId: string;
  compiler: string;
  compilerVersion: string;
  flags: string[];
  static: boolean;
}

export interface KernelFacts {
  release: Known<string>;
  version: Known<string>;
  cmdline: Known<string>;
  preemption: Known<string>;
  configHash: Known<string>;
  /** The compiler that built the running kernel, from /proc/version (absent in records before it was read). */
  compiler: Known<string>;
}

export interface CpuFacts {
  model: Known<string>;
  microcode: Known<string>;
  online: Known<string>;
  allowed: Known<string>;
  smt: Known<string>;
  governor: Known<string>;
  boost: Known<string>;
}

/** stress-ng's version (macro and vm --macro runs) and the metrics hintlab could not classify. */
export interface StressNgFacts {
  version: string;
  binary?: string;
  unclassifiedMetrics?: string[];
}

/** What every record holds, wherever the run happened. */
export interface MachineFacts {
  schema: 1;
  hostname: Known<string>;
  kernel: KernelFacts;
  cpu: CpuFacts;
  isolation: { isolcpus: Known<string>; nohzFull: Known<string> };
  vulnerabilities: Known<Record<string, string>>;
  virtualization: Known<string>;
  load: { start: Known<LoadAvg>; end?: Known<LoadAvg> };
  /** Absent in stress-ng runs (no probe ran). */
  probe?: ProbeFacts;
  pinnedCpu: number | null;
  injectSeccomp: number | null;
  /** `bench --label-b`: the files written for this side, `PATH=VALUE ...`, or null. */
  switchFiles?: string | null;
  stressNg?: StressNgFacts;
  warnings: EnvWarning[];
}

/** A qemu accelerator. */
export type Accel = 'kvm' | 'tcg';

/** Which kernel a VM run booted, how, and whether the clock counted instructions. */
export interface VmFacts {
  kernelLabel: string;
  kernelPath: string;
  bootIndex: number;
  accel: Accel;
  icount: boolean;
  /** CPUs qemu gave the guest (-smp); absent in runs stored before it was recorded. */
  guestCpus?: number;
  /** Seconds from qemu's start to its end, added when the boot is over. */
  bootSeconds?: number;
}

/** A remote box reached over ssh: the name it gave and how hintlab reached it. */
export interface RemoteFacts {
  /** The box's own hostname (`hostname` run there). */
  hostname: string;
  /** How it was reached: `ssh://user@box:22`. */
  url: string;
}

/** A run on this machine. */
export interface HostEnvironment extends MachineFacts {
  where: 'host';
}

/**
 * A run in a qemu guest: `kernel`, `virtualization`, `pinnedCpu`, `probe`,
 * `injectSeccomp`, `stressNg` and `vm` describe the guest; every other field
 * was read on the host that ran qemu (see guestSide in ./guest.ts).
 */
export interface GuestEnvironment extends MachineFacts {
  where: 'guest';
  vm: VmFacts;
}

/** A run on a remote box over ssh: every machine field was read there. */
export interface RemoteEnvironment extends MachineFacts {
  where: 'remote';
  remote: RemoteFacts;
}

export type RunEnvironment = HostEnvironment | GuestEnvironment | RemoteEnvironment;
