/**
 * `trial --per-hunk`: which hunk of the change moved which subject.
 *
 * From A's objects (incremental builds of a few objects each) hintlab
 * builds one kernel per hunk group alone (A + that group) and, when there
 * are more than two groups, one per group left out (B without it); boots
 * each in the measured step's conditions (its profiles, and its stressors
 * with --stressor/--set), `--repeat` boots as one run, and compares it
 * with A's run from the measured step. Under icount the counts of A's
 * boots repeat exactly, so a variant needs no fresh A beside it; under
 * --kvm its comparison carries compare's caveat for separate runs.
 *
 * Each variant is a step of the trial, stored with its key (the variant's
 * image and the boot plan): a rerun reuses it, and its kernel's build is
 * reused by the build's own key. A variant that does not compile on its
 * own (a dependency the grouping could not see) is recorded as such with
 * the compiler's error lines, and the trial goes on.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ComparisonRefused } from '../compare/checks.ts';
import { compare } from '../compare/compare.ts';
import type { Comparison } from '../compare/types.ts';
import { UserError } from '../errors.ts';
import { kernelBuildDir } from '../kernel/build.ts';
import { existingLayout } from '../kernel/layout.ts';
import { checkOwnedDir } from '../kernel/owned-dir.ts';
import { repeatOrder } from '../vm/runner.ts';
import type { VmMacroPlan } from '../vm/macro.ts';
import { writeAtomically } from '../write-file.ts';
import { attribute } from './attribute.ts';
import type { StepName, TrialKernel, TrialPerHunk, TrialVariant, VariantRow } from './document.ts';
import { changeHunks, groupHunks, variantPatch, type Hunk, type HunkGroup } from './hunks.ts';
import { sha256, stepKey, type TrialDeps, type TrialRequest, type TrialServices } from './request.ts';
import { bootProfiles, bootInputs, imageHash, runsComplete, type StepOutcome } from './steps.ts';
import { resolveKernel } from '../vm/kernels.ts';
import { bootStressors, stressInputs } from './stress.ts';

export interface Variant {
  /** `alone-2`, `without-3`: the kernel's label and build directory under --out/hunks. */
  name: string;
  kind: 'alone' | 'without';
  group: number;
  /** The hunks it applies to A. */
  hunks: number[];
}

/** What the per-hunk part works on: the hunks, their groups and the variants to build. */
export interface PerHunkPlan {
  hunks: Hunk[];
  groups: HunkGroup[];
  variants: Variant[];
  /** Why nothing is built (one group: B is its only variant). */
  skipped: string | null;
}

/** The stored result of one variant kernel's step (a hunk group's, a series prefix's): measured, or why it did not build. */
export type Measured<V> = V &
  (
    | { state: 'measured'; image: string; dir: string; build: { seconds: number; objectsCompiled: number | null; reused: boolean }; runs: { id: number; label: string }; stressRuns: { id: number; label: string } | null; bootSeconds: number }
    | { state: 'unbuilt'; error: string }
  );

/** The stored result of one hunk variant's step. */
export type VariantResult = Measured<Variant>;

/** Each group alone; each group left out when there are more than two (with two, leaving one out is the other alone). */
export function planVariants(groups: readonly HunkGroup[]): Variant[] {
  const all = groups.flatMap((g) => g.hunks);
  const alone = groups.map((g): Variant => ({ name: `alone-${g.index}`, kind: 'alone', group: g.index, hunks: g.hunks }));
  if (groups.length <= 2) return alone;
  const without = groups.map((g): Variant => ({ name: `without-${g.index}`, kind: 'without', group: g.index, hunks: all.filter((h) => !g.hunks.includes(h)) }));
  return [...alone, ...without];
}

/**
 * What a build from A's objects and a boot take: a trial of a one-file hint
 * on linux-source-6.12, 2 cores, load 6-9 built B in 21 s (4 objects) and
 * booted 6 times in 79 s (docs/trial-per-hunk.md, "Per hunk"). The basis of the
 * --per-hunk estimate before anything builds.
 */
export const VARIANT_BUILD_SECONDS = 21;
export const BOOT_SECONDS = 13;
/** Variant kernels --per-hunk builds without --force (12 hunks: each alone and B without each). */
export const PER_HUNK_MAX_KERNELS = 24;

/** The most --per-hunk can plan for `hunks` hunks (each its own group), and its time at the reference figures. */
export interface PerHunkEstimate {
  hunks: number;
  kernels: number;
  boots: number;
  seconds: number;
}

/** Each hunk alone, and (over two) B without each; every kernel booted `repeat` times, twice with stressors. */
export function estimatePerHunk(hunks: number, repeat: number, stressors: boolean): PerHunkEstimate {
  const kernels = hunks < 2 ? 0 : hunks <= 2 ? hunks : 2 * hunks;
  const boots = kernels * repeat * (stressors ? 2 : 1);
  return { hunks, kernels, boots, seconds: kernels * VARIANT_BUILD_SECONDS + boots * BOOT_SECONDS };
}

/** The hunks of B against A (from the two build trees) and the variants to measure. */
export function planPerHunk(a: TrialKernel, b: TrialKernel): PerHunkPlan {
  const files = [...new Set(b.manifest.patches.flatMap((p) => p.files))].sort();
  const hunks = changeHunks(existingLayout(a.dir).tree, existingLayout(b.dir).tree, files);
  const groups = groupHunks(hunks);
  if (groups.length < 2) {
    const what = hunks.length === 1 ? 'the change is one hunk' : `its ${hunks.length} hunks are one group (tied by ${groups[0]?.names.join(', ') || 'nothing'})`;
    return { hunks, groups, variants: [], skipped: `--per-hunk: ${hunks.length === 0 ? 'B does not differ from A in the patched files' : what}, so B is its only variant: nothing more to build` };
  }
  return { hunks, groups, variants: planVariants(groups), skipped: null };
}

const MAKE_FAILED = / failed \(make exit \d+\)/;

/** How one variant kernel is built: the tree plus `patches`, from the objects of the build in `from`, into `out`. */
export interface VariantBuild {
  /** The step it is stored as (`hunk-alone-2`, `commit-3`). */
  step: StepName;
  out: string;
  patches: string[];
  from: string;
  /** The text of what it applies, keying a variant that does not compile. */
  patchText: string;
  /** Whose objects it starts from, for its summary line (`A`, `commit-1`). */
  fromName: string;
}

/** Build one variant from another build's objects; null with the error when it does not compile. */
async function buildVariant(ctx: VariantContext, name: string, b: VariantBuild) {
  const { req, deps, services } = ctx;
  try {
    return await services.buildKernel(
      { src: req.src, patches: b.patches, fragment: req.fragment, base: req.base, opt: req.opt, fragments: ['behave'], out: b.out, label: name, jobs: req.jobs, from: b.from },
      { abort: deps.abort, onPhase: (line) => deps.onDetail?.(line), onCompiled: (n, object) => deps.onCompiled?.(n, object) },
    );
  } catch (err) {
    if (deps.abort.aborted || !(err instanceof UserError) || !MAKE_FAILED.test(err.message)) throw err;
    return { error: err.message.split('\nfull log:')[0]! };
  }
}

/** The variant's patch file under --out/hunks (rewritten only when it changed, so its build stays reusable). */
function writeVariantPatch(req: TrialRequest, plan: PerHunkPlan, v: Variant): { path: string; text: string } {
  const dir = join(req.out, 'hunks');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${v.name}.patch`);
  const text = variantPatch(plan.hunks, new Set(v.hunks));
  if (!existsSync(path) || readFileSync(path, 'utf8') !== text) writeAtomically(path, text);
  return { path, text };
}


/** What every variant step of a trial shares. */
export interface VariantContext {
  req: TrialRequest;
  deps: TrialDeps;
  services: TrialServices;
  trialId: number;
  stressPlan: VmMacroPlan | null;
  a: TrialKernel;
}

/** One hunk variant: its patch written under --out/hunks, built from A's objects and booted like B. */
export async function variantStep(ctx: VariantContext & { plan: PerHunkPlan }, v: Variant): Promise<StepOutcome<VariantResult>> {
  const { req, plan, a } = ctx;
  checkOwnedDir(kernelBuildDir(join(req.out, 'hunks', v.name), `--out ${req.out}: the build directory of ${v.name}`));
  const patch = writeVariantPatch(req, plan, v);
  return measureVariant(ctx, v, { step: `hunk-${v.name}`, out: join(req.out, 'hunks', v.name), patches: [patch.path], from: a.dir, patchText: patch.text, fromName: 'A' });
}

/**
 * One variant kernel: build it (or reuse the build), boot it like B in the
 * measured step's conditions, store its runs. Its key is over its image and
 * the boot plan, so a rerun reuses the boots while the image is the same.
 */
export async function measureVariant<V extends { name: string }>(ctx: VariantContext, v: V, b: VariantBuild): Promise<StepOutcome<Measured<V>>> {
  const { req, deps, services, trialId, stressPlan, a } = ctx;
  const built = await buildVariant(ctx, v.name, b);
  if ('error' in built) {
    const key = stepKey(b.step, { a: a.manifest.inputKey, patch: sha256(b.patchText), unbuilt: true });
    return { key, state: 'done', result: { ...v, state: 'unbuilt', error: built.error }, summary: `does not build${b.fromName === 'A' ? ' alone' : ''}: ${built.error.split('\n')[1]?.trim() ?? built.error}` };
  }
  const image = join(built.dir, built.manifest.image);
  const key = stepKey(b.step, { v: imageHash(image), ...bootInputs(req, deps), ...(stressPlan ? { stress: stressInputs(req, deps, stressPlan) } : {}) });
  const buildInfo = { seconds: built.manifest.buildSeconds, objectsCompiled: built.manifest.objectsCompiled ?? null, reused: built.state === 'reused' };
  const stored = deps.store.trials.findResult(b.step, key)?.result as Measured<V> | undefined;
  if (stored?.state === 'measured' && runsComplete(deps, [stored.runs.id, ...(stored.stressRuns ? [stored.stressRuns.id] : [])])) {
    const r: Measured<V> = { ...stored, ...v };
    return { key, state: 'reused', result: r, summary: `reused: ${describe(r, b.fromName)}`, earlierSeconds: r.bootSeconds };
  }
  const kernel = resolveKernel(`${v.name}=${built.dir}`, req.invocation.cwd);
  const order = repeatOrder([v.name], req.repeat);
  const boots = await bootProfiles(req, deps, services, trialId, [kernel], order);
  const stress = stressPlan ? await bootStressors(req, deps, services, trialId, stressPlan, [kernel], order) : null;
  const runOf = (steps: { runId: number; runLabel: string }[]) => ({ id: steps[0]!.runId, label: steps[0]!.runLabel });
  const seconds = [...boots.steps, ...(stress?.steps ?? [])].reduce((t, s) => t + (s.state === 'complete' ? s.seconds : 0), 0);
  const result: Measured<V> = { ...v, state: 'measured', image, dir: built.dir, build: buildInfo, runs: runOf(boots.steps), stressRuns: stress ? runOf(stress.steps) : null, bootSeconds: Math.round(seconds * 10) / 10 };
  return { key, state: 'done', result, summary: describe(result, b.fromName) };
}

function describe(r: Measured<{ name: string }>, fromName: string): string {
  if (r.state === 'unbuilt') return 'does not build';
  const built = r.build.reused ? 'build reused' : `built from ${fromName}'s objects (${r.build.objectsCompiled ?? '?'} objects)`;
  return `${built}, ${r.runs.label}${r.stressRuns ? ` and ${r.stressRuns.label}` : ''}`;
}

/** A comparison's subjects as rows of a variant against the kernel it was compared with. */
export function rowsOf(c: Comparison, kind: VariantRow['kind']): VariantRow[] {
  return c.subjects.map((s) => ({
    subject: s.subject,
    kind,
    unit: c.unit,
    changeInUnit: s.change.changeInUnit,
    changePct: s.change.changePct,
    verdict: s.verdict.verdict,
    ...(s.verdict.exact ? { exact: true as const } : {}),
  }));
}

/** Compare a variant's run with another kernel's run (`a`); a refusal names the variant's run. */
export function compareRuns(deps: TrialDeps, req: TrialRequest, a: number, v: { id: number; label: string }): Comparison {
  try {
    return compare({ a: deps.store.getRun(a), b: deps.store.getRun(v.id) }, { thresholdPct: req.thresholdPct });
  } catch (err) {
    if (err instanceof ComparisonRefused) throw new UserError(`the run ${v.label} cannot be compared with A's: ${err.message}`);
    throw err;
  }
}

/** The per-hunk part of the document: each variant against A, and which hunk explains each change of B. */
export function measurePerHunk(
  deps: TrialDeps,
  req: TrialRequest,
  plan: PerHunkPlan,
  results: VariantResult[],
  b: { profiles: Comparison; profilesA: number; stressors: Comparison | null; stressorsA: number | null },
): TrialPerHunk {
  const variants: TrialVariant[] = results.map((r) => {
    const base = { name: r.name, kind: r.kind, group: r.group, hunks: r.hunks };
    if (r.state === 'unbuilt') return { ...base, state: 'unbuilt', error: r.error, rows: [] };
    const rows = rowsOf(compareRuns(deps, req, b.profilesA, r.runs), 'profile');
    if (r.stressRuns && b.stressorsA !== null) rows.push(...rowsOf(compareRuns(deps, req, b.stressorsA, r.stressRuns), 'stressor'));
    return { ...base, state: 'measured', runs: r.runs, ...(r.stressRuns ? { stressRuns: r.stressRuns } : {}), build: r.build, rows };
  });
  const bRows = [...rowsOf(b.profiles, 'profile'), ...(b.stressors ? rowsOf(b.stressors, 'stressor') : [])];
  const hunks = plan.hunks.map(({ body, ...h }) => ({
    ...h,
    added: body.filter((l) => l.startsWith('+')).length,
    removed: body.filter((l) => l.startsWith('-')).length,
    group: plan.groups.find((g) => g.hunks.includes(h.index))!.index,
  }));
  return { hunks, groups: plan.groups, variants, skipped: plan.skipped, attribution: attribute(hunks, plan.groups, variants, bRows) };
}
