/**
 * A qemu guest as a target: every run is one boot of the guest's kernel
 * with the job as /init. The initramfs (src/launch/initramfs.ts) holds the
 * static probe, the job's arguments and its files; it is kept under its
 * content hash, so there is no temporary file to clean up and the qemu
 * command line in an error message can be run again by hand. The serial
 * console is the job's output; files come back over it through the probe's
 * `--dump-files` transfer, which the session reads, so `collect` is not
 * used here.
 *
 * qemu itself is started by a `VmLauncher` (src/launch/qemu.ts: under the
 * process supervisor, timeout, abort, poweroff grace); tests give a scripted
 * one. One KVM trial boot (`kvmTrial`) serves vm, vm --macro and hints
 * collect.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type ProbeBuild } from '../launch/probe-build.ts';
import { defaultCacheDir } from '../proc/native.ts';
import { parseLine } from '../launch/probe-protocol.ts';
import { shellLine } from '../shell.ts';
import { writeAtomically } from '../write-file.ts';
import { probeInitramfs, type CpioEntry } from '../launch/initramfs.ts';
import { BASE_APPEND, qemuCommand, type VmLauncher } from '../launch/qemu.ts';
import type { Accel } from '../environment/record.ts';
import { parentDirs } from '../launch/stress-ng-image.ts';
import type { Target, TargetExit, TargetJob } from './target.ts';

/** What a guest boots, and on which qemu. */
export interface GuestSpec {
  /** For messages: the kernel's label (A, B) or what it is (`coverage kernel`). */
  label: string;
  /** bzImage or vmlinuz on this machine. */
  image: string;
  accel: Accel;
  icount: boolean;
  cpus: number;
  memoryMiB: number;
  /** Kernel command line (default BASE_APPEND). */
  append?: string;
  /** qemu's `-plugin` argument (the cost plugin), or none. */
  plugin?: string;
}

export interface GuestOptions {
  /** The static probe build, the guest's /init. */
  probe: Pick<ProbeBuild, 'path'>;
  launcher: VmLauncher;
  /** Where initramfs images are kept (default: next to the probe cache). */
  cacheDir?: string;
}

/** A boot that hangs is killed after this long unless the job says otherwise. */
const DEFAULT_TIMEOUT_S = 600;

/** Why a boot's output is not data, in the words a user needs, with the evidence to debug it. */
export function describeBootFailure(what: string, boot: { consoleTail: string[]; stderrTail: string[] }, argv: string[]): string {
  const panic = boot.consoleTail.find((l) => /Kernel panic|BUG:|Oops/.test(l));
  const lines = [
    panic ? `${what}; the kernel reported: ${panic.trim()}` : what,
    'last console lines:',
    ...(boot.consoleTail.length ? boot.consoleTail.slice(-12).map((l) => `  | ${l}`) : ['  (the guest printed nothing)']),
  ];
  if (boot.stderrTail.length) lines.push('qemu said:', ...boot.stderrTail.slice(-5).map((l) => `  | ${l}`));
  lines.push(`qemu command: ${shellLine(argv)}`);
  return lines.join('\n');
}

/** The console tail without the base64 chunk lines of a file transfer, which say nothing to a reader. */
export function readableTail(tail: string[]): string[] {
  const kept = tail.filter((l) => !l.includes('@hl1 chunk '));
  const hidden = tail.length - kept.length;
  return hidden ? [...kept, `(${hidden} file transfer chunk lines not shown)`] : kept;
}

/**
 * The initramfs for these probe arguments and extra members, kept under its
 * content hash: no temporary file to clean up, and the qemu command line in
 * an error message stays runnable by hand afterwards.
 */
export function initramfsFile(probe: Pick<ProbeBuild, 'path'>, args: string[], cacheDir = join(dirname(defaultCacheDir()), 'initramfs'), extra: CpioEntry[] = []): string {
  const image = probeInitramfs(readFileSync(probe.path), args, extra);
  const path = join(cacheDir, `${createHash('sha256').update(image).digest('hex').slice(0, 16)}.cpio.gz`);
  if (!existsSync(path)) {
    mkdirSync(cacheDir, { recursive: true });
    writeAtomically(path, image);
  }
  return path;
}

/** The job's files as archive members, with the directories above them; /sys for the probe to mount sysfs on. */
export function jobEntries(job: TargetJob): CpioEntry[] {
  const files = (job.files ?? []).map((f): CpioEntry => ({ kind: 'file', path: f.path.replace(/^\/+/, ''), data: f.data, mode: f.mode }));
  const dirs = parentDirs(files.map((f) => `/${f.path}`)).filter((d) => d !== 'sys');
  return [{ kind: 'dir', path: 'sys' }, ...dirs.map((d): CpioEntry => ({ kind: 'dir', path: d })), ...files];
}

/** Images already built, by job and by probe and cache directory. */
const images = new WeakMap<TargetJob, Map<string, string>>();

/** The qemu command line a job boots with. */
export function guestArgv(spec: GuestSpec, opts: GuestOptions, job: TargetJob): string[] {
  if (job.program !== 'probe') throw new Error(`a qemu guest runs the probe as /init, not ${job.program.path}; give the program to the probe (--exec, --run-plan)`);
  // the same job boots several times (A, B, A): build its image once (stress-ng's is ~25 MB to gzip)
  const key = `${opts.probe.path}\0${opts.cacheDir ?? ''}`;
  const known = images.get(job)?.get(key);
  const initrd = known && existsSync(known) ? known : initramfsFile(opts.probe, job.args, opts.cacheDir, jobEntries(job));
  images.set(job, (images.get(job) ?? new Map<string, string>()).set(key, initrd));
  return qemuCommand({ kernel: spec.image, initrd, accel: spec.accel, icount: spec.icount, cpus: spec.cpus, memoryMiB: spec.memoryMiB, append: spec.append ?? BASE_APPEND, plugin: spec.plugin });
}

/** The guest `spec` on `opts.launcher`: each run is one boot. */
export function guestTarget(spec: GuestSpec, opts: GuestOptions): Target {
  return {
    kind: 'guest',
    name: `qemu guest (kernel ${spec.label}, ${spec.accel}${spec.icount ? ' with icount' : ''})`,
    async run(job, onLine, abort): Promise<TargetExit> {
      const argv = guestArgv(spec, opts, job);
      const boot = await opts.launcher.boot({ argv, timeoutSeconds: job.timeoutSeconds ?? DEFAULT_TIMEOUT_S, abort, onLine });
      return {
        end: boot.end,
        outputTail: boot.consoleTail,
        stderrTail: boot.stderrTail,
        elapsedMs: boot.elapsedMs,
        collected: new Map(),
        describe: (what) => describeBootFailure(what, { consoleTail: readableTail(boot.consoleTail), stderrTail: boot.stderrTail }, argv),
        command: argv,
      };
    },
    async close() {},
  };
}

/** Memory of the trial boot's guest. */
const TRIAL_MEMORY_MIB = 256;
const TRIAL_TIMEOUT_S = 20;

/** Boot `image` once under KVM with the probe's `--list`: null when KVM works, else why not. */
export async function kvmTrial(image: string, opts: GuestOptions, abort: AbortSignal): Promise<string | null> {
  const target = guestTarget({ label: 'trial', image, accel: 'kvm', icount: false, cpus: 1, memoryMiB: TRIAL_MEMORY_MIB }, opts);
  let profiles = 0;
  const exit = await target.run({ program: 'probe', args: ['--list'], timeoutSeconds: TRIAL_TIMEOUT_S }, (l) => {
    const p = parseLine(l);
    if (p.kind === 'event' && p.event.type === 'profile') profiles++;
  }, abort);
  const end = exit.end;
  if (end.kind === 'exited' && end.code === 0 && profiles > 0) return null;
  if (end.kind === 'timeout') return `no probe output within ${TRIAL_TIMEOUT_S} s; last console line: ${exit.outputTail.at(-1) ?? '(none)'}`;
  if (end.kind === 'aborted') return 'interrupted';
  if (end.kind === 'lost') return end.reason;
  return `qemu exited with ${end.code ?? end.signal} after ${profiles} probe lines; ${exit.stderrTail.at(-1) ?? exit.outputTail.at(-1) ?? ''}`.trim();
}
