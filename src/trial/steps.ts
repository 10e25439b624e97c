/**
 * The bodies of a trial's steps. Each returns its result with the key of
 * what determined it and whether it was made now or reused:
 *
 * - builds: buildKernel reuses a build directory whose manifest has the
 *   same input key (tree, patches, base, fragments, -O, compiler);
 * - codegen: a stored result for the same two builds (their input keys);
 * - behave: runBehave reuses each kernel's stored trace (image hash,
 *   scenario plan, runner build, guest conditions);
 * - vm: stored runs for the same two images, plan, probe build and clock,
 *   when they are still complete in the database.
 */
import { describeCostModel } from '../vm/cost-plugin.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import { existingLayout } from '../kernel/layout.ts';
import type { NamedFragment } from '../kernel/config.ts';
import { chooseAccel, type AccelChoice } from '../vm/accel.ts';
import { resolveKernel, type VmKernel } from '../vm/kernels.ts';
import { repeatOrder, type VmDeps, type VmRequest, type VmResult } from '../vm/runner.ts';
import type { VmMacroDeps } from '../vm/macro.ts';
import { describeLavaProgress } from '../targets/lava/target.ts';
import type { Unit } from '../model.ts';
import { notJudgedSteps, type BehaveDocument } from '../behave/compare.ts';
import type { TrialCodegen } from './codegen.ts';
import type { TrialKernel } from './document.ts';
import { sha256, stepKey, type TrialDeps, type TrialRequest, type TrialServices } from './request.ts';
import { formatSeconds } from '../format/durations.ts';

export interface StepOutcome<T> {
  key: string;
  state: 'done' | 'reused';
  result: T;
  summary: string;
  earlierSeconds?: number;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** Build (or reuse) one kernel of the trial into `<out>/<role>`. */
export async function buildStep(
  role: TrialKernel['role'],
  req: TrialRequest,
  deps: TrialDeps,
  services: TrialServices,
  b: { patches: boolean; from: string | null },
): Promise<StepOutcome<TrialKernel>> {
  const fragments: NamedFragment[] = role.endsWith('-debug') ? ['behave', 'debug-checks'] : ['behave'];
  const r = await services.buildKernel(
    {
      src: req.src,
      patches: b.patches ? req.patches : [],
      fragment: req.fragment,
      base: req.base,
      opt: req.opt,
      fragments,
      out: join(req.out, role),
      label: role,
      jobs: req.jobs,
      from: b.from,
    },
    { abort: deps.abort, onPhase: deps.onDetail, onCompiled: deps.onCompiled },
  );
  const m = r.manifest;
  const kernel: TrialKernel = { role, dir: r.dir, image: join(r.dir, m.image), state: r.state === 'reused' ? 'reused' : 'built', manifest: m };
  const from = m.incremental ? ` from ${m.incremental.label}'s objects` : '';
  const summary =
    r.state === 'reused'
      ? `reused: inputs unchanged since it was built (in ${m.buildSeconds} s, at ${m.builtAt})`
      : `built${from}, ${m.objectsCompiled ?? '?'} objects compiled`;
  return { key: m.inputKey, state: r.state === 'reused' ? 'reused' : 'done', result: kernel, summary, ...(r.state === 'reused' ? { earlierSeconds: m.buildSeconds } : {}) };
}

/** The codegen step over A's and B's objects, or its stored result for the same two builds. */
export async function codegenStep(req: TrialRequest, deps: TrialDeps, services: TrialServices, a: TrialKernel, b: TrialKernel): Promise<StepOutcome<TrialCodegen>> {
  const files = [...new Set(b.manifest.patches.flatMap((p) => p.files))].sort();
  const key = stepKey('codegen', { a: a.manifest.inputKey, b: b.manifest.inputKey, files, limit: req.maxObjects });
  const stored = deps.store.trials.findResult('codegen', key);
  const summary = (r: TrialCodegen): string => codegenSummary(r);
  if (stored && isCodegen(stored.result)) return { key, state: 'reused', result: stored.result, summary: `reused: ${summary(stored.result)}`, ...(stored.seconds !== null ? { earlierSeconds: stored.seconds } : {}) };
  const side = (k: TrialKernel) => ({ label: k.role, obj: existingLayout(k.dir).obj, tree: existingLayout(k.dir).tree });
  const result = await services.codegen({
    a: side(a),
    b: side(b),
    files,
    opt: a.manifest.opt,
    compiler: 'gcc',
    subject: { tree: req.src, patch: req.patches.join(', '), config: join(a.dir, 'config') },
    limit: req.maxObjects,
  });
  return { key, state: 'done', result, summary: summary(result) };
}

function isCodegen(v: unknown): v is TrialCodegen {
  return typeof v === 'object' && v !== null && Array.isArray((v as TrialCodegen).objects) && typeof (v as TrialCodegen).opt === 'string';
}

/** "1 object compared (kernel/sched/build_policy.o), 3 byte-identical". */
export function codegenSummary(r: TrialCodegen): string {
  const count = (s: string) => r.objects.filter((o) => o.state === s).length;
  const compared = r.objects.filter((o) => o.state === 'compared').map((o) => o.object);
  const parts = [`${plural(compared.length, 'object')} compared${compared.length ? ` (${compared.slice(0, 3).join(', ')}${compared.length > 3 ? ', ...' : ''})` : ''}`];
  if (count('identical-bytes')) parts.push(`${count('identical-bytes')} byte-identical`);
  if (count('not-compared')) parts.push(`${count('not-compared')} not compared (--max-objects ${r.limit})`);
  if (r.objects.length === 0) return `no object of the build reads ${r.files.join(', ')}`;
  return parts.join(', ');
}

export function vmKernel(label: string, k: TrialKernel, cwd: string): VmKernel {
  return resolveKernel(`${label}=${k.dir}`, cwd);
}

/** The step's one-line verdict: what was judged, and how many steps A did not repeat. */
function behaveVerdict(doc: BehaveDocument): string {
  if (doc.identical) return `${plural(doc.steps, 'step')} identical`;
  const unjudged = notJudgedSteps(doc);
  return `${plural(doc.divergences.length, 'divergence')} in ${doc.steps} steps${doc.notJudged.length ? `; ${unjudged ? `${plural(unjudged, 'step')} ` : ''}not judged (A varied)` : ''}`;
}

/** Behave A vs B (or the debug-checks pair); each kernel's trace reused from the store when it is there. */
export async function behaveStep(req: TrialRequest, deps: TrialDeps, services: TrialServices, pair: [TrialKernel, TrialKernel]): Promise<StepOutcome<BehaveDocument>> {
  const kernels = [vmKernel('A', pair[0], req.invocation.cwd), vmKernel('B', pair[1], req.invocation.cwd)] as const;
  const doc = await services.runBehave(
    { kernels, scenarios: req.scenarios, timeoutSeconds: req.timeoutSeconds, hintlabVersion: req.hintlabVersion },
    {
      store: deps.store,
      launcher: deps.launcher,
      probe: deps.probe,
      abort: deps.abort,
      cacheDir: deps.cacheDir,
      onBoot: (label, state, seconds) =>
        deps.onDetail?.(state === 'reused' ? `kernel ${label}: trace reused from the store` : state === 'booting' ? `kernel ${label}: booting (icount, 1 CPU)` : `kernel ${label}: trace in ${seconds === undefined ? '? s' : formatSeconds(seconds, 1)}`),
    },
  );
  const sides = [doc.a, doc.b, ...(doc.aAgain ? [doc.aAgain] : [])];
  const reused = sides.every((k) => k.reused);
  const stored = sides.filter((k) => k.reused).map((k) => k.label);
  const earlier = sides.reduce((n, k) => n + (k.bootSeconds ?? 0), 0);
  return {
    key: stepKey('behave', { a: doc.a.traceKey, b: doc.b.traceKey, aAgain: doc.aAgain?.traceKey }),
    state: reused ? 'reused' : 'done',
    result: doc,
    summary: reused ? `reused: ${behaveVerdict(doc)} (every trace from the store)` : `${behaveVerdict(doc)}${stored.length ? ` (${stored.length === 1 ? `${stored[0]}'s trace` : `the traces of ${stored.join(' and ')}`} from the store)` : ''}`,
    ...(reused ? { earlierSeconds: Math.round(earlier * 10) / 10 } : {}),
  };
}

/** The stored shape of the vm step. */
export interface VmStepResult {
  runs: { A: { id: number; label: string }; B: { id: number; label: string } };
  order: string[];
  accel: AccelChoice;
  icount: boolean;
  unit: Unit;
  bootSeconds: number;
}

function isVmResult(v: unknown): v is VmStepResult {
  const r = v as { runs?: { A?: { id?: unknown }; B?: { id?: unknown } }; order?: unknown };
  return typeof v === 'object' && v !== null && typeof r.runs?.A?.id === 'number' && typeof r.runs.B?.id === 'number' && Array.isArray(r.order);
}

/** Stored runs still there and complete: a stored step result that names them holds. */
export function runsComplete(deps: TrialDeps, ids: number[]): boolean {
  try {
    return ids.every((id) => deps.store.getRun(id).status === 'complete');
  } catch {
    return false;
  }
}

/** Every failure of the boots as one message, or null when all completed. */
export function vmFailure(result: Pick<VmResult, 'state' | 'steps'>): UserError | null {
  if (result.state === 'interrupted') return new UserError(`interrupted after ${result.steps.length} boots; qemu was stopped and the runs are stored as failed`, 130);
  const failed = result.steps.find((s) => s.state === 'failed');
  if (failed) return new UserError(`boot ${failed.bootIndex} of kernel ${failed.kernel.label} failed (run #${failed.runId} stored as failed):\n${failed.reason}`);
  return null;
}

/** The boots' callbacks: the accelerator's check (never ns from TCG) and one line per boot. */
export function vmDeps(req: TrialRequest, deps: TrialDeps, boots: number): VmDeps & Pick<VmMacroDeps, 'launcher'> {
  const accelOf = deps.chooseAccel ?? chooseAccel;
  return {
    store: deps.store,
    launcher: deps.launcher,
    probe: deps.probe,
    abort: deps.abort,
    cacheDir: deps.cacheDir,
    costPlugin: deps.costPlugin,
    chooseAccel: async (requested, icount, trial) => {
      const choice = await accelOf(requested, icount, trial);
      // --kvm measures time only where KVM really runs the guest
      if (req.kvm && choice.accel !== 'kvm') throw new UserError(`--kvm: ${choice.why}; drop --kvm to count instructions under qemu -icount instead`, 2);
      return choice;
    },
    onAccel: (c) => deps.onDetail?.(`accelerator: ${c.accel} (${c.why})`),
    onStepStart: (s) => deps.onDetail?.(`boot ${s.index + 1}/${boots}: kernel ${s.kernel.label}`),
    onStepEnd: (s) => deps.onDetail?.(`  boot ${s.bootIndex} of ${s.kernel.label}: ${s.state === 'complete' ? `complete (${formatSeconds(s.seconds, 1)})` : 'FAILED'}`),
  };
}

function describeVm(r: VmStepResult): string {
  return `${r.order.length} boots (${r.order.join(' ')}), ${r.icount ? 'qemu -icount: instructions per call' : `${r.accel.accel}: ${r.unit}`}; runs ${r.runs.A.label}, ${r.runs.B.label}`;
}

/** What the boots measured, once every boot completed. */
function vmStepResult(result: VmResult, order: string[], icount: boolean): VmStepResult {
  const runOf = (label: 'A' | 'B') => {
    const s = result.steps.find((x) => x.kernel.label === label)!;
    return { id: s.runId, label: s.runLabel };
  };
  const bootSeconds = result.steps.reduce((t, s) => t + (s.state === 'complete' ? s.seconds : 0), 0);
  return { runs: { A: runOf('A'), B: runOf('B') }, order, accel: result.accel, icount, unit: result.unit, bootSeconds: Math.round(bootSeconds * 10) / 10 };
}

export const imageHash = (image: string): string => sha256(readFileSync(image));

/** What decides the profile boots' figures besides the kernel images: part of every key over them. */
export function bootInputs(req: TrialRequest, deps: TrialDeps): Record<string, unknown> {
  const plan = { profiles: req.profiles.map((p) => p.name), ops: req.ops, rounds: req.rounds, warmups: req.warmups, repeat: req.repeat };
  const cost = req.cost ? { model: describeCostModel(req.cost), plugin: deps.costPlugin?.buildId } : null;
  // a lab's boots are another measurement than this machine's: its address (never the token) is in the key
  const lab = req.lava ? { lava: req.lava.name } : {};
  return { ...plan, kvm: req.kvm, probe: deps.probe.buildId, ...(cost ? { cost } : {}), ...lab };
}

/**
 * Boots of the trial's kernels in `order` running the profiles (qemu here,
 * or a LAVA lab with --target), each kernel one run pooled over its boots;
 * a failed or interrupted boot is thrown as the trial's error.
 */
export async function bootProfiles(req: TrialRequest, deps: TrialDeps, services: TrialServices, trialId: number, kernels: VmKernel[], order: string[]): Promise<VmResult> {
  const vmReq: VmRequest = {
    kernels,
    steps: order,
    profiles: req.profiles,
    ops: req.ops,
    rounds: req.rounds,
    warmups: req.warmups,
    accel: req.kvm ? 'auto' : 'tcg',
    icount: !req.kvm,
    cost: req.cost ?? null,
    timeoutSeconds: req.timeoutSeconds,
    labelPrefix: `trial${trialId}-`,
    poolBoots: true,
    command: req.command,
    invocation: req.invocation,
    hintlabVersion: req.hintlabVersion,
  };
  const vmd = vmDeps(req, deps, order.length);
  const result = req.lava
    ? await services.runVmOnLava(vmReq, { ...vmd, address: req.lava, onLavaProgress: (p) => deps.onDetail?.(`  ${describeLavaProgress(p)}`) })
    : await services.runVm(vmReq, vmd);
  const failure = vmFailure(result);
  if (failure) throw failure;
  return result;
}

/** A/B in qemu: icount by default (instructions per call), KVM ns only where a KVM trial boot works and --kvm asks for it. */
export async function vmStep(req: TrialRequest, deps: TrialDeps, services: TrialServices, trialId: number, a: TrialKernel, b: TrialKernel): Promise<StepOutcome<VmStepResult>> {
  const key = stepKey('vm', { a: imageHash(a.image), b: imageHash(b.image), ...bootInputs(req, deps) });
  const stored = deps.store.trials.findResult('vm', key);
  if (stored && isVmResult(stored.result) && runsComplete(deps, [stored.result.runs.A.id, stored.result.runs.B.id])) {
    return { key, state: 'reused', result: stored.result, summary: `reused: ${describeVm(stored.result)}`, earlierSeconds: stored.result.bootSeconds };
  }
  const order = repeatOrder(['A', 'B'], req.repeat);
  const result = await bootProfiles(req, deps, services, trialId, [vmKernel('A', a, req.invocation.cwd), vmKernel('B', b, req.invocation.cwd)], order);
  const r = vmStepResult(result, order, !req.kvm);
  return { key, state: 'done', result: r, summary: describeVm(r) };
}
