/**
 * The commands that reproduce each part of a trial, as argument lists (the
 * reporters render paths for the reader, src/report/reproduce.ts): the
 * trial itself as typed, then the five commands a user would type by hand.
 */
import { join } from 'node:path';
import type { ConfigBase } from '../kernel/inputs.ts';
import type { TrialCodegen } from './codegen.ts';
import type { ReproduceCommand, TrialKernel } from './document.ts';
import type { TrialRequest } from './request.ts';
import type { VmStepResult } from './steps.ts';
import { DEFAULT_COST_MODEL, describeCostModel } from '../vm/cost-plugin.ts';

function baseArgs(base: ConfigBase): string[] {
  if (typeof base === 'string') return base === 'tinyconfig' ? [] : ['--base', base];
  return ['--base', 'file' in base ? base.file : base.box.url];
}

function buildArgv(req: TrialRequest, k: TrialKernel, from: TrialKernel | null): string[] {
  return [
    'kernel', 'build', '--src', req.src,
    ...(from ? req.patches.flatMap((p) => ['--patch', p]) : []),
    '--behave', ...(k.role.endsWith('-debug') ? ['--debug-checks'] : []),
    ...baseArgs(req.base), ...(req.fragment ? ['--config-fragment', req.fragment] : []), '--opt', req.opt,
    ...(from ? ['--from', from.dir] : []), '--out', k.dir, '--label', k.role,
  ];
}

const dbArgs = (req: TrialRequest): string[] => (req.db === null ? [] : ['--db', req.db]);

function codegenCommands(req: TrialRequest, a: TrialKernel, codegen: TrialCodegen): ReproduceCommand[] {
  const several = req.patches.length > 1;
  return codegen.objects
    .filter((o) => o.state === 'compared')
    .map((o, i) => ({
      part: 'codegen' as const,
      argv: ['codegen', '--src', req.src, '--patch', several ? 'all.patch' : req.patches[0]!, '--obj', o.object, '--config', join(a.dir, 'config'), '--cc', codegen.compiler, '--opt', codegen.opt],
      // builds the object again in a scratch tree with A's configuration: the same compiler and flags
      ...(several && i === 0 ? { note: `hintlab codegen takes one patch: cat ${req.patches.join(' ')} > all.patch` } : {}),
    }));
}

export interface ReproduceInput {
  req: TrialRequest;
  kernels: { A: TrialKernel; B: TrialKernel; debug?: { A: TrialKernel; B: TrialKernel } };
  codegen: TrialCodegen;
  vm: VmStepResult;
  /** The stressor runs (--stressor, --set), when the trial had them. */
  stress?: { runs: VmStepResult['runs'] } | null;
}

export function reproduceCommands({ req, kernels, codegen, vm, stress }: ReproduceInput): ReproduceCommand[] {
  const threshold = req.thresholdPct !== 1 ? ['--threshold', String(req.thresholdPct)] : [];
  const { A, B, debug } = kernels;
  const behaved = debug ?? { A, B };
  const vmArgv = [
    'vm', '--kernel', `A=${A.dir}`, '--kernel', `B=${B.dir}`, '--repeat', String(req.repeat),
    ...(vm.icount ? ['--icount', '--accel', 'tcg'] : ['--accel', 'kvm']),
    // the boots ran hintlab's cost plugin: the same model, or the vm boots would count without it
    ...(req.cost ? ['--cost', ...(describeCostModel(req.cost) === describeCostModel(DEFAULT_COST_MODEL) ? [] : ['--cost-model', describeCostModel(req.cost)])] : []),
    // no --profile given: vm's default set under icount is the trial's (every one-CPU profile)
    ...(req.profileArgs.length ? ['--profile', req.profileArgs.join(',')] : []), '--rounds', String(req.rounds), '--warmups', String(req.warmups),
    ...(req.ops === null ? [] : ['--ops', String(req.ops)]),
    '--label-prefix', vm.runs.A.label.slice(0, -1),
    // the lab's address without its token ($HINTLAB_LAVA_TOKEN gives it)
    ...(req.lava ? ['--target', req.lava.name] : []),
    ...dbArgs(req),
  ];
  return [
    { part: 'trial', argv: [...req.invocation.argv] },
    { part: 'build-A', argv: buildArgv(req, A, null) },
    { part: 'build-B', argv: buildArgv(req, B, A) },
    ...(debug ? [{ part: 'build-A-debug' as const, argv: buildArgv(req, debug.A, null) }, { part: 'build-B-debug' as const, argv: buildArgv(req, debug.B, debug.A) }] : []),
    ...codegenCommands(req, A, codegen),
    {
      part: 'behave',
      argv: ['behave', '--kernel', `A=${behaved.A.dir}`, '--kernel', `B=${behaved.B.dir}`, ...req.scenarioArgs.flatMap((s) => ['--scenario', s]), ...dbArgs(req)],
    },
    { part: 'vm', argv: vmArgv },
    { part: 'compare', argv: ['compare', vm.runs.A.label, vm.runs.B.label, ...threshold, ...dbArgs(req)] },
    ...(stress ? [{ part: 'compare' as const, argv: ['compare', stress.runs.A.label, stress.runs.B.label, ...threshold, ...dbArgs(req)], note: 'the stressors (stored runs, each boot one unit)' }] : []),
  ];
}
