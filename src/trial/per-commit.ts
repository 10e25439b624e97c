/**
 * `trial --per-commit`: which commit of a range, or which patch of a
 * series, moved which subject.
 *
 * For a series of n patches hintlab builds the kernels of A plus the first
 * k patches, k = 1 .. n-1 (k = n is B), each from the objects of the one
 * before it (A's for the first), so each compiles what its patches touch;
 * boots each in the measured step's conditions, and compares each kernel
 * with the one before it: every commit's own change. A change B claims is
 * brought by the commits whose own step claims it the same way.
 *
 * Each kernel is a step of the trial (`commit-2`), built, booted and
 * stored the way --per-hunk's variants are (./per-hunk.ts's
 * measureVariant): a rerun reuses the builds (their own keys) and the
 * boots (a key over the image and the boot plan).
 */
import { basename, join } from 'node:path';
import type { Comparison } from '../compare/types.ts';
import { kernelBuildDir } from '../kernel/build.ts';
import { checkOwnedDir } from '../kernel/owned-dir.ts';
import { attributeCommits } from './attribute.ts';
import type { TrialCommitStep, TrialPerCommit } from './document.ts';
import { BOOT_SECONDS, compareRuns, measureVariant, rowsOf, VARIANT_BUILD_SECONDS, type Measured, type VariantContext } from './per-hunk.ts';
import type { TrialDeps, TrialRequest } from './request.ts';
import type { SeriesPatch } from './series.ts';
import type { StepOutcome } from './steps.ts';

/** The kernel of A plus the first `commits` patches of the series. */
export interface CommitVariant {
  /** `commit-2`: its label, step name and build directory under --out/commits. */
  name: string;
  commits: number;
}

/** The stored result of one prefix kernel's step. */
export type CommitResult = Measured<CommitVariant>;

/** What --per-commit builds and boots for a series of `patches`, and its time at --per-hunk's reference figures. */
export interface PerCommitEstimate {
  patches: number;
  kernels: number;
  boots: number;
  seconds: number;
}

/** One kernel per patch but the last (the last is B); each booted `repeat` times, twice with stressors. */
export function estimatePerCommit(patches: number, repeat: number, stressors: boolean): PerCommitEstimate {
  const kernels = Math.max(0, patches - 1);
  const boots = kernels * repeat * (stressors ? 2 : 1);
  return { patches, kernels, boots, seconds: kernels * VARIANT_BUILD_SECONDS + boots * BOOT_SECONDS };
}

/** The prefix kernels of a series of `patches`, shortest first. */
export function planPerCommit(patches: number): CommitVariant[] {
  return Array.from({ length: Math.max(0, patches - 1) }, (_, i) => ({ name: `commit-${i + 1}`, commits: i + 1 }));
}

/** One prefix kernel: A plus the first `v.commits` patches, built from `from`'s objects (the previous prefix's, or A's), booted like B. */
export async function commitStep(ctx: VariantContext, v: CommitVariant, from: { name: string; dir: string }): Promise<StepOutcome<CommitResult>> {
  const { req } = ctx;
  const out = join(req.out, 'commits', v.name);
  checkOwnedDir(kernelBuildDir(out, `--out ${req.out}: the build directory of ${v.name}`));
  const patches = req.patches.slice(0, v.commits);
  return measureVariant(ctx, v, { step: v.name as `commit-${string}`, out, patches, from: from.dir, patchText: patches.join('\n'), fromName: from.name });
}

/** A kernel of the chain A, commit-1, ..., B, with its runs (none when it did not build). */
interface Link {
  name: string;
  runs: { id: number; label: string } | null;
  stressRuns: { id: number; label: string } | null;
}

/** The per-commit part of the document: each commit's kernel against the one before it, and which commits bring each change of B. */
export function measurePerCommit(
  deps: TrialDeps,
  req: TrialRequest,
  series: readonly SeriesPatch[],
  results: readonly CommitResult[],
  b: { runs: { A: Link['runs']; B: Link['runs'] }; stressRuns: { A: Link['runs']; B: Link['runs'] } | null; profiles: Comparison; stressors: Comparison | null },
): TrialPerCommit {
  const chain: Link[] = [
    { name: 'A', runs: b.runs.A, stressRuns: b.stressRuns?.A ?? null },
    ...results.map((r) => (r.state === 'measured' ? { name: r.name, runs: r.runs, stressRuns: r.stressRuns } : { name: r.name, runs: null, stressRuns: null })),
    { name: 'B', runs: b.runs.B, stressRuns: b.stressRuns?.B ?? null },
  ];
  let before = chain[0]!;
  const commits: TrialCommitStep[] = series.map((p, i) => {
    const link = chain[i + 1]!;
    const result = results[i];
    const base = { index: i + 1, label: p.subject ?? basename(p.file ?? p.origin), commit: p.commit, author: p.author, kernel: link.name, against: before.name };
    if (result?.state === 'unbuilt' || link.runs === null || before.runs === null) return { ...base, state: 'unbuilt' as const, error: result?.state === 'unbuilt' ? result.error : 'not built', rows: [] };
    const rows = rowsOf(compareRuns(deps, req, before.runs.id, link.runs), 'profile');
    if (link.stressRuns && before.stressRuns) rows.push(...rowsOf(compareRuns(deps, req, before.stressRuns.id, link.stressRuns), 'stressor'));
    const build = result?.state === 'measured' ? { build: result.build } : {};
    const measured: TrialCommitStep = { ...base, state: 'measured', runs: link.runs, ...(link.stressRuns ? { stressRuns: link.stressRuns } : {}), ...build, rows };
    before = link;
    return measured;
  });
  const bRows = [...rowsOf(b.profiles, 'profile'), ...(b.stressors ? rowsOf(b.stressors, 'stressor') : [])];
  return { commits, attribution: attributeCommits(commits, bRows) };
}
