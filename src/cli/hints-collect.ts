/** `hintlab hints collect`: argument parsing and output for collecting kernel coverage in a VM. */
import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { buildProbe } from '../launch/probe-build.ts';
import { checkCollectInputs, collectCoverage, defaultBuildDir, realTree, defaultOutDir } from '../hints/collect/collect.ts';
import { checkExactInputs, collectExact, exactWorkload, type ExactKernelChoice } from '../hints/collect/exact.ts';
import { defaultExactBuildDir } from '../hints/collect/exact-kernel.ts';
import { buildCostPlugin } from '../vm/cost-plugin.ts';
import { parseProfileDirs, type CounterKind, type ProfileScope } from '../hints/collect/kernel.ts';
import { DEFAULT_STRESSOR_SECONDS, stressNgPlanSeconds } from '../hints/collect/stress-ng.ts';
import { chooseWorkload, type WorkloadChoice } from '../hints/collect/workload.ts';
import { unavailableText } from '../report/macro.ts';
import { collectSummary, guestStressNgLine } from '../report/hints-collect.ts';
import { accelLine } from '../report/vm.ts';
import type { AccelRequest } from '../vm/accel.ts';
import { qemuLauncher, requireQemu } from '../launch/qemu.ts';
import { type CliIO } from './io.ts';
import { interruptible } from './interrupt.ts';
import { UserError } from '../errors.ts';
import { intOption } from './options.ts';

interface CollectFlags {
  src: string;
  profileDirs?: string;
  workload: string;
  out?: string;
  name?: string;
  accel: string;
  timeout?: number;
  stressorSeconds?: number;
  buildDir?: string;
  jobs?: number;
  branchProfiler?: boolean;
  exact?: boolean;
  kernelBuild?: string;
}

function accelOption(value: string): AccelRequest {
  if (value === 'auto' || value === 'tcg') return value;
  throw new UserError(`--accel must be auto or tcg, got '${value}'`, 2);
}

function nameOption(value: string): string {
  if (/^[A-Za-z0-9][\w.-]*$/.test(value)) return value;
  throw new UserError(`--name '${value}': use letters, digits, '.', '_' or '-' (it names the workload in 'hintlab hints')`, 2);
}

/** Seconds the guest may take when --timeout is not given (a profiles boot takes seconds); a stress-ng workload adds PLAN_FACTOR times its plan. */
const DEFAULT_TIMEOUT_S = 1800;

/**
 * Wall seconds per planned stress-ng second the guest is given: guest
 * seconds run at wall speed in a coverage guest; under icount (--exact) a
 * guest second is 10^9 instructions, which TCG with the cost plugin runs
 * in far more than a second.
 */
const PLAN_FACTOR: Record<CounterKind, number> = { gcov: 3, 'branch-profiler': 3, exact: 30 };

/** Say what a stress-ng workload will run and cost (once, before the build); the guest's timeout. */
function announce(choice: WorkloadChoice, timeout: number | undefined, io: CliIO, counter: CounterKind): number {
  const w = choice.workload;
  if (w.kind !== 'stress-ng') return timeout ?? DEFAULT_TIMEOUT_S;
  const planned = stressNgPlanSeconds(w);
  io.stderr(unavailableText(choice.unavailable));
  io.stderr(guestStressNgLine(w, planned));
  return timeout ?? DEFAULT_TIMEOUT_S + PLAN_FACTOR[counter] * planned;
}

/** The counter the flags ask for; conflicting flags are refused (exit 2) before anything runs. */
export function counterOf(flags: Pick<CollectFlags, 'branchProfiler' | 'exact' | 'profileDirs' | 'kernelBuild' | 'buildDir'>): CounterKind {
  if (flags.exact) {
    if (flags.branchProfiler) throw new UserError('--exact counts the jumps of the kernel as built; --branch-profiler builds an instrumented kernel instead: give one of them', 2);
    if (flags.profileDirs !== undefined) throw new UserError('--exact counts every jump of the kernel as built: drop --profile-dirs (it chooses what gcov counts)', 2);
    if (flags.kernelBuild !== undefined && flags.buildDir !== undefined) throw new UserError('--kernel-build boots a finished build; --build-dir says where to build one: give one of them', 2);
    return 'exact';
  }
  if (flags.kernelBuild !== undefined) throw new UserError('--kernel-build is the kernel --exact boots; add --exact (gcov and the branch profiler build their own instrumented kernel)', 2);
  if (flags.branchProfiler && flags.profileDirs !== undefined) {
    throw new UserError('--branch-profiler counts every `if` of the kernel: drop --profile-dirs (it chooses what gcov counts)', 2);
  }
  return flags.branchProfiler ? 'branch-profiler' : 'gcov';
}

/** Each counter's set lives beside the others of the same workload. */
const OUT_SUFFIX: Record<CounterKind, string> = { gcov: '', 'branch-profiler': '-branch-profiler', exact: '-exact' };

async function collectAction(flags: CollectFlags, io: CliIO): Promise<void> {
  const counter = counterOf(flags);
  const src = realTree(resolve(io.cwd, flags.src));
  const scope: ProfileScope = flags.profileDirs === undefined ? { kind: 'all' } : { kind: 'dirs', dirs: parseProfileDirs(flags.profileDirs) };
  const choice = await chooseWorkload(flags.workload, resolve(io.cwd, flags.workload), flags.stressorSeconds);
  const { workload, label } = choice;
  const name = flags.name ?? nameOption(choice.name.replace(/[^\w.-]/g, '_'));
  const out = flags.out ? resolve(io.cwd, flags.out) : defaultOutDir(`${name}${OUT_SUFFIX[counter]}`, io.env);
  const accel = accelOption(flags.accel);
  if (counter === 'exact') {
    await exactAction({ flags, io, src, choice, name, out });
    return;
  }
  const buildDir = flags.buildDir ? resolve(io.cwd, flags.buildDir) : defaultBuildDir(src, scope, io.env, counter, choice.kernelConfig);
  checkCollectInputs({ src, out, scope, buildDir });
  const timeoutSeconds = announce(choice, flags.timeout, io, counter);
  requireQemu();
  const probe = buildProbe({ static: true, env: io.env });
  let lastFiles = 0;
  await interruptible(async (abort) => {
    const record = await collectCoverage(
      {
        src,
        scope,
        workload,
        workloadLabel: label,
        name,
        out,
        buildDir,
        accel,
        timeoutSeconds,
        jobs: flags.jobs ?? availableParallelism(),
        counter,
        workloadConfig: choice.kernelConfig,
      },
      {
        abort,
        launcher: qemuLauncher(),
        probeBinary: probe.path,
        onPhase: (m) => io.stderr(`${m}\n`),
        onAccel: (c) => io.stderr(accelLine(c)),
        onTransfer: (n) => {
          if (io.isTTY && n - lastFiles >= 10) io.stderr(`\r\x1b[K  ${(lastFiles = n)} .gcda files received`);
        },
      },
    );
    if (io.isTTY && lastFiles) io.stderr('\r\x1b[K');
    io.stdout(collectSummary(record, out, io.cwd));
  });
}

/** `--exact`: check, then boot the kernel as built with the cost plugin (src/hints/collect/exact.ts). */
async function exactAction(a: { flags: CollectFlags; io: CliIO; src: string; choice: WorkloadChoice; name: string; out: string }): Promise<void> {
  const { flags, io, choice } = a;
  const kernel: ExactKernelChoice = flags.kernelBuild
    ? { kind: 'given', dir: resolve(io.cwd, flags.kernelBuild) }
    : { kind: 'build', buildDir: flags.buildDir ? resolve(io.cwd, flags.buildDir) : defaultExactBuildDir(a.src, io.env, choice.kernelConfig) };
  const req = { src: a.src, out: a.out, kernel, workloadConfig: choice.kernelConfig };
  checkExactInputs(req);
  const timeoutSeconds = announce(choice, flags.timeout, io, 'exact');
  requireQemu();
  const plugin = buildCostPlugin(io.env);
  const probe = buildProbe({ static: true, env: io.env });
  await interruptible(async (abort) => {
    const record = await collectExact(
      { ...req, workload: exactWorkload(choice.workload), workloadLabel: choice.label, name: a.name, timeoutSeconds, jobs: flags.jobs ?? availableParallelism(), env: io.env },
      { abort, launcher: qemuLauncher(), probeBinary: probe.path, plugin, onPhase: (m) => io.stderr(`${m}\n`) },
    );
    io.stdout(collectSummary(record, a.out, io.cwd));
  });
}

/** Add `hints collect` under the `hints` command. */
export function registerHintsCollect(hints: Command, io: CliIO): void {
  // `hints` has its own --src: without positional options (which commander needs on every
  // level above) it would take `hints collect --src DIR`'s value for itself. The root has
  // only --version and --help, which stay usable before any command.
  hints.parent?.enablePositionalOptions();
  hints.enablePositionalOptions();
  hints
    .command('collect')
    .description('build a gcov or branch-profiler kernel (or, with --exact, boot the kernel as built under the cost plugin), run a workload in qemu and store the counts for `hintlab hints`')
    .requiredOption('--src <dir>', 'kernel source tree (left exactly as it is)')
    .option('--profile-dirs <dirs>', 'comma-separated directories to profile, e.g. kernel/sched,fs,mm (default: the whole kernel)')
    .option('--workload <what>', "'profiles' (hintlab's syscall profiles), 'stress-ng' (the sched set), 'stress-ng:STRESSOR,...' (or :sched), or the path of a static x86_64 program", 'profiles')
    .option('--stressor-seconds <s>', `seconds each stress-ng stressor runs (default ${DEFAULT_STRESSOR_SECONDS})`, intOption('--stressor-seconds', 1))
    .option('--out <dir>', 'where the gcov JSON set goes (default: $XDG_DATA_HOME/hintlab/coverage/<name>)')
    .option('--name <name>', 'workload name for `hintlab hints` (default: profiles, stress-ng-sched, stress-ng-<stressors>, or the program file name)', nameOption)
    .option('--accel <mode>', 'auto (KVM if a trial boot works, else TCG) or tcg', 'auto')
    .option('--timeout <s>', `seconds the guest may take (workload and transfer; default ${DEFAULT_TIMEOUT_S}, plus 3 times the stress-ng plan, 30 times with --exact)`, intOption('--timeout', 10))
    .option('--branch-profiler', 'build a CONFIG_PROFILE_ALL_BRANCHES kernel instead and bring back trace_stat/branch_all (every `if` of the kernel)')
    .option('--exact', "boot the kernel as built (no counters compiled in) with hintlab's qemu cost plugin and store every conditional jump's exact taken/fall-through counts with its source lines (branches.json)")
    .option('--kernel-build <dir>', 'with --exact: a finished `hintlab kernel build --out DIR` of the same tree to boot (default: build tinyconfig -O2, or reuse the trial\'s kernel A)')
    .option('--build-dir <dir>', 'kernel build directory (default: under $XDG_CACHE_HOME/hintlab/coverage-kernels/, or exact-kernels/ with --exact)')
    .option('-j, --jobs <n>', 'parallel make jobs (default: CPUs available)', intOption('--jobs', 1))
    .action(async (flags: CollectFlags) => collectAction(flags, io));
}
