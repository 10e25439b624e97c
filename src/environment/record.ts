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
  /** Seconds from qemu's start to its end, added when the boot is over (one per boot of a pooled run). */
  bootSeconds?: number | number[];
}

/** One LAVA job that booted a run (vm --target lava://). */
export interface LavaJobFacts {
  jobId: number;
  url: string;
  /** The device the lab chose, once it had one. */
  device: string | null;
  /** LAVA's health of the job: Complete, Incomplete, Canceled. */
  health: string;
  /** The qemu command line the lab ran, when its log said. */
  qemu: string | null;
  /** sha256 of the kernel image the job was given, what `vm --resume` tells a rebuilt bzImage by (absent in runs stored before it was kept). */
  kernelSha256?: string;
}

/** The LAVA lab a vm run booted on, without its token, and its jobs. */
export interface LavaFacts {
  server: string;
  deviceType: string;
  jobs: LavaJobFacts[];
}

/** How a box booted the kernel of a session step (src/targets/target.ts BootReport), as the step's run stores it. */
export interface BootFacts {
  method: 'kexec' | 'grub-reboot' | 'reboot';
  /** What made the box go down (`kexec -e`, `systemctl kexec`, `reboot`). */
  command: string;
  /** kexec's words when it was refused and the one-shot reboot used instead. */
  fellBack: string | null;
  /** What the box runs now, as it says. */
  release: string;
  cmdline: string;
  bootId: string;
  /** Copying the image and initrd (0 when the copies there were current). */
  copyMs: number;
  /** From the boot command to ssh answering on the new boot. */
  waitedMs: number;
  /** When hintlab first saw the box down, or null if it never caught it down. */
  downAfterMs: number | null;
  attempts: number;
  /** The bound of the box's watchdog armed for this boot, or null (the box is on its own kernel). */
  watchdogSeconds: number | null;
}

/** The session step (`hintlab session`) a run on a box measured. */
export interface SessionFacts {
  id: number;
  /** 1-based, of `steps`. */
  step: number;
  steps: number;
  kernelLabel: string;
  bootIndex: number;
  boot: BootFacts;
}

/**
 * The cost model of a `vm --cost` run: the model, the plugin and qemu that
 * counted, the System.map its blocks were attributed with, and per boot the
 * functions each subject's calls ran (unknown without a System.map).
 */
export interface CostFacts<F extends object = StoredFunctionCost> {
  model: string;
  plugin: string;
  qemu: string;
  systemMap: string | null;
  /** Per boot: subject -> functions with their per-call counts (written as src/vm/cost-functions.ts FunctionCost). */
  functions: Known<Record<string, F[]>>[];
  /** Per boot: each subject's conditional jumps per call, placed at source lines (written as src/vm/branch-counts.ts BootBranches; absent in runs stored before per-branch counts). */
  branches?: unknown[];
}

/** A function's per-call counts as a `vm --cost` run stores them. */
export interface StoredFunctionCost {
  name: string;
  addr: string;
  size: number;
  perCall: Record<string, number>;
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
  /** vm --target lava://: the lab and the jobs that booted the run. */
  lava?: LavaFacts;
  /** vm --cost: the cost model and the functions per boot. */
  cost?: CostFacts;
}

/** A run on a remote box over ssh: every machine field was read there. */
export interface RemoteEnvironment extends MachineFacts {
  where: 'remote';
  remote: RemoteFacts;
  /** hintlab session: the step this run measured and how the box booted for it. */
  session?: SessionFacts;
}

export type RunEnvironment = HostEnvironment | GuestEnvironment | RemoteEnvironment;

/**
 * What may be merged into a stored environment after the run started (the
 * store's updateEnvironment): the load and warnings at the end, the guest's
 * kernel once it said hello, the boot's seconds, stress-ng's unclassified
 * metrics, a LAVA job, the cost model, a session step.
 */
export type EnvironmentPatch = Partial<Pick<MachineFacts, 'load' | 'warnings' | 'kernel' | 'stressNg'>> & {
  /** bench: B's known work as it ran, where turns recalibrated it (src/bench/paired.ts). */
  injectWork?: string | null;
  vm?: VmFacts;
  lava?: LavaFacts;
  cost?: CostFacts<object>;
  session?: SessionFacts;
};
