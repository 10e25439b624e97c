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
import { guestTarget, kvmTrial, type GuestOptions } from '../../targets/guest.ts';
import type { TargetExit, TargetJob } from '../../targets/target.ts';
import { chooseAccel, type AccelChoice, type AccelRequest } from '../../vm/accel.ts';
import type { VmLauncher } from '../../launch/qemu.ts';
import type { CounterKind } from './kernel.ts';
import { CoverageSession } from './session.ts';
import { GUEST_STRESS_PLAN, stressNgJobFiles, type StressNgWorkload } from './stress-ng.ts';
import type { ReceivedFile } from './transfer.ts';

/** Where the guest's kernel exposes gcov data (mounted by the probe). */
export const GUEST_GCOV_DIR = '/sys/kernel/debug/gcov';
/** Where a branch profiler kernel exposes branch_all and branch_annotated (tracefs, automounted under debugfs). */
export const GUEST_TRACE_STAT_DIR = '/sys/kernel/debug/tracing/trace_stat';
const GUEST_PROGRAM = '/workload';
const MEMORY_MIB = 512;
const CPUS = 2;

/** What runs in the guest between the counter reset and the dump. */
export type GuestWorkload =
  | { kind: 'profiles'; profiles: { name: string; ops: number }[]; rounds: number }
  | { kind: 'program'; path: string; data: Buffer }
  | StressNgWorkload;

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
  /** Where initramfs images are kept (default: next to the probe cache). */
  cacheDir?: string;
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
 * so its counts include the boot. The exact counter's guest has one CPU
 * (icount) and nothing to dump: the cost plugin counts inside the probe's
 * windows, one per profile round, or one around each program it starts
 * (`--window-exec`).
 */
export function guestArgs(w: GuestWorkload, counter: CounterKind = 'gcov'): string[] {
  const exact = counter === 'exact';
  const run =
    w.kind === 'profiles'
      ? ['--cpu', '0', ...(exact ? [] : ['--other-cpu', '1']), '--warmups', '0', '--rounds', String(w.rounds), ...w.profiles.flatMap((p) => ['--profile', `${p.name}:${p.ops}`])]
      : w.kind === 'program'
        ? ['--exec', GUEST_PROGRAM]
        : ['--run-plan', GUEST_STRESS_PLAN];
  if (exact) return w.kind === 'profiles' ? run : [...run, '--window-exec'];
  return counter === 'gcov' ? [...run, '--reset-gcov', '--dump-gcov', GUEST_GCOV_DIR] : [...run, '--dump-files', GUEST_TRACE_STAT_DIR];
}

/** The guest's job: the probe as /init with the workload's arguments, and the program (or stress-ng and its plan) beside it. */
export function coverageJob(w: GuestWorkload, counter: CounterKind, timeoutSeconds: number): TargetJob {
  const files = w.kind === 'program' ? [{ path: GUEST_PROGRAM.slice(1), data: w.data, mode: 0o755 }] : w.kind === 'stress-ng' ? stressNgJobFiles(w) : [];
  return { program: 'probe', args: guestArgs(w, counter), files, timeoutSeconds };
}

function describeEnd(session: CoverageSession, exit: TargetExit): string | null {
  const end = exit.end;
  if (end.kind === 'aborted') return exit.describe('interrupted (Ctrl-C): qemu was killed');
  if (end.kind === 'timeout') {
    const stage = session.receiver.started ? 'during the .gcda transfer' : session.done ? 'before the .gcda transfer' : 'before the workload finished';
    return exit.describe(`no complete result within ${end.seconds} s (--timeout), ${stage}; qemu was killed`);
  }
  const problem = session.problem();
  return problem ? exit.describe(problem) : null;
}

/** Boot, run the workload, receive the .gcda files. The image is cached by content like every guest's. */
export async function runCoverageGuest(req: GuestRequest, deps: GuestDeps): Promise<GuestResult> {
  const opts: GuestOptions = { probe: { path: req.probeBinary }, launcher: deps.launcher, cacheDir: deps.cacheDir };
  const accel = await (deps.chooseAccel ?? chooseAccel)(req.accel, false, () => kvmTrial(req.kernelImage, opts, deps.abort));
  deps.onAccel?.(accel);
  const target = guestTarget({ label: 'coverage kernel', image: req.kernelImage, accel: accel.accel, icount: false, cpus: CPUS, memoryMiB: MEMORY_MIB }, opts);
  const session = new CoverageSession(deps.onTransfer, req.workload.kind === 'stress-ng' ? req.workload.stressors : undefined);
  const exit = await target.run(coverageJob(req.workload, req.counter ?? 'gcov', req.timeoutSeconds), (l) => session.feed(l), deps.abort);
  const problem = describeEnd(session, exit);
  const transfer = session.receiver.outcome();
  if (problem || transfer.state !== 'complete' || !session.hello) return { state: 'failed', reason: problem ?? 'the .gcda transfer is incomplete' };
  const transferSeconds = ((session.dumpedAtMs ?? 0) - (session.doneAtMs ?? 0)) / 1000;
  return { state: 'complete', files: transfer.files, bytes: transfer.bytes, kernel: session.hello.kernel, rounds: session.rounds, bootSeconds: exit.elapsedMs / 1000, transferSeconds, rejoinedLines: session.rejoined, accel };
}
