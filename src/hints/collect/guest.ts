/**
 * One boot of a coverage kernel: an initramfs with the static probe as
 * /init (and the user's program as /workload when given). The probe sets
 * the workload up, zeroes the counters (`--reset-gcov`, so the boot does not
 * count), runs the workload and sends every .gcda back over the serial
 * console.
 *
 * Invariant: the result is `complete` only when the workload finished and
 * the .gcda transfer passed every check of `GcdaReceiver`; otherwise the
 * reason carries the console's last lines and the qemu command line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chooseAccel, type AccelChoice, type AccelRequest } from '../../vm/accel.ts';
import { cpioNewc, probeInitramfs, type CpioEntry } from '../../vm/initramfs.ts';
import { BASE_APPEND, qemuCommand, type BootResult, type VmLauncher } from '../../vm/qemu.ts';
import { describeBootFailure } from '../../target/guest.ts';
import type { CounterKind } from './kernel.ts';
import { CoverageSession } from './session.ts';
import type { ReceivedFile } from './transfer.ts';

/** Where the guest's kernel exposes gcov data (mounted by the probe). */
export const GUEST_GCOV_DIR = '/sys/kernel/debug/gcov';
/** Where a branch profiler kernel exposes branch_all and branch_annotated (tracefs, automounted under debugfs). */
export const GUEST_TRACE_STAT_DIR = '/sys/kernel/debug/tracing/trace_stat';
const GUEST_PROGRAM = '/workload';
const MEMORY_MIB = 512;
const CPUS = 2;
const TRIAL_TIMEOUT_S = 20;

/** What runs in the guest between the counter reset and the dump. */
export type GuestWorkload =
  | { kind: 'profiles'; profiles: { name: string; ops: number }[]; rounds: number }
  | { kind: 'program'; path: string; data: Buffer };

export interface GuestRequest {
  kernelImage: string;
  probeBinary: string;
  workload: GuestWorkload;
  accel: AccelRequest;
  timeoutSeconds: number;
  /** Default gcov. */
  counter?: CounterKind;
}

export interface GuestDeps {
  launcher: VmLauncher;
  abort: AbortSignal;
  /** Overrides the KVM check (tests). */
  chooseAccel?: typeof chooseAccel;
  onAccel?: (choice: AccelChoice) => void;
  /** Called at every `file` line with the number of files started so far (progress). */
  onTransfer?: (files: number) => void;
}

export type GuestResult =
  | {
      state: 'complete';
      files: ReceivedFile[];
      bytes: number;
      kernel: string;
      rounds: number;
      /** qemu start to exit. */
      bootSeconds: number;
      /** From the workload's end to the dump's closing line: the serial transfer. */
      transferSeconds: number;
      /** Probe lines the console broke in two, joined again and verified by their CRC. */
      rejoinedLines: number;
      accel: AccelChoice;
    }
  | { state: 'failed'; reason: string };

/**
 * The probe's arguments (one per line in /hintlab.args). gcov counters are
 * zeroed after the workload's preparation; the branch profiler has no reset,
 * so its counts include the boot.
 */
export function guestArgs(w: GuestWorkload, counter: CounterKind = 'gcov'): string[] {
  const run =
    w.kind === 'profiles'
      ? ['--cpu', '0', '--other-cpu', '1', '--warmups', '0', '--rounds', String(w.rounds), ...w.profiles.flatMap((p) => ['--profile', `${p.name}:${p.ops}`])]
      : ['--exec', GUEST_PROGRAM];
  return counter === 'gcov' ? [...run, '--reset-gcov', '--dump-gcov', GUEST_GCOV_DIR] : [...run, '--dump-files', GUEST_TRACE_STAT_DIR];
}

/** The gzip'd newc image: /init, its arguments, mount points for /proc and /sys, the program if any. */
export function coverageInitramfs(probe: Buffer, w: GuestWorkload, counter: CounterKind = 'gcov'): Buffer {
  const entries: CpioEntry[] = [
    { kind: 'dir', path: 'dev' },
    { kind: 'char', path: 'dev/console', major: 5, minor: 1 },
    { kind: 'dir', path: 'proc' },
    { kind: 'dir', path: 'sys' },
    { kind: 'file', path: 'hintlab.args', data: Buffer.from(guestArgs(w, counter).map((a) => `${a}\n`).join('')) },
    { kind: 'file', path: 'init', data: probe, mode: 0o755 },
  ];
  if (w.kind === 'program') entries.push({ kind: 'file', path: GUEST_PROGRAM.slice(1), data: w.data, mode: 0o755 });
  return gzipSync(cpioNewc(entries), { level: 6 });
}

/** The console tail without base64 chunk lines, which say nothing to a reader. */
function readableTail(boot: BootResult): BootResult {
  const kept = boot.consoleTail.filter((l) => !l.includes('@hl1 chunk '));
  const hidden = boot.consoleTail.length - kept.length;
  return { ...boot, consoleTail: hidden ? [...kept, `(${hidden} .gcda chunk lines not shown)`] : kept };
}

function describeEnd(session: CoverageSession, result: BootResult, argv: string[]): string | null {
  const boot = readableTail(result);
  const end = boot.end;
  if (end.kind === 'aborted') return describeBootFailure('interrupted (Ctrl-C): qemu was killed', boot, argv);
  if (end.kind === 'timeout') {
    const stage = session.receiver.started ? 'during the .gcda transfer' : session.done ? 'before the .gcda transfer' : 'before the workload finished';
    return describeBootFailure(`no complete result within ${end.seconds} s (--timeout), ${stage}; qemu was killed`, boot, argv);
  }
  const problem = session.problem();
  return problem ? describeBootFailure(problem, boot, argv) : null;
}

/** Boot the coverage kernel once under KVM with `--list`: null when KVM works. */
async function kvmTrial(req: GuestRequest, deps: GuestDeps, dir: string): Promise<string | null> {
  const initrd = join(dir, 'trial.cpio.gz');
  writeFileSync(initrd, probeInitramfs(readFileSync(req.probeBinary), ['--list']));
  const argv = qemuCommand({ kernel: req.kernelImage, initrd, accel: 'kvm', icount: false, cpus: 1, memoryMiB: MEMORY_MIB, append: BASE_APPEND });
  let listed = false;
  const boot = await deps.launcher.boot({ argv, timeoutSeconds: TRIAL_TIMEOUT_S, abort: deps.abort, onLine: (l) => (listed ||= l.includes('@hl1 profile ')) });
  if (boot.end.kind === 'exited' && listed) return null;
  return boot.end.kind === 'timeout' ? `no probe output within ${TRIAL_TIMEOUT_S} s` : `the trial boot ended without probe output (${boot.end.kind})`;
}

/** Boot, run the workload, receive the .gcda files. Temporary files are removed on every path out. */
export async function runCoverageGuest(req: GuestRequest, deps: GuestDeps): Promise<GuestResult> {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-collect-'));
  try {
    const accel = await (deps.chooseAccel ?? chooseAccel)(req.accel, false, () => kvmTrial(req, deps, dir));
    deps.onAccel?.(accel);
    const initrd = join(dir, 'initramfs.cpio.gz');
    writeFileSync(initrd, coverageInitramfs(readFileSync(req.probeBinary), req.workload, req.counter));
    const argv = qemuCommand({ kernel: req.kernelImage, initrd, accel: accel.accel, icount: false, cpus: CPUS, memoryMiB: MEMORY_MIB, append: BASE_APPEND });
    const session = new CoverageSession(deps.onTransfer);
    const boot = await deps.launcher.boot({ argv, timeoutSeconds: req.timeoutSeconds, abort: deps.abort, onLine: (l) => session.feed(l) });
    const problem = describeEnd(session, boot, argv);
    const transfer = session.receiver.outcome();
    if (problem || transfer.state !== 'complete' || !session.hello) return { state: 'failed', reason: problem ?? 'the .gcda transfer is incomplete' };
    const transferSeconds = ((session.dumpedAtMs ?? 0) - (session.doneAtMs ?? 0)) / 1000;
    return { state: 'complete', files: transfer.files, bytes: transfer.bytes, kernel: session.hello.kernel, rounds: session.rounds, bootSeconds: boot.elapsedMs / 1000, transferSeconds, rejoinedLines: session.rejoined, accel };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
