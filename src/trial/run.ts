/**
 * `hintlab trial` as a library call: from a tree and a patch to one
 * document with all the evidence, in the order a user would walk it by
 * hand:
 *
 *   1. build A (the tree as is) and B (A + the patches, from a copy of A's
 *      objects), both with what behave observes; with --debug-checks also
 *      a pair with the debug fragment, for the behaviour boots only (debug
 *      checks change timing, so they are never measured);
 *   2. codegen of the objects the patch touches, from A's and B's objects;
 *   3. behave A vs B;
 *   4. A/B in qemu, boots as units (A B B A A B ...), instructions per call
 *      under icount unless KVM is asked for and works;
 *   5. with --stressor/--set, stress-ng in A/B boots of the same kernels,
 *      in the same order (./stress.ts), bogo-ops per guest second;
 *   6. with --per-hunk, each hunk group alone and left out, built from A's
 *      objects and booted like B (./per-hunk.ts), one step per kernel;
 *   7. the comparison of the two runs (and of the stressor runs, and of
 *      every variant against A), which hunk explains which change, and the
 *      document.
 *
 * Every step is recorded in the store as it starts and ends (its key,
 * state, result, wall time). A step whose key matches a stored result is
 * reused and says so; a changed patch changes B's key and so everything
 * after it that depends on B. A failing or interrupted step stops the
 * trial with its own message; the steps before it stay stored.
 */
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ComparisonRefused } from '../compare/checks.ts';
import { compare } from '../compare/compare.ts';
import { trialCodegen } from './codegen.ts';
import { trialCost } from './cost.ts';
import { UserError } from '../errors.ts';
import { buildKernel, kernelBuildDir } from '../kernel/build.ts';
import { checkOwnedDir, isExistingDirectory, refuseNested } from '../kernel/owned-dir.ts';
import { checkPatchesApply, kernelVersion } from '../kernel/source.ts';
import { takePidLock } from '../store/owner.ts';
import { runBehave } from '../behave/run.ts';
import { runVm } from '../vm/runner.ts';
import { planVmMacro, runVmMacro, type VmMacroPlan } from '../vm/macro.ts';
import { measureStress, planStress, stressStep, unavailableLine } from './stress.ts';
import { runVmOnLava } from '../vm/placed.ts';
import { TRIAL_FORMAT, TRIAL_SCHEMA, type StepName, type TrialDocument, type TrialKernel, type TrialMeasured, type TrialStep } from './document.ts';
import { reproduceCommands } from './reproduce.ts';
import { measurePerHunk, planPerHunk, variantStep, type PerHunkPlan, type VariantContext, type VariantResult } from './per-hunk.ts';
import type { StepEvent, TrialDeps, TrialRequest, TrialServices } from './request.ts';
import { short } from '../kernel/git.ts';
import { commitStep, measurePerCommit, planPerCommit, type CommitResult, type CommitVariant } from './per-commit.ts';
import { placeSeries, readSeries, type SeriesPatch, type TrialSeries } from './series.ts';
import { behaveStep, buildStep, codegenStep, vmStep, type StepOutcome, type VmStepResult } from './steps.ts';

const REAL: TrialServices = { buildKernel, codegen: trialCodegen, runBehave, runVm, planVmMacro, runVmMacro, runVmOnLava };

/** Runs the steps of one trial, recording each in the store. */
class Steps {
  private index = 0;
  readonly done: TrialStep[] = [];
  constructor(
    private readonly deps: TrialDeps,
    private readonly trialId: number,
    public total: number,
  ) {}

  async run<T>(name: StepName, title: string, body: () => Promise<StepOutcome<T>>): Promise<T> {
    const index = ++this.index;
    const { store } = this.deps;
    const onStep = (e: StepEvent) => this.deps.onStep?.(e);
    onStep({ kind: 'start', index, total: this.total, name, title });
    store.trials.stepStarted(this.trialId, name, index - 1);
    const started = Date.now();
    const seconds = () => Math.round((Date.now() - started) / 100) / 10;
    let out: StepOutcome<T>;
    try {
      out = await body();
    } catch (err) {
      const interrupted = this.deps.abort.aborted;
      const message = err instanceof Error ? err.message : String(err);
      store.trials.stepFinished(this.trialId, name, { key: null, state: interrupted ? 'interrupted' : 'failed', result: undefined, seconds: seconds(), error: message });
      onStep({ kind: 'failed', index, total: this.total, name, title, seconds: seconds(), error: message, interrupted });
      const kept = index > 1 ? `; the ${index - 1} step(s) before it are stored and a rerun reuses them` : '';
      const code = interrupted ? 130 : err instanceof UserError ? err.exitCode : 1;
      if (!(err instanceof UserError) && !interrupted) throw err;
      throw new UserError(`trial #${this.trialId} stopped at step ${index}/${this.total} (${title})${kept}:\n${message}`, code);
    }
    const step: TrialStep = { name, title, state: out.state, seconds: seconds(), key: out.key, summary: out.summary, ...(out.earlierSeconds !== undefined ? { earlierSeconds: out.earlierSeconds } : {}) };
    store.trials.stepFinished(this.trialId, name, { key: out.key, state: out.state, result: out.result, seconds: step.seconds, error: null });
    this.done.push(step);
    onStep({ kind: 'end', index, total: this.total, step });
    return out.result;
  }
}

/**
 * Before anything is written or removed: the tree is neither inside nor
 * above --out (the lock would be the first thing written into the user's
 * tree; a tree inside --out/A/work would be cleared by build A), --out is a
 * directory or nothing yet, and each kernel's build directory is hintlab's.
 */
function checkPlaces(req: TrialRequest): void {
  refuseNested({ flag: '--src', path: req.src }, { flag: '--out', path: req.out }, "put the trial's builds outside the kernel tree (it is copied whole)");
  isExistingDirectory('--out', req.out, "give a new directory (hintlab creates it) or an earlier trial's --out");
  for (const role of req.debugChecks ? ['A', 'B', 'A-debug', 'B-debug'] : ['A', 'B']) {
    checkOwnedDir(kernelBuildDir(join(req.out, role), `--out ${req.out}: its build directory`));
  }
}

/** One trial per output directory at a time: two would build into the same A and B. */
function lock(out: string): () => void {
  mkdirSync(out, { recursive: true });
  const taken = takePidLock(join(out, 'lock'));
  if ('heldBy' in taken) throw new UserError(`${out} is in use by hintlab process ${taken.heldBy} (another trial); wait for it, or give this trial another --out`, 2);
  return taken.release;
}

function measure(deps: TrialDeps, req: TrialRequest, vm: VmStepResult): TrialMeasured {
  let comparison;
  try {
    comparison = compare({ a: deps.store.getRun(vm.runs.A.id), b: deps.store.getRun(vm.runs.B.id) }, { thresholdPct: req.thresholdPct });
  } catch (err) {
    if (err instanceof ComparisonRefused) throw new UserError(`the runs ${vm.runs.A.label} and ${vm.runs.B.label} cannot be compared: ${err.message}`);
    throw err;
  }
  return { runs: vm.runs, order: vm.order, accel: vm.accel, icount: vm.icount, unit: vm.unit, profiles: req.profiles.map((p) => p.name), rounds: req.rounds, warmups: req.warmups, ops: req.ops, comparison };
}

const patchWord = (n: number): string => `${n} patch${n === 1 ? '' : 'es'}`;

/**
 * --per-hunk's variants (each group alone and left out, from A's objects)
 * and --per-commit's kernels (A plus the first k patches, each from the
 * one before's objects), one stored step each.
 */
async function variantSteps(s: Steps, placed: Placed, ctx: VariantContext, hunks: PerHunkPlan | null, prefixes: CommitVariant[]): Promise<{ variants: VariantResult[]; commits: CommitResult[] }> {
  const { req, series } = placed;
  const variants: VariantResult[] = [];
  for (const v of hunks?.variants ?? []) {
    variants.push(await s.run(`hunk-${v.name}`, `${v.kind === 'alone' ? 'A + group' : 'B without group'} ${v.group} (hunk${v.hunks.length === 1 ? '' : 's'} ${v.hunks.join(', ')}): build from A's objects and boot`, () => variantStep({ ...ctx, plan: hunks! }, v)));
  }
  const commits: CommitResult[] = [];
  let from = { name: 'A', dir: ctx.a.dir };
  for (const v of prefixes) {
    const subject = series.patches[v.commits - 1]?.subject ?? basename(req.patches[v.commits - 1]!);
    const r = await s.run(v.name as `commit-${string}`, `A + patches 1-${v.commits} of ${req.patches.length} (up to ${JSON.stringify(subject)}): build from ${from.name}'s objects and boot`, () => commitStep(ctx, v, from));
    commits.push(r);
    if (r.state === 'measured') from = { name: r.name, dir: r.dir };
  }
  return { variants, commits };
}

/** The trial's inputs as the builds read them: the tree A is, B's patch files, and what the series is. */
interface Placed {
  req: TrialRequest;
  series: TrialSeries;
}

async function steps(placed: Placed, deps: TrialDeps, services: TrialServices, trialId: number, plan: VmMacroPlan | null, src: string): Promise<TrialDocument> {
  const { req, series } = placed;
  // the series' kernels are known now; the hunk variants only once B is built
  const prefixes = req.perCommit ? planPerCommit(req.patches.length) : [];
  const s = new Steps(deps, trialId, (req.debugChecks ? 7 : 5) + (plan ? 1 : 0) + prefixes.length);
  const A = await s.run('build-A', series.git ? `build A (${short(series.git.base)})` : 'build A (the tree as is)', () => buildStep('A', req, deps, services, { patches: false, from: null }));
  const B = await s.run('build-B', `build B (A + ${patchWord(req.patches.length)}, from A's objects)`, () => buildStep('B', req, deps, services, { patches: true, from: A.dir }));
  const hunks = req.perHunk ? planPerHunk(A, B) : null;
  if (hunks?.skipped) deps.onNote?.(hunks.skipped);
  if (req.perCommit && prefixes.length === 0) deps.onNote?.('--per-commit: the series is one patch, so B is its only kernel: nothing more to build');
  s.total += hunks?.variants.length ?? 0;
  let debug: { A: TrialKernel; B: TrialKernel } | undefined;
  if (req.debugChecks) {
    const dA = await s.run('build-A-debug', 'build A with --debug-checks (behaviour boots only)', () => buildStep('A-debug', req, deps, services, { patches: false, from: null }));
    const dB = await s.run('build-B-debug', 'build B with --debug-checks (from A-debug\'s objects)', () => buildStep('B-debug', req, deps, services, { patches: true, from: dA.dir }));
    debug = { A: dA, B: dB };
  }
  const codegen = await s.run('codegen', 'codegen of the objects the patch touches', () => codegenStep(req, deps, services, A, B));
  const behaved = debug ?? { A, B };
  const behave = await s.run('behave', `behave A vs B${debug ? ' (the --debug-checks kernels)' : ''}`, () => behaveStep(req, deps, services, [behaved.A, behaved.B]));
  const vm = await s.run('vm', `A/B in VMs (${req.kvm ? 'KVM, ns' : 'qemu -icount, instructions'}; ${req.repeat} boots per kernel)`, () => vmStep(req, deps, services, trialId, A, B));
  const stress = plan
    ? await s.run('stress', `stressors A/B in VMs (${req.kvm ? 'KVM, bogo-ops/s' : 'qemu -icount, bogo-ops per guest second'}; ${req.repeat} boots per kernel)`, () => stressStep(req, deps, services, trialId, plan, A, B))
    : null;
  const { variants, commits } = await variantSteps(s, placed, { req, deps, services, trialId, stressPlan: plan, a: A }, hunks, prefixes);
  const measured = measure(deps, req, vm);
  const cost = req.cost ? trialCost(deps.store, vm.runs, { model: req.cost, codegen, thresholdPct: req.thresholdPct }) : undefined;
  const stressors = stress ? measureStress(deps, req, stress) : undefined;
  const perHunk = hunks
    ? measurePerHunk(deps, req, hunks, variants, { profiles: measured.comparison, profilesA: vm.runs.A.id, stressors: stressors?.comparison ?? null, stressorsA: stress?.runs.A.id ?? null })
    : undefined;
  const perCommit = req.perCommit
    ? measurePerCommit(deps, req, series.patches, commits, { runs: vm.runs, stressRuns: stress?.runs ?? null, profiles: measured.comparison, stressors: stressors?.comparison ?? null })
    : undefined;
  return {
    format: TRIAL_FORMAT,
    schema: TRIAL_SCHEMA,
    trialId,
    hintlabVersion: req.hintlabVersion,
    source: { dir: src, version: A.manifest.source.version },
    ...(series.git ? { git: series.git } : {}),
    out: req.out,
    patches: B.manifest.patches.map((p, i) => ({ path: p.path, sha256: p.sha256, files: p.files, ...seriesFields(series.patches[i]), ...(p.applied ? { applied: p.applied } : {}) })),
    kernels: { A, B, ...(debug ? { debug } : {}) },
    codegen,
    behave: { kernels: debug ? 'debug-checks' : 'measured', document: behave },
    measured,
    ...(stressors ? { stressors } : {}),
    ...(perHunk ? { perHunk } : {}),
    ...(perCommit ? { perCommit } : {}),
    ...(cost ? { cost } : {}),
    steps: s.done,
    cwd: req.invocation.cwd,
    db: req.db,
    reproduce: reproduceCommands({ req, kernels: { A, B, ...(debug ? { debug } : {}) }, codegen, vm, stress }),
  };
}

/** A patch's subject, author and commit for the document, where the series has them. */
function seriesFields(p: SeriesPatch | undefined): { subject?: string; author?: string; commit?: string } {
  if (!p) return {};
  return { ...(p.subject !== null ? { subject: p.subject } : {}), ...(p.author !== null ? { author: p.author } : {}), ...(p.commit !== null ? { commit: p.commit } : {}) };
}

/**
 * Under the lock: the series' files and BASE's tree written into --out;
 * a range's tree and patches then checked as plain patches were (a kernel
 * tree, patches that apply) before anything is built or stored.
 */
async function place(req: TrialRequest, series: TrialSeries, deps: TrialDeps): Promise<Placed> {
  const where = await placeSeries(series, req.src, req.out, deps.abort, (line) => deps.onDetail?.(line));
  const placed = { ...req, src: where.src, patches: where.patches };
  if (series.git) {
    kernelVersion(placed.src);
    checkPatchesApply(placed.src, placed.patches);
  }
  return { req: placed, series };
}

/** Run a trial: every step in order, each stored; returns the document. */
export async function runTrial(req: TrialRequest, deps: TrialDeps): Promise<TrialDocument> {
  if (!req.range) kernelVersion(req.src); // not a kernel tree: said before anything is created
  const series = readSeries(req); // an unknown ref, a message that is no patch: said before anything is created
  checkPlaces(req);
  // a patch that cannot apply fails now, not after building A (a range's commits apply to BASE by construction, checked once it is exported)
  if (!series.git) checkPatchesApply(req.src, series.patches.map((p) => p.file ?? { path: p.origin.replace(/^--patch /, ''), text: p.text }));
  const services: TrialServices = { ...REAL, ...deps.services };
  const plan = await planStress(req, deps.stressNg, (r, n) => services.planVmMacro(r, n)); // an unknown stressor too
  for (const note of deps.notes ?? []) deps.onNote?.(note);
  const lacking = plan && unavailableLine(plan);
  if (lacking) deps.onNote?.(lacking);
  const unlock = lock(req.out);
  let trialId: number | null = null;
  try {
    const placed = await place(req, series, deps);
    trialId = deps.store.trials.create({ outDir: req.out, request: { ...req, scenarios: req.scenarios.map((x) => x.name), profiles: req.profiles.map((p) => p.name) }, command: req.command });
    const doc = await steps(placed, deps, services, trialId, plan, req.src);
    deps.store.trials.finish(trialId, 'complete', null);
    return doc;
  } catch (err) {
    if (trialId !== null) deps.store.trials.finish(trialId, deps.abort.aborted ? 'interrupted' : 'failed', err instanceof Error ? err.message : String(err));
    throw err;
  } finally {
    unlock();
  }
}
