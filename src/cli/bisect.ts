/**
 * `hintlab bisect --src GIT_TREE --good REF --bad REF --profile NAME`:
 * argument parsing, progress lines on stderr, and the report on stdout (or
 * -o FILE). The work is src/bisect/run.ts's runBisect with the kernel lab
 * of src/bisect/lab.ts (its boots in qemu here, or on the LAVA lab of
 * `--target`, parsed by src/targets/place.ts like vm's); the words are
 * src/report/bisect.ts's.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { KernelLab, siteOpener } from '../bisect/lab.ts';
import { runBisect, type BisectLab } from '../bisect/run.ts';
import type { BisectMetric } from '../bisect/document.ts';
import { UserError } from '../errors.ts';
import { COST_METRICS } from '../cost-counters.ts';
import { buildProbe } from '../launch/probe-build.ts';
import { qemuLauncher, requireQemu } from '../launch/qemu.ts';
import { BISECT_REPORTERS, bisectEventLine } from '../report/bisect.ts';
import { siteEventText } from '../report/vm.ts';
import type { BootPlace } from '../targets/factory.ts';
import { redactLavaTokens } from '../targets/lava/address.ts';
import { parsePlace } from '../targets/place.ts';
import { shellLine } from '../shell.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { buildCostPlugin, describeCostModel, parseCostModel, type CostModel } from '../vm/cost-plugin.ts';
import { VERSION } from '../version.ts';
import { interruptible } from './interrupt.ts';
import { type CliIO, invocationOf } from './io.ts';
import { compileProgress, configBase, optLevel } from './kernel.ts';
import { DB_HELP, intOption } from './options.ts';
import { outputFormat } from './output-format.ts';
import { writeOutput } from './runs.ts';
import { defaultOut } from './trial.ts';
import { guestProfiles } from './vm.ts';
import type { ProfileInfo } from '../bench/profiles.ts';
import type { LabStress } from '../bisect/lab.ts';
import { planBisectStress } from '../bisect/stress.ts';
import { processExecutor } from '../macro/executor.ts';

interface BisectOptions {
  src: string;
  good: string;
  bad: string;
  profile?: string;
  stressor?: string;
  stressorSeconds: number;
  stressorRepeats: number;
  metric?: string;
  cost?: boolean;
  costModel?: string;
  out?: string;
  base: string;
  configFragment?: string;
  opt: string;
  ops?: number;
  rounds: number;
  warmups: number;
  timeout: number;
  resume?: boolean;
  format: string;
  output?: string;
  db?: string;
  jobs?: number;
  target?: string;
}

const EXTENSIONS = { '.json': ['json'], '.txt': ['text'], '.eml': ['lkml'] } as const;

function formatOption(value: string): string {
  if (!Object.hasOwn(BISECT_REPORTERS, value)) throw new UserError(`--format must be one of ${Object.keys(BISECT_REPORTERS).join(', ')}; got '${value}'`, 2);
  return value;
}

type Measure = { profile: ProfileInfo | null; stress: LabStress | null; cost: CostModel | null; metric: BisectMetric };

/** One profile, or one stressor: what a bisect follows. */
function oneName(opts: BisectOptions): { profile: string } | { stressor: string } {
  if ((opts.profile === undefined) === (opts.stressor === undefined)) {
    throw new UserError('give what the bisect follows: --profile NAME (instructions per call) or --stressor NAME (bogo-ops per guest second), one of the two', 2);
  }
  const [flag, value] = opts.profile !== undefined ? ['--profile', opts.profile] : ['--stressor', opts.stressor ?? ''];
  const names = value.split(',').map((p) => p.trim()).filter(Boolean);
  if (names.length !== 1 || names[0] === 'all') throw new UserError(`${flag} ${value}: a bisect follows one count; give one name`, 2);
  return opts.profile !== undefined ? { profile: names[0]! } : { stressor: names[0]! };
}

/** The profile or stressor, the counter and the cost model, checked before anything builds. */
async function checkedMeasure(opts: BisectOptions, io: CliIO): Promise<Measure> {
  const one = oneName(opts);
  if ('stressor' in one) {
    if (opts.cost === true || opts.costModel !== undefined || opts.metric !== undefined) throw new UserError('--cost and --metric go with --profile: a stressor is followed by its bogo-ops per guest second', 2);
    const stress = await planBisectStress(one.stressor, opts.stressorSeconds, opts.stressorRepeats, io.services?.bisect?.stressNg ?? processExecutor());
    return { profile: null, stress, cost: null, metric: { subject: stress.subject, name: 'icount-bogo-ops/s', costModel: null } };
  }
  const [profile] = guestProfiles([one.profile], true);
  if (!profile) throw new UserError(`--profile ${one.profile}: no such one-CPU profile`, 2);
  const costAsked = opts.cost === true || opts.costModel !== undefined || opts.metric !== undefined;
  const cost = costAsked ? parseCostModel(opts.costModel ?? '') : null;
  if (opts.metric !== undefined && !COST_METRICS.includes(opts.metric)) {
    throw new UserError(`--metric ${opts.metric}: not a cost counter; give one of ${COST_METRICS.join(', ')} (with --cost), or drop --metric to follow instructions per call`, 2);
  }
  return { profile, stress: null, cost, metric: { subject: profile.name, name: opts.metric ?? 'instructions/call', costModel: cost ? describeCostModel(cost) : null } };
}

function fragmentHash(path: string | null): string | null {
  if (path === null) return null;
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch (err) {
    throw new UserError(`--config-fragment ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }
}

interface Checked {
  src: string;
  out: string;
  fragment: string | null;
  base: ReturnType<typeof configBase>;
  opt: ReturnType<typeof optLevel>;
  command: string;
  place: BootPlace;
}

/**
 * The kernel lab (or the scripted one of a test) at the place the flags
 * name, and the builds of the probe and the cost plugin it boots with,
 * which are part of every step's key.
 */
function makeLab(opts: BisectOptions, io: CliIO, c: Checked, measure: Measure, deps: { store: Store; abort: AbortSignal; say: (line: string) => void; progress: ReturnType<typeof compileProgress> }): { lab: BisectLab; probeId: string; pluginId: string | null } {
  const given = io.services?.bisect;
  if (given?.lab) return { lab: given.lab, probeId: 'scripted', pluginId: null };
  // the kernels are built here wherever they boot; the LAVA worker runs its own qemu
  if (c.place.kind === 'qemu') requireQemu();
  const probe = given?.probe ?? buildProbe({ static: true, env: io.env });
  const cacheDir = given?.cacheDir;
  const costPlugin = measure.cost ? buildCostPlugin(io.env) : undefined;
  const lab = new KernelLab(
    {
      src: c.src, out: c.out, base: c.base, fragment: c.fragment, opt: c.opt, jobs: opts.jobs ?? availableParallelism(), profile: measure.profile, stress: measure.stress, metric: measure.metric.name, cost: measure.cost,
      ops: opts.ops ?? null, rounds: opts.rounds, warmups: opts.warmups, timeoutSeconds: opts.timeout, command: c.command, invocation: { ...invocationOf(io), argv: redactLavaTokens(io.argv ?? []) }, hintlabVersion: VERSION,
    },
    {
      store: deps.store, launcher: qemuLauncher(), probe, abort: deps.abort, costPlugin, cacheDir, services: given?.services, onDetail: (line) => deps.say(`      ${line}`), onCompiled: (n, obj) => deps.progress.update(n, obj),
      openSite: siteOpener(c.place, { probe, cacheDir, pollMs: given?.pollMs, onEvent: (e) => deps.say(`      ${siteEventText(e).trimEnd()}`) }),
    },
  );
  return { lab, probeId: probe.buildId, pluginId: costPlugin?.buildId ?? null };
}

async function bisectAction(opts: BisectOptions, io: CliIO, formatGiven: boolean): Promise<void> {
  // where the boots run, with every conflict of --target refused before anything else is looked at
  const place = parsePlace('bisect', { target: opts.target === undefined ? [] : [opts.target], cost: opts.cost, costModel: opts.costModel, metric: opts.metric, followsStressor: opts.stressor !== undefined }, io.env);
  const measure = await checkedMeasure(opts, io);
  const format = outputFormat({ format: opts.format, given: formatGiven, output: opts.output }, EXTENSIONS);
  const src = resolve(io.cwd, opts.src);
  const c: Checked = {
    src,
    out: resolve(io.cwd, opts.out ?? defaultOut(src, io, 'bisect')),
    fragment: opts.configFragment ? resolve(io.cwd, opts.configFragment) : null,
    base: configBase(opts.base, io.cwd),
    opt: optLevel(opts.opt),
    // a LAVA token typed in --target stays out of the store
    command: shellLine(['hintlab', ...redactLavaTokens(io.argv ?? [])]),
    place,
  };
  const dbPath = dbPathFrom(opts.db, io.env);
  const store = Store.open(dbPath);
  const progress = compileProgress(io);
  const say = (line: string): void => {
    progress.clear();
    io.stderr(`${line}\n`);
  };
  try {
    const doc = await interruptible(async (abort) => {
      const { lab, probeId, pluginId } = makeLab(opts, io, c, measure, { store, abort, say, progress });
      const s = measure.stress;
      const boots = s ? { seconds: s.seconds, repeats: s.repeats, stressNg: s.plan.stressNgVersion } : { ops: opts.ops ?? null, rounds: opts.rounds, warmups: opts.warmups };
      const keyInputs = { base: c.base, fragment: fragmentHash(c.fragment), opt: c.opt, probe: probeId, plugin: pluginId, ...boots };
      return runBisect(
        { src, good: opts.good, bad: opts.bad, out: c.out, metric: measure.metric, keyInputs, resume: opts.resume === true, command: c.command, target: place.kind === 'qemu' ? null : place.address.name },
        { store, lab, onEvent: (e) => say(bisectEventLine(e, measure.metric)) },
      );
    });
    writeOutput(io, BISECT_REPORTERS[format]!(doc), opts.output, dbPath);
    if (opts.output !== undefined) io.stderr(`wrote the ${format} report of the bisect to ${opts.output}\n`);
  } finally {
    progress.clear();
    store.close();
  }
}

export function registerBisect(program: Command, io: CliIO): void {
  program
    .command('bisect')
    .description("find the commit that moved a count: each commit built and booted under qemu -icount, one boot per step when counts repeat (docs/bisect.md)")
    .requiredOption('--src <dir>', 'git tree of the kernel (its checkout, index, HEAD and stashes are never touched: commits are exported with git archive)')
    .requiredOption('--good <ref>', 'a commit with the old count')
    .requiredOption('--bad <ref>', 'a later commit with the new count (good must be on its first-parent line)')
    .option('-p, --profile <name>', 'the one-CPU probe profile whose instructions per call are followed (e.g. getppid)')
    .option('--stressor <name>', 'or the stress-ng stressor whose bogo-ops per guest second are followed (e.g. fifo), as trial names them')
    .option('--stressor-seconds <s>', 'with --stressor: guest seconds per invocation (under -icount a guest second is 10^9 guest instructions)', intOption('--stressor-seconds', 1), 2)
    .option('--stressor-repeats <n>', 'with --stressor: invocations per boot; the boot\'s value is their mean', intOption('--stressor-repeats', 1), 2)
    .option('--cost', "run hintlab's cost plugin in every boot; the report adds the culprit's per-function change against its parent")
    .option('--metric <counter>', `with --cost: follow this counter instead of instructions per call (${COST_METRICS.join(', ')})`)
    .option('--cost-model <model>', "with --cost: the modelled L1i and predictor (default 'l1i=32k,8way,64 predictor=2bit')")
    .option('--out <dir>', 'where the builds live, kept for the next bisect (default: ~/.cache/hintlab/bisect/<tree>-<hash>)')
    .option('--base <config>', 'base configuration: tinyconfig, defconfig or a .config file', 'tinyconfig')
    .option('--config-fragment <file>', "CONFIG_ lines merged on top of the base and hintlab's fragment")
    .option('--opt <level>', 'O2 (what distributions ship) or Os', 'O2')
    .option('--ops <n>', 'calls per round (default: per profile)', intOption('--ops', 1))
    .option('--rounds <n>', 'measured rounds per boot', intOption('--rounds', 1), 5)
    .option('--warmups <n>', 'warm-up rounds per boot', intOption('--warmups', 0), 1)
    .option('--timeout <s>', 'seconds one boot may take before qemu is killed', intOption('--timeout', 5), 600)
    .option('--target <lava-url>', 'boot on a LAVA lab instead of qemu here: lava://[TOKEN@]SERVER[:PORT]/DEVICE_TYPE[?tags=a,b&serve=HOST:PORT], each boot one LAVA job, the kernels built here (token also from $HINTLAB_LAVA_TOKEN; docs/lava.md)')
    .option('--resume', 'reuse stored skips too (a rerun always reuses stored builds and boots, and tries skipped commits again)')
    .option('--format <fmt>', `report format: ${Object.keys(BISECT_REPORTERS).join(', ')} (default: from the extension of -o, else text)`, formatOption, 'text')
    .option('-o, --output <file>', 'write the report to FILE (atomically) instead of stdout')
    .option('--db <path>', DB_HELP)
    .option('-j, --jobs <n>', 'parallel make jobs (default: CPUs available)', intOption('--jobs', 1))
    .action(async (opts: BisectOptions, command: Command) => bisectAction(opts, io, command.getOptionValueSource('format') === 'cli'));
}
