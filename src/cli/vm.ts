/** `hintlab vm`: argument parsing and output for A/B/A runs across kernels booted in qemu. */
import type { Command } from 'commander';
import { buildProbe } from '../launch/probe-build.ts';
import { WORK_MAX } from '../bench/known-work.ts';
import { selectProfiles } from '../bench/profiles.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { VERSION } from '../version.ts';
import type { AccelRequest } from '../vm/accel.ts';
import { parseOrder, resolveKernel } from '../vm/kernels.ts';
import { requireQemu } from '../launch/qemu.ts';
import { repeatOrder, type VmRequest } from '../vm/runner.ts';
import { runVmAt } from '../vm/placed.ts';
import { parsePlace } from '../targets/place.ts';
import { redactLavaTokens } from '../targets/lava/address.ts';
import { shellLine } from '../shell.ts';
import { buildCostPlugin, parseCostModel } from '../vm/cost-plugin.ts';
import { vmCostSummary } from '../compare/cost-functions.ts';
import { costSummaryText } from '../report/cost.ts';
import { siteEventText } from '../report/vm.ts';
import { vmBranchComparison } from '../vm/branch-flips.ts';
import { branchReport } from '../report/branch-words.ts';
import { type CliIO, invocationOf } from './io.ts';
import { UserError } from '../errors.ts';
import { reportSteps, stepCallbacks } from './vm-report.ts';
import { vmMacroAction, type VmMacroOptions } from './vm-macro.ts';
import { interruptible } from './interrupt.ts';
import { collect, intOption, labelOption, pctOption, DB_HELP } from './options.ts';
import { progressBar } from './progress.ts';

export interface VmOptions extends VmMacroOptions {
  kernel: string[];
  order?: string;
  profile: string[];
  ops?: number;
  warmups: number;
  rounds: number;
  accel: AccelRequest;
  icount?: boolean;
  injectWork: string[];
  timeout?: number;
  labelPrefix: string;
  db?: string;
  repeat?: number;
  detect: number;
  cost?: boolean;
  costModel?: string;
  target?: string;
  resume?: boolean;
}

function accelOption(value: string): AccelRequest {
  if (value === 'auto' || value === 'kvm' || value === 'tcg') return value;
  throw new UserError(`--accel must be auto, kvm or tcg, got '${value}'`, 2);
}

/** Profiles for the guest: all by default, minus two-CPU ones under icount (one guest CPU). */
export function guestProfiles(requested: string[], icount: boolean) {
  let profiles;
  try {
    profiles = selectProfiles(requested);
  } catch (err) {
    throw new UserError((err as Error).message, 2);
  }
  if (!icount) return profiles;
  const two = profiles.filter((p) => p.cpus === 2);
  if (two.length && requested.length && !requested.includes('all')) {
    throw new UserError(`--icount guests have one CPU (SMP bring-up hangs under qemu's icount), so profile ${two.map((p) => p.name).join(', ')} cannot run; drop it or drop --icount`, 2);
  }
  return profiles.filter((p) => p.cpus === 1);
}

async function vmAction(opts: VmOptions, io: CliIO): Promise<void> {
  dbPathFrom(opts.db, io.env); // an empty --db is refused before anything boots
  if (opts.kernel.length === 0) throw new UserError('give at least one --kernel LABEL=PATH (e.g. --kernel A=./build-a --kernel B=./build-b)', 2);
  const kernels = opts.kernel.map((k) => resolveKernel(k, io.cwd));
  const labels = kernels.map((k) => k.label);
  const dup = labels.find((l, i) => labels.indexOf(l) !== i);
  if (dup) throw new UserError(`--kernel label '${dup}' is given twice; each kernel needs its own label`, 2);
  if (opts.repeat !== undefined && opts.order !== undefined) throw new UserError('--repeat sets the boot order itself (A B B A ...); drop --order, or drop --repeat to boot in your order with one run per boot', 2);
  if (opts.repeat !== undefined && opts.macro) throw new UserError('--repeat pools boots of probe profiles; it does not work with --macro yet: use --order', 2);
  const defaultOrder = labels.length === 2 ? `${labels[0]},${labels[1]},${labels[0]}` : labels.join(',');
  const steps = opts.repeat !== undefined ? repeatOrder(labels, opts.repeat) : parseOrder(opts.order ?? defaultOrder, labels);
  const place = parsePlace('vm', { ...opts, target: opts.target === undefined ? [] : [opts.target] }, io.env);
  if (opts.macro) return vmMacroAction(opts, io, kernels, steps);
  // --cost implies icount (and with it the fixed guest clock): counts must repeat boot to boot
  const icount = opts.icount === true || opts.cost === true;
  const cost = place.kind === 'qemu' && place.cost ? parseCostModel(place.cost.model) : null;
  const profiles = guestProfiles(opts.profile, icount);
  if (place.kind === 'qemu') requireQemu();
  const costPlugin = cost ? buildCostPlugin(io.env) : undefined;
  const probe = io.services?.probeBuild ?? buildProbe({ static: true, env: io.env });
  const store = Store.open(dbPathFrom(opts.db, io.env));
  const bar = progressBar(io);
  try {
    await interruptible(async (abort) => {
      const result = await runVmAt(place, vmRequest(opts, io, { kernels, steps, profiles, icount, cost }), {
        store,
        probe,
        costPlugin,
        abort,
        ...stepCallbacks(io, bar, steps.length),
        onRound: (s, d, t, p) => bar.update(d, t, `${s.runLabel} ${p}`),
        onEvent: (e) => io.stderr(siteEventText(e)),
        onResume: (done, again) => {
          if (done.length) io.stderr(`resume: ${done.map((s) => s.runLabel).join(', ')} already stored complete; booting the rest\n`);
          for (const s of again) io.stderr(`resume: ${s.plan.runLabel} boots again: ${s.why}\n`);
        },
      });
      bar.clear();
      reportSteps(io, store, result, steps.length, opts.db, opts.detect, place.kind === 'lava' ? 'lava' : 'qemu');
      if (cost) {
        const byKernel = costRunsByKernel(store, result.steps);
        io.stdout(costSummaryText(vmCostSummary(byKernel)) + branchReport(vmBranchComparison(byKernel)));
      }
    });
  } finally {
    bar.clear();
    store.close();
  }
}

type Planned = Pick<VmRequest, 'kernels' | 'steps' | 'profiles' | 'icount' | 'cost'>;

function vmRequest(opts: VmOptions, io: CliIO, planned: Planned): VmRequest {
  return {
    ...planned,
    ops: opts.ops ?? null,
    warmups: opts.warmups,
    rounds: opts.rounds,
    accel: opts.accel,
    timeoutSeconds: opts.timeout ?? 600,
    labelPrefix: opts.labelPrefix,
    poolBoots: opts.repeat !== undefined,
    injectWork: parseInjectWork(opts.injectWork, planned.kernels.map((k) => k.label)),
    // a LAVA token typed in --target stays out of the store
    command: shellLine(['hintlab', ...redactLavaTokens(io.argv ?? [])]),
    invocation: { ...invocationOf(io), argv: redactLavaTokens(io.argv ?? []) },
    hintlabVersion: VERSION,
  };
}

/** The runs of the boots just made, grouped by kernel label in boot order (pooled boots share a run). */
function costRunsByKernel(store: Store, steps: { kernel: { label: string }; runId: number }[]) {
  const byKernel = new Map<string, ReturnType<Store['getRun']>[]>();
  for (const s of steps) {
    const list = byKernel.get(s.kernel.label) ?? [];
    if (!list.some((r) => r.id === s.runId)) list.push(store.getRun(s.runId));
    byKernel.set(s.kernel.label, list);
  }
  return byKernel;
}

/** `--inject-work LABEL=N` for kernels given with --kernel. */
function parseInjectWork(values: string[], labels: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) {
    const m = /^([^=]+)=(\d+)$/.exec(v);
    if (!m || Number(m[2]) > WORK_MAX) throw new UserError(`--inject-work takes LABEL=N with 0 <= N <= ${WORK_MAX}, got '${v}'`, 2);
    if (!labels.includes(m[1]!)) throw new UserError(`--inject-work ${v}: no --kernel is labelled '${m[1]}' (kernels: ${labels.join(', ')})`, 2);
    out[m[1]!] = Number(m[2]);
  }
  return out;
}

export function registerVm(program: Command, io: CliIO): void {
  program
    .command('vm')
    .description('boot kernels in qemu in A/B/A order, run the probe inside each, store every boot as a run')
    .option('--kernel <label=path>', 'a kernel to boot: bzImage, vmlinuz or a `hintlab kernel build` directory (repeatable)', collect, [])
    .option('--order <steps>', 'boot order: one letter per boot (ABA, ABAB) or comma-separated labels (default: A,B,A)')
    .option('--repeat <n>', 'boot each kernel N times in A B B A ... order; each kernel is one run (vm-A, vm-B) with every boot one unit', intOption('--repeat', 2))
    .option('--detect <pct>', 'say how many boots per kernel a change of this size needs, from the spread between boots', pctOption('--detect', '1%', false), 1)
    .option('-p, --profile <name>', "profile to run (repeatable, comma-separated, or 'all')", collect, [])
    .option('--ops <n>', 'calls per round for every profile (default: per profile)', intOption('--ops', 1))
    .option('--warmups <n>', 'warm-up rounds, not stored as measurements', intOption('--warmups', 0), 3)
    .option('--rounds <n>', 'measured rounds per profile and boot', intOption('--rounds', 1), 15)
    .option('--accel <mode>', 'auto (KVM if a trial boot works, else TCG), kvm or tcg', accelOption, 'auto')
    .option('--icount', "count guest instructions (qemu -icount shift=0): results in instructions/call, repeatable to ~0.01 %")
    .option('--cost', "count what each call costs the emulated machine with hintlab's qemu plugin: kernel/user instructions, taken branches, I-cache line fetches, modelled L1i misses and mispredictions, per kernel function, and every conditional branch taken or falling through at its source line (implies --icount; TCG)")
    .option('--cost-model <model>', "with --cost: the modelled L1i and predictor (default 'l1i=32k,8way,64 predictor=2bit')")
    .option('--inject-work <label=n>', 'known work: N dependent additions per call in the probe of kernel LABEL\'s boots (under --icount exactly N instructions more per call; repeatable)', collect, [])
    .option('--timeout <s>', 'seconds one boot may take before qemu is killed and the boot stored as failed (default: 600; with --macro the plan\'s length x 2 + 120)', intOption('--timeout', 5))
    .option('--label-prefix <text>', 'run labels are <prefix><kernel label>-<boot index>', labelOption('--label-prefix', true), 'vm-')
    .option('--macro', 'run stress-ng stressors in each guest instead of probe profiles (see docs/vm-macro.md)')
    .option('--stressor <name>', 'with --macro: stressor to run (repeatable or comma-separated)', collect, [])
    .option('--set <name>', "with --macro: named stressor set ('sched')", collect, [])
    .option('--instances <list>', "with --macro: instance counts, comma-separated; 'all' = one per guest CPU", '1')
    .option('--seconds <s>', 'with --macro: seconds per stress-ng invocation', intOption('--seconds', 1), 5)
    .option('--repeats <n>', 'with --macro: repeats of every stressor and instance count', intOption('--repeats', 1), 5)
    .option('--target <lava-url>', 'boot on a LAVA lab instead of local qemu: lava://[TOKEN@]SERVER[:PORT]/DEVICE_TYPE[?tags=a,b], each boot one LAVA job (token also from $HINTLAB_LAVA_TOKEN; see docs/lava.md)')
    .option('--resume', 'with --target lava://: boot only what the same order has not stored complete yet (one run per boot; not with --repeat)')
    .option('--db <path>', DB_HELP)
    .action(async (opts: VmOptions) => vmAction(opts, io));
}
