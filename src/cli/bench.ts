/** `hintlab bench`: argument parsing and output for the host benchmark. */
import type { Command } from 'commander';
import { buildProbe, type ProbeBuild } from '../launch/probe-build.ts';
import { DEFAULT_BLOCK_ROUNDS, DEFAULT_SECONDS_PER_PROFILE, MIN_PAIRS, PAIRED_OPS_DIVISOR, PAIRED_WARMUPS } from '../bench/budget.ts';
import { PROFILES, type ProfileInfo, selectProfiles } from '../bench/profiles.ts';
import { BenchRequestError, runBench, type BenchDeps, type BenchRequest } from '../bench/runner.ts';
import { interleavedRequest, isInterleaved, measureInterleaved, parseClock, refuseIgnoredPairedFlags } from './bench-interleave.ts';
import { type BenchOptions, probePlanOptions } from './bench-options.ts';
import { benchRemote, parseTargets } from './bench-targets.ts';
import { hostTarget } from '../targets/host.ts';
import { runJson } from '../report/run-export.ts';
import { runHeadline, runTable } from '../report/run-table.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { VERSION } from '../version.ts';
import { type CliIO, commandLine, invocationOf } from './io.ts';
import { UserError } from '../errors.ts';
import { collect, intOption, labelOption, pctOption, DB_HELP } from './options.ts';
import { interruptible } from './interrupt.ts';
import { noteReusedLabels } from './run-refs.ts';
import { type Progress, progressBar } from './progress.ts';


/**
 * The kernel refuses a classic BPF program longer than BPF_MAXINSNS (4096)
 * instructions; the probe's filter of N instructions counts its own return
 * among them, so N = 4096 is the longest that installs.
 */
const SECCOMP_MAX = { value: 4096, why: "the kernel's BPF_MAXINSNS, the longest seccomp filter it installs" };

/** A precision target below what compare prints (changes to 0.01 %) could never be seen to be reached. */
const PRECISION_MIN = { value: 0.01, why: 'compare prints changes to 0.01 %' };

/** 'fifth' for 5: the paired designs' share of a profile's calls, in words. */
function ordinal(n: number): string {
  return ({ 2: 'half', 3: 'third', 4: 'quarter', 5: 'fifth', 10: 'tenth' } as Record<number, string>)[n] ?? `1/${n}th`;
}

function listProfiles(io: CliIO): void {
  const w = Math.max(...PROFILES.map((p) => p.name.length));
  for (const p of PROFILES) {
    io.stdout(`${p.name.padEnd(w)}  ${String(p.defaultOps).padStart(7)} calls/round  ${p.cpus} CPU${p.cpus > 1 ? 's' : ' '}  ${p.summary}\n`);
  }
}

/** What every bench invocation asks for, with one side or two. */
type CommonRequest = Omit<BenchRequest, 'label' | 'injectSeccomp'>;

function commonRequest(opts: BenchOptions, profiles: ProfileInfo[], io: CliIO): CommonRequest {
  return {
    profiles,
    ops: opts.ops ?? null,
    warmups: opts.warmups,
    rounds: opts.rounds,
    processes: opts.processes,
    cpu: opts.cpu ?? null,
    clock: parseClock(opts.clock),
    command: commandLine(io),
    invocation: invocationOf(io),
    hintlabVersion: VERSION,
  };
}

async function benchAction(opts: BenchOptions, io: CliIO): Promise<void> {
  if (opts.list) { listProfiles(io); return; }
  refuseIgnoredPairedFlags(opts);
  const dbPath = dbPathFrom(opts.db, io.env);
  let profiles;
  try {
    profiles = selectProfiles(opts.profile);
  } catch (err) {
    throw new UserError((err as Error).message, 2);
  }
  const common = commonRequest(opts, profiles, io);
  if (opts.target.length > 0) return benchOnBoxes(opts, common, io, dbPath);
  const probe: ProbeBuild = io.services?.probeBuild ?? buildProbe({ env: io.env });
  const target = io.services?.target ?? hostTarget({ probe });
  const store = Store.open(dbPath);
  const bar = progressBar(io);
  try {
    await interruptible((abort) => {
      const deps: BenchDeps = { store, target, probe, abort, onProgress: (d, t, p) => bar.update(d, t, p) };
      return isInterleaved(opts)
        ? measureInterleaved(interleavedRequest(opts, common, io), io, deps, bar, opts.json === true)
        : measure({ ...common, label: opts.label ?? null, injectSeccomp: opts.injectSeccomp ?? null }, opts.json === true, io, deps, bar);
    });
  } finally {
    bar.clear();
    store.close();
  }
}

/** `--target`: the same plan on each box over ssh (./bench-targets.ts). */
async function benchOnBoxes(opts: BenchOptions, common: CommonRequest, io: CliIO, dbPath: string): Promise<void> {
  const boxes = parseTargets(opts, io.env);
  const store = Store.open(dbPath);
  const bar = progressBar(io);
  try {
    const req = { ...common, label: opts.label ?? null, injectSeccomp: opts.injectSeccomp ?? null };
    await interruptible((abort) => benchRemote({ opts, boxes, req, store, bar, abort }, io));
  } finally {
    bar.clear();
    store.close();
  }
}

async function measure(req: BenchRequest, json: boolean, io: CliIO, deps: BenchDeps, bar: Progress): Promise<void> {
  const store = deps.store;
  try {
    const result = await runBench(req, deps);
    bar.clear();
    if (result.state === 'failed') {
      const kept = result.run.rounds.filter((r) => !r.warmup).length;
      throw new UserError(
        `${result.reason}\nrun #${result.run.id} is marked failed in ${store.path}; its ${kept} measured rounds ` +
          'are kept for inspection but never used as valid data',
      );
    }
    io.stdout(json ? runJson(result.run) : `${runHeadline(result.run)}\n${runTable(result.run)}`);
    for (const w of result.warnings) io.stderr(`warning: ${w.message}\n`);
    noteReusedLabels(store, [result.run.label], io);
  } catch (err) {
    if (err instanceof BenchRequestError) throw new UserError(err.message, 2);
    throw err;
  }
}

export function registerBench(program: Command, io: CliIO): void {
  const cmd = program.command('bench').description('time syscalls in pinned, validated loops on the running kernel and store every round');
  probePlanOptions(cmd, {
    rounds: 'measured rounds per profile (plain runs and --design processes; per run with --design abbaab; duet and alternation measure for --time)',
    processes: 'probe processes the rounds are split across, each with its own warm-ups (per side with --design processes; duet and alternation start their own)',
    warmups: `warm-up rounds per probe process, not stored as measurements (duet and alternation: ${PAIRED_WARMUPS} unless given)`,
    ops: `calls per round for every profile (default: per profile, see bench --list; duet and alternation: a ${ordinal(PAIRED_OPS_DIVISOR)} of it)`,
    cpu: 'CPU to pin to (default: the last allowed CPU)',
  })
    .option('--label <name>', 'label for the run, used by compare (e.g. A, B, A2)', labelOption('--label'))
    .option('--db <path>', DB_HELP)
    .option('--inject-seccomp <n>', 'known-effect calibration: install an N-instruction allow-all seccomp filter first', intOption('--inject-seccomp', 2, SECCOMP_MAX))
    .option('--label-b <name>', 'measure a B side in the same invocation (see --design); B\'s run label (default: B)', labelOption('--label-b'))
    .option('--inject-seccomp-b <n>', 'B side: an N-instruction seccomp filter (0 = none, an A/A control); --inject-seccomp is then A\'s', intOption('--inject-seccomp-b', 0, SECCOMP_MAX))
    .option('--switch-file <path=value>', 'B side: write VALUE to PATH before each B process, A\'s value before each A process; always restored (repeatable)', collect, [])
    .option('--design <kind>', 'with a B side: alternation (short blocks in random ABBA order: one probe process for --switch-file, an A and a B process taking turns on one CPU otherwise; the default on this machine), duet (A and B at once on two CPUs), processes (A B B A probe processes; the default on a box) or abbaab (six runs A B B A A B of --processes processes and --rounds each, judged on the run levels with a linear drift taken out)')
    .option('--time <seconds>', `duet and alternation: seconds of measuring per profile (default ${DEFAULT_SECONDS_PER_PROFILE})`, intOption('--time', 1))
    .option('--precision <pct>', 'duet and alternation: stop once every profile\'s change is known to +-PCT % (anytime-valid confidence sequence), or at --time', pctOption('--precision', '2%', false, PRECISION_MIN))
    .option('--block-rounds <n>', `duet and alternation: measured rounds per block (default ${DEFAULT_BLOCK_ROUNDS})`, intOption('--block-rounds', 1))
    .option('--min-pairs <n>', `duet and alternation: measure at least N pairs per invocation, whatever --time or --precision say (default ${MIN_PAIRS})`, intOption('--min-pairs', MIN_PAIRS))
    .option('--inject-work-b <n|pct%>', 'B side: N dependent register additions per call outside the syscall, or PCT% to calibrate N from a pilot so that B costs PCT % more')
    .option('--clock <wall|cpu>', 'time rounds on the wall clock or on the probe thread\'s CPU clock (leaves out the time other tasks held the CPU); default: cpu, or wall when a profile waits for a partner (sched_yield-dual, sched_setaffinity-queued)')
    .option('--seed <n>', 'alternation: seed of the random ABBA order (default: drawn and recorded)', intOption('--seed', 0))
    .option('--switch-file-a <path=value>', 'A\'s value for a --switch-file PATH (default: its contents as read); must be what it holds now', collect, [])
    .option('--force', 'with --switch-file: allow a file outside /proc/sys, /sys, debugfs and your own files')
    .option('--wait', 'with --switch-file: wait for another run switching the same file to end, instead of refusing')
    .option('--target <ssh://[user@]host[:port]>', 'measure on a box over ssh instead of this machine (repeatable: the boxes run in parallel)', collect, [])
    .option('--json', 'print a versioned JSON document instead of the table')
    .option('--list', 'list the profiles and exit')
    .action(async (opts: BenchOptions, command: Command) => benchAction({ ...opts, warmupsGiven: command.getOptionValueSource('warmups') !== 'default' }, io));
}
