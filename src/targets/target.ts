/**
 * Where a run happens, kept apart from what it measures. A Target runs one
 * program (the probe, stress-ng, a workload) with arguments and files,
 * streams its stdout (or serial console) back line by line, and says how it
 * ended. What the lines mean (rounds, .gcda files, stress-ng YAML) is the
 * business of the session that reads them, never of the target.
 *
 * Implementations: the local host (./host.ts), a qemu guest (./guest.ts:
 * every run is one boot of the guest's kernel, the job as /init), a machine
 * over ssh (./ssh.ts), a LAVA lab (./lava/target.ts: every run is one LAVA
 * job). Targets that boot kernels come from boot sites (./site.ts), which
 * the factory (./factory.ts) opens from the place the flags name
 * (./place.ts).
 *
 * Invariant: when `run` returns, nothing the job started is still running
 * where it ran (host process group, qemu, the remote process), whatever the
 * end: exit, timeout, abort or a lost connection.
 */

/** A file the job reads, placed under its working directory (host temp dir, guest root, remote temp dir). */
export interface TargetFile {
  /** Relative path, e.g. `hintlab.plan`. */
  path: string;
  data: Buffer;
  mode?: number;
}

export interface TargetJob {
  /**
   * `probe`: hintlab's probe, in the build the target needs (host: the
   * dynamic build; guest and remote: the static build). Otherwise the
   * absolute path of a program that exists where the job runs.
   */
  program: 'probe' | { path: string };
  args: string[];
  files?: TargetFile[];
  /** Paths the job writes that come back after it ends (relative to its working directory, or absolute on the target). */
  collect?: string[];
  /** Kill the job after this long; the end is then `timeout`. */
  timeoutSeconds?: number;
}

/**
 * How a job ended. `timeout`: it ran past `timeoutSeconds` and was stopped.
 * `aborted`: the target had to kill it on abort; a job that was asked to
 * stop (SIGINT on the host) and exited by itself reports its own `exited`
 * status, so what it said while stopping (the probe's `interrupted` line)
 * decides the outcome. A qemu guest is killed at once, so it always reports
 * `aborted`.
 */
export type TargetEnd =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'timeout'; seconds: number }
  | { kind: 'aborted' }
  /** The target went away under the job: qemu died, the ssh connection dropped. */
  | { kind: 'lost'; reason: string };

export interface TargetExit {
  end: TargetEnd;
  /** The last lines of the job's output (the console of a guest), escape sequences removed. */
  outputTail: string[];
  /** The last lines of stderr (of the probe, of qemu, of ssh). */
  stderrTail: string[];
  elapsedMs: number;
  /** Files named in `collect` that came back, by the path as given. */
  collected: Map<string, Buffer>;
  /**
   * `what` with the evidence a user needs to debug it: the last lines, what
   * the target's own tool said, and the command line to run it again by hand.
   */
  describe(what: string): string;
  /**
   * The command line that ran the job (qemu's, ssh's, the program's), for a
   * message whose evidence is elsewhere (stress-ng's own log) and needs only
   * the way to run it again. Optional: a target that has none leaves it out.
   */
  command?: string[];
}

import type { SysReader } from '../environment/reader.ts';
import type { BootFacts, HostEnvironment, RemoteEnvironment } from '../environment/record.ts';

/** Where the job ran, as stored in a run's environment record. */
export type TargetKind = 'host' | 'guest' | 'remote';

export interface Target {
  readonly kind: TargetKind;
  /** For messages: `this machine`, `qemu guest (kernel A, tcg)`, `ssh://lab@box1`. */
  readonly name: string;
  run(job: TargetJob, onLine: (line: string) => void, abort: AbortSignal): Promise<TargetExit>;
  /**
   * The machine's /proc and /sys as the environment recorder reads them
   * (host: the files; remote: fetched in one round trip). A guest has none
   * before it boots: its facts come from the probe's hello line.
   */
  reader?(): Promise<SysReader>;
  /** End what the target holds open (an ssh master connection, temp files). Idempotent. */
  close(): Promise<void>;
}

/**
 * The environment read for a run on `target`, tagged with where it ran: a
 * run on a box over ssh carries the box's hostname and address, so compare
 * never mixes it with another machine's runs unnoticed.
 */
export function placedEnvironment(env: HostEnvironment, target: Pick<Target, 'kind' | 'name'>): HostEnvironment | RemoteEnvironment {
  if (target.kind !== 'remote') return env;
  const hostname = env.hostname.known ? env.hostname.value : 'unknown';
  return { ...env, where: 'remote', remote: { hostname, url: target.name } };
}

/** A kernel a target can switch to between runs (an ssh box, by kexec or a one-shot reboot). */
export interface KernelImage {
  label: string;
  /** bzImage on this machine. */
  image: string;
  /** The release the kernel will report (`uname -r`); default: read from the image's header. */
  release?: string;
  /** An initrd on this machine to boot it with; default: the box's /boot/initrd.img-<release>, if it has one. */
  initrd?: string;
  /** Text added to the command line (the box's own, recorded at the start, without BOOT_IMAGE= and old tokens). */
  append?: string;
  /** Put on the command line as `hintlab.boot=<token>`: the boot that comes back is recognised by it. */
  token: string;
}

/** How a boot went, as stored with the step that asked for it. */
export type BootReport = BootFacts;

/**
 * A target that boots a kernel in place between runs (an ssh box). A qemu
 * guest is different: each of its runs is one boot of its own kernel.
 */
export interface BootableTarget extends Target {
  /** Boot `kernel`; resolves once the target answers again running it (checked), rejects with what was last seen. */
  boot(kernel: KernelImage, abort: AbortSignal): Promise<BootReport>;
}
