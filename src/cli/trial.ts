/**
 * `hintlab trial --src DIR --patch FILE ...`: argument parsing, the step
 * lines on stderr, and the report on stdout (or -o FILE). The work is
 * src/trial/run.ts's runTrial; the words are src/report/trial*.ts's.
 */
import type { Command } from 'commander';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { buildProbe } from '../launch/probe-build.ts';
import { selectScenarios } from '../behave/select.ts';
import { extensionsOf, formatsOf, reporterFor } from '../report/formats.ts';
import { stepEventLine } from '../report/trial-steps.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import type { StepEvent, TrialRequest } from '../trial/request.ts';
import { runTrial } from '../trial/run.ts';
import { defaultRepeat, stressorsNamed } from '../trial/boots.ts';
import { DEFAULT_OPTIONS } from '../compare/compare.ts';
import { PER_HUNK_MAX_KERNELS } from '../trial/per-hunk.ts';
import { costByDefault } from '../trial/hint-only.ts';
import { patchSections } from '../kernel/patch-names.ts';
import { buildCostPlugin, parseCostModel } from '../vm/cost-plugin.ts';
import { VERSION } from '../version.ts';
import { qemuLauncher, requireQemu } from '../launch/qemu.ts';
import { interruptible } from './interrupt.ts';
import { kernelVersion } from '../kernel/source.ts';
import { outputFormat } from './output-format.ts';
import { checkTrialModes, perCommitPlan, perHunkPlan } from './trial-modes.ts';
import { readSeries } from '../trial/series.ts';
import { type CliIO, invocationOf } from './io.ts';
import { UserError } from '../errors.ts';
import { redactLavaTokens } from '../targets/lava/address.ts';
import { shellLine } from '../shell.ts';
import { compileProgress, configBase, optLevel } from './kernel.ts';
import { collect, intOption, pctOption, DB_HELP } from './options.ts';
import { reproduceContext } from './report.ts';
import { writeOutput } from './runs.ts';
import { guestProfiles } from './vm.ts';

interface TrialOptions {
  src: string;
  patch: string[];
  range?: string;
  out?: string;
  cost?: boolean;
  costModel?: string;
  base: string;
  configFragment?: string;
  opt: string;
  profile: string[];
  ops?: number;
  rounds: number;
  warmups: number;
  /** `--repeat`; undefined: enough boots for the trial's exact claims (src/trial/boots.ts). */
  repeat?: number;
  kvm?: boolean;
  target?: string;
  scenario: string[];
  stressor: string[];
  set: string[];
  stressorSeconds: number;
  stressorRepeats: number;
  stressorInstances: string;
  debugChecks?: boolean;
  perHunk?: boolean;
  perCommit?: boolean;
  force?: boolean;
  maxObjects: number;
  threshold: number;
  timeout: number;
  format: string;
  output?: string;
  db?: string;
  jobs?: number;
  all?: boolean;
}

/** Boots per kernel: compare claims nothing with fewer than 3 units per side, so fewer is refused before anything builds. */
function repeatOption(value: string): number {
  const n = intOption('--repeat', 1)(value);
  if (n < 3) throw new UserError(`--repeat ${n}: a verdict needs at least 3 boots per kernel (each boot is one unit; compare claims nothing on fewer), so every subject would end 'insufficient units'; give 3 or more`, 2);
  return n;
}

function formatOption(value: string): string {
  if (reporterFor('trial', value) === undefined) throw new UserError(`--format must be one of ${formatsOf('trial').join(', ')}; got '${value}'`, 2);
  return value;
}

/** `~/.cache/hintlab/<kind>/<tree name>-<hash of its real path>`: one place per tree, kept for the next trial (or bisect). */
export function defaultOut(src: string, io: CliIO, kind: 'trial' | 'bisect' = 'trial'): string {
  let real = src;
  try {
    real = realpathSync(src);
  } catch {
    // a missing tree is reported by the trial itself, naming --src
  }
  const cache = io.env.XDG_CACHE_HOME || join(io.env.HOME || homedir(), '.cache');
  return join(cache, 'hintlab', kind, `${basename(real)}-${createHash('sha256').update(real).digest('hex').slice(0, 12)}`);
}

/** The step lines on stderr: each step as it starts, and as it ends with its wall time and what it did. */
function stepPrinter(io: CliIO, clear: () => void): (e: StepEvent) => void {
  return (e) => {
    clear();
    io.stderr(stepEventLine(e));
  };
}

/** --stressor/--set as the trial's stress request; null when neither is given. */
function stressOption(opts: TrialOptions): TrialRequest['stress'] {
  const stressors = opts.stressor.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const sets = opts.set.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (stressors.length === 0 && sets.length === 0) return null;
  return { stressors, sets, instances: opts.stressorInstances, seconds: opts.stressorSeconds, repeats: opts.stressorRepeats };
}

/** Every flag checked and turned into what the trial needs, before anything is built (the probe, the plugin, a kernel). */
function checkedFlags(opts: TrialOptions, io: CliIO, given: (flag: string) => boolean) {
  if (opts.patch.length === 0 && opts.range === undefined) throw new UserError('give what B is: --patch FILE (a diff or an mbox series; repeatable, applied in order), or --range BASE..HEAD of the git tree --src', 2);
  const place = checkTrialModes(opts, given, io.env);
  const profiles = guestProfiles(opts.profile, opts.kvm !== true);
  // an mbox split into its patches, a range's commits: read only, and every error names its input
  const series = readSeries({ src: resolve(io.cwd, opts.src), patches: opts.patch.map((p) => resolve(io.cwd, p)), range: opts.range ?? null });
  const patchTexts = series.patches.map((p) => ({ path: p.origin.replace(/^--patch /, ''), text: p.text }));
  // a file name patch(1) would read otherwise is refused here, naming the patch and line
  for (const p of patchTexts) patchSections(p.text, `--patch ${p.path}`);
  const decided = costByDefault(opts.costModel !== undefined ? true : opts.cost, opts.kvm === true || place.kind !== 'qemu', patchTexts.map((p) => p.text));
  const cost = decided.on ? parseCostModel(opts.costModel ?? '') : null;
  const stress = stressOption(opts);
  const repeat = opts.repeat ?? defaultRepeat(profiles.length, stress ? stressorsNamed(stress.stressors, stress.sets) : 0, DEFAULT_OPTIONS.alpha);
  const hunkNote = perHunkPlan({ ...opts, repeat, stress: stress !== null }, patchTexts);
  const commitNote = perCommitPlan({ ...opts, repeat, stress: stress !== null }, series.patches.length);
  const notes = [...(decided.note ? [`note: ${decided.note}`] : []), ...(hunkNote ? [hunkNote] : []), ...(commitNote ? [commitNote] : [])];
  return { lava: place.kind === 'lava' ? place.address : null, profiles, cost, notes, repeat, scenarios: selectScenarios(opts.scenario, io.cwd), base: configBase(opts.base, io.cwd), opt: optLevel(opts.opt) };
}

async function trialAction(opts: TrialOptions, io: CliIO, given: (flag: string) => boolean): Promise<void> {
  const { lava, profiles, cost, notes, repeat, scenarios, base, opt } = checkedFlags(opts, io, given);
  // decided before anything builds: -o x.html with --format md is refused now, not after the kernels
  const format = outputFormat({ format: opts.format, given: given('--format'), output: opts.output }, extensionsOf('trial'));
  const dbPath = dbPathFrom(opts.db, io.env);
  const src = resolve(io.cwd, opts.src);
  const fake = io.services?.trial;
  if (!fake?.launcher) requireQemu();
  const probe = fake?.probe ?? buildProbe({ static: true, env: io.env });
  const costPlugin = cost ? (fake?.costPlugin ?? (fake?.launcher ? undefined : buildCostPlugin(io.env))) : undefined;
  // a --src that is no kernel tree is a usage error found before the results database is created (a range's BASE is checked once exported)
  if (opts.range === undefined) kernelVersion(src);
  const store = Store.open(dbPath);
  const progress = compileProgress(io);
  try {
    const doc = await interruptible((abort) =>
      runTrial(
        {
          src,
          patches: opts.patch.map((p) => resolve(io.cwd, p)),
          range: opts.range ?? null,
          perCommit: opts.perCommit === true,
          out: resolve(io.cwd, opts.out ?? defaultOut(src, io)),
          base,
          fragment: opts.configFragment ? resolve(io.cwd, opts.configFragment) : null,
          opt,
          jobs: opts.jobs ?? availableParallelism(),
          debugChecks: opts.debugChecks === true,
          perHunk: opts.perHunk === true,
          scenarios,
          scenarioArgs: opts.scenario,
          stress: stressOption(opts),
          profiles,
          profileArgs: opts.profile,
          ops: opts.ops ?? null,
          rounds: opts.rounds,
          warmups: opts.warmups,
          repeat,
          kvm: opts.kvm === true,
          cost,
          maxObjects: opts.maxObjects,
          thresholdPct: opts.threshold,
          timeoutSeconds: opts.timeout,
          lava,
          // a LAVA token typed in --target stays out of the store and the report
          command: shellLine(['hintlab', ...redactLavaTokens(io.argv ?? [])]),
          invocation: { ...invocationOf(io), argv: redactLavaTokens(io.argv ?? []) },
          db: opts.db ?? (io.env.HINTLAB_DB || null),
          hintlabVersion: VERSION,
        },
        {
          store,
          launcher: fake?.launcher ?? qemuLauncher(),
          probe,
          abort,
          costPlugin,
          notes,
          ...(fake?.services ? { services: fake.services } : {}),
          ...(fake?.chooseAccel ? { chooseAccel: fake.chooseAccel } : {}),
          ...(fake?.cacheDir ? { cacheDir: fake.cacheDir } : {}),
          ...(fake?.stressNg ? { stressNg: fake.stressNg } : {}),
          ...(fake?.stressNgEntries ? { stressNgEntries: fake.stressNgEntries } : {}),
          onNote: (line) => {
            progress.clear();
            io.stderr(`${line}\n`);
          },
          onStep: stepPrinter(io, progress.clear),
          onDetail: (line) => {
            progress.clear();
            io.stderr(`      ${line}\n`);
          },
          onCompiled: (n, obj) => progress.update(n, obj),
          env: io.env,
        },
      ),
    );
    const text = reporterFor('trial', format)!(doc, { generatedAt: new Date().toISOString(), reproduce: reproduceContext(opts.db, io), all: opts.all === true });
    writeOutput(io, text, opts.output, dbPath);
    if (opts.output !== undefined) io.stderr(`wrote the ${format} report of trial #${doc.trialId} to ${opts.output}\n`);
  } finally {
    progress.clear();
    store.close();
  }
}

/** Whether a flag was typed: commander's value source, and the raw words for a pair that set one value (--cost, --no-cost). */
function givenFlags(command: Command, argv: readonly string[]): (flag: string) => boolean {
  return (flag) => {
    if (flag === '--cost' || flag === '--no-cost') return argv.includes(flag);
    const option = command.options.find((o) => o.long === flag);
    return option !== undefined && command.getOptionValueSource(option.attributeName()) === 'cli';
  };
}

export function registerTrial(program: Command, io: CliIO): void {
  program
    .command('trial')
    .description('from a tree and a patch to one report: build A and B (B from A\'s objects), codegen, behave, A/B in VMs')
    .requiredOption('--src <dir>', 'kernel source tree (left exactly as it is); A is this tree as is, or with --range a git clone')
    .option('--patch <file>', 'unified diff B adds to the tree (-p1), or an mbox series (git format-patch, b4 am; a cover letter skipped); repeatable, applied in order', collect, [])
    .option('--range <base..head>', 'with --src a git clone: A is BASE\'s tree, B is HEAD\'s (built as A plus each commit; the clone is only read)')
    .option('--out <dir>', 'where the builds live, kept for the next trial (default: ~/.cache/hintlab/trial/<tree>-<hash>)')
    .option('--base <config>', 'base configuration: tinyconfig, defconfig or a .config file', 'tinyconfig')
    .option('--config-fragment <file>', 'CONFIG_ lines merged on top of the base and hintlab\'s fragments')
    .option('--opt <level>', 'O2 (what distributions ship) or Os', 'O2')
    .option('-p, --profile <name>', "profile to measure (repeatable, comma-separated, or 'all'; default: every one-CPU profile)", collect, [])
    .option('--ops <n>', 'calls per round for every profile (default: per profile)', intOption('--ops', 1))
    .option('--rounds <n>', 'measured rounds per profile and boot', intOption('--rounds', 1), 5)
    .option('--warmups <n>', 'warm-up rounds per profile and boot', intOption('--warmups', 0), 1)
    .option('--repeat <n>', 'boots per kernel, in A B B A A B ... order; each boot is one unit (3 at least: a verdict needs 3 units per side; default: enough for exact claims over the profiles and stressors compared, 4 for up to 6, 5 for up to 25)', repeatOption)
    .option('--kvm', 'measure ns under KVM instead of instructions under icount (only where a KVM trial boot works)')
    .option('--scenario <name|file>', "behaviour scenario: built-in name, file, or 'all' (repeatable; default all)", collect, [])
    .option('--stressor <name>', 'also run this stress-ng stressor in A/B boots of the measured kernels (repeatable, comma-separated)', collect, [])
    .option('--set <name>', "named stressor set: 'sched' (the sched/core hints thread's 17, minus what the installed stress-ng lacks)", collect, [])
    .option('--stressor-seconds <s>', 'guest seconds per stressor and boot (under -icount a guest second is 10^9 guest instructions)', intOption('--stressor-seconds', 1), 2)
    .option('--stressor-repeats <n>', 'invocations of every stressor in each boot (each boot is one unit; compare needs 5 rounds per kernel)', intOption('--stressor-repeats', 1), 2)
    .option('--stressor-instances <list>', "stressor instances, comma-separated ('all': one per guest CPU; the -icount guest has one)", '1')
    .option('--debug-checks', 'boot the behaviour scenarios on a second pair of kernels with lockdep and friends (never measured)')
    .option('--per-hunk', "also build, from A's objects, A + each hunk alone and (over two hunks) B without each, boot each like B, and say which hunk explains each change")
    .option('--per-commit', "also build A plus the first k commits of the range (or patches of the series), each from the one before's objects, boot each like B, and say which commit brings each change")
    .option('--force', `with --per-hunk or --per-commit: build and boot every variant even past ${PER_HUNK_MAX_KERNELS} kernels (the plan and its estimated time are said first)`)
    .option('--max-objects <n>', 'objects to disassemble at most when a header reaches many', intOption('--max-objects', 1), 8)
    .option('--threshold <pct>', "compare's noise threshold for the measured verdicts (a one-sided test must put the change beyond it, Holm-adjusted; e.g. 0.1% for instruction counts)", pctOption('--threshold', '0.1%', true), 1)
    .option('--cost', "also count, in every boot, what each call costs the emulated machine (hintlab's qemu plugin: taken branches, I-cache lines, modelled L1i misses and mispredictions) and which kernel functions changed (see docs/vm-cost.md)")
    // --no-cost after --cost: commander leaves the value undefined unless one is given (the patch decides)
    .option('--no-cost', 'do not run the cost model, even for a patch that only changes branch hints')
    .option('--cost-model <model>', "with --cost: the modelled L1i and predictor (default 'l1i=32k,8way,64 predictor=2bit')")
    .option('--timeout <s>', 'seconds one boot may take before qemu is killed', intOption('--timeout', 5), 600)
    .option('--target <lava-url>', "run the measured boots as LAVA jobs: lava://[TOKEN@]SERVER[:PORT]/DEVICE_TYPE (builds, codegen and behave stay here; see docs/lava.md)")
    .option('--format <fmt>', `report format: ${formatsOf('trial').join(', ')} (default: from the extension of -o, else lkml)`, formatOption, 'lkml')
    .option('-o, --output <file>', 'write the report to FILE (atomically) instead of stdout')
    .option('--all', 'lkml: a table row for every profile (default: the ones with no proven change in one line)')
    .option('--db <path>', DB_HELP)
    .option('-j, --jobs <n>', 'parallel make jobs (default: CPUs available)', intOption('--jobs', 1))
    .action(async (opts: TrialOptions, command: Command) => trialAction(opts, io, givenFlags(command, io.argv ?? [])));
}
