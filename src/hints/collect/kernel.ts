/**
 * The coverage kernel: tinyconfig + hintlab's bootable fragment + DEBUG_FS,
 * GCOV_KERNEL, -O2, with profiling switched on per directory by a patch
 * that puts `GCOV_PROFILE := y` at the top of each chosen directory's kbuild
 * file, or for the whole tree (GCOV_PROFILE_ALL) when no directory is
 * chosen. The patch and the fragment are ordinary inputs of `buildKernel`,
 * so they only ever touch its hard-link copy (never the user's tree), and
 * an unchanged request reuses the previous build.
 */
import { headerText } from '../../kernel/patch-names.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { UserError } from '../../errors.ts';
import { buildKernel, builtLayout, checkBuildPlaces, kernelBuildDir, type KernelBuildDeps, type KernelBuildResult } from '../../kernel/build.ts';
import { fragmentText, type ConfigSetting } from '../../kernel/config.ts';
import { claimOwnedDir, type OwnedDir } from '../../kernel/owned-dir.ts';
import { kernelVersion } from '../../kernel/source.ts';
import { writeAtomically } from '../../write-file.ts';

/** Which part of the kernel gets gcov counters. */
export type ProfileScope = { kind: 'dirs'; dirs: string[] } | { kind: 'all' };

/**
 * What counts the branches: gcov's line and arc counters, the kernel's
 * branch profiler (CONFIG_PROFILE_ALL_BRANCHES: every `if` condition's own
 * true/false counts in trace_stat/branch_all, whole kernel), or hintlab's
 * cost plugin on the kernel as built (`exact`: every conditional jump's
 * taken and fall-through counts, exact.ts).
 */
export type CounterKind = 'gcov' | 'branch-profiler' | 'exact';

export interface CoverageBuildRequest {
  src: string;
  scope: ProfileScope;
  /** Where the build lives (reused when nothing changed). */
  buildDir: string;
  jobs: number;
  /** Default gcov. */
  counter?: CounterKind;
  /** Options the workload needs on top of the coverage options (`STRESS_NG_CONFIG`). */
  workloadConfig?: readonly string[];
}

/**
 * What the scheduler stressors need beyond hintlab's built-in fragment:
 * System V IPC (msg), POSIX message queues (mq, which depend on NET) and
 * tmpfs for /dev/shm and /tmp; and the scheduler code a distribution
 * kernel runs them through, which tinyconfig leaves out: RSEQ (glibc
 * registers every thread with rseq; with it and control groups SMP kernels
 * build the per-mm concurrency IDs, SCHED_MM_CID, named too so that a
 * kernel without them is refused) and SCHED_STACK_END_CHECK (schedule()'s
 * stack-end checks; Debian's kernels have all of them).
 */
export const STRESS_NG_CONFIG: readonly string[] = ['SYSVIPC', 'SHMEM', 'TMPFS', 'NET', 'POSIX_MQUEUE', 'RSEQ', 'CGROUPS', 'SCHED_MM_CID', 'SCHED_STACK_END_CHECK'];

/** `kernel/sched,fs` -> ['kernel/sched', 'fs'], each a clean tree-relative path. */
export function parseProfileDirs(value: string): string[] {
  const dirs = value.split(',').map((d) => d.trim().replace(/^\.\//, '').replace(/\/+$/, '')).filter(Boolean);
  for (const d of dirs) {
    if (d.startsWith('/') || normalize(d) !== d || d.split('/').includes('..')) {
      throw new UserError(`--profile-dirs: '${d}' must be a directory relative to the top of the tree, like kernel/sched or fs`, 2);
    }
  }
  if (dirs.length === 0) throw new UserError('--profile-dirs is empty; give directories like kernel/sched,fs,mm, or leave it out to profile the whole kernel', 2);
  return [...new Set(dirs)];
}

/** The kbuild file of a directory: `Kbuild` wins over `Makefile`, as kbuild itself decides. */
function kbuildFile(src: string, dir: string): string {
  for (const name of ['Kbuild', 'Makefile']) {
    const rel = `${dir}/${name}`;
    if (existsSync(join(src, rel))) return rel;
  }
  const what = existsSync(join(src, dir)) && statSync(join(src, dir)).isDirectory() ? 'has no Kbuild or Makefile' : 'does not exist';
  throw new UserError(`--profile-dirs ${dir}: ${join(src, dir)} ${what}; name directories of the kernel tree that kbuild builds (e.g. kernel/sched, fs, mm)`, 2);
}

/**
 * A unified diff (for `patch -p1`) adding `GCOV_PROFILE := y` as the first
 * line of each directory's kbuild file. Put first, a per-object opt-out
 * further down (`GCOV_PROFILE_foo.o := n`) still wins; a directory that
 * opts out as a whole is refused, since its code could not be profiled.
 */
export function profilePatch(src: string, dirs: readonly string[]): string {
  return dirs
    .map((dir) => {
      const rel = kbuildFile(src, dir);
      const lines = readFileSync(join(src, rel), 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      const optOut = lines.findIndex((l) => /^\s*GCOV_PROFILE\s*:?=\s*n\b/.test(l));
      if (optOut >= 0) {
        throw new UserError(`--profile-dirs ${dir}: ${rel}:${optOut + 1} says '${lines[optOut]!.trim()}': the kernel cannot be profiled there; drop this directory`, 2);
      }
      const context = lines.slice(0, 3);
      const head = context.length ? `@@ -1,${context.length} +1,${context.length + 1} @@` : '@@ -0,0 +1 @@';
      return [`--- ${headerText(`a/${rel}`)}`, `+++ ${headerText(`b/${rel}`)}`, head, '+GCOV_PROFILE := y', ...context.map((l) => ` ${l}`)].join('\n');
    })
    .join('\n')
    .concat('\n');
}

/** The config options of a coverage kernel (on top of tinyconfig, the built-in fragment and -O2). */
export function coverageSettings(scope: ProfileScope, counter: CounterKind = 'gcov', workloadConfig: readonly string[] = []): ConfigSetting[] {
  const names =
    counter === 'branch-profiler'
      ? ['DEBUG_FS', 'FTRACE', 'TRACING', 'TRACE_BRANCH_PROFILING', 'PROFILE_ALL_BRANCHES']
      : ['DEBUG_FS', 'GCOV_KERNEL', ...(scope.kind === 'all' ? ['GCOV_PROFILE_ALL'] : [])];
  return [...names, ...workloadConfig].map((name) => ({ name, value: 'y' }));
}

/** A coverage kernel's build directory as owned-dir.ts checks it. */
export function coverageBuildDir(buildDir: string): OwnedDir {
  // an earlier hintlab wrote the fragment first: a build that failed before copying the tree left only that
  const build = kernelBuildDir(buildDir, '--build-dir');
  return { ...build, legacy: (d: string) => build.legacy(d) || existsSync(join(d, 'coverage.config')) };
}

/**
 * Build (or reuse) the coverage kernel; refuses when olddefconfig dropped
 * one of its options. The branch profiler counts every `if` of the kernel,
 * so its kernel takes no per-directory patch.
 */
export async function buildCoverageKernel(req: CoverageBuildRequest, deps: KernelBuildDeps): Promise<KernelBuildResult> {
  kernelVersion(req.src); // a clear error for a directory that is not a kernel tree, before anything is written
  const counter = req.counter ?? 'gcov';
  const settings = coverageSettings(req.scope, counter, req.workloadConfig);
  const patch = req.scope.kind === 'dirs' && counter === 'gcov' ? profilePatch(req.src, req.scope.dirs) : null;
  const dir = coverageBuildDir(req.buildDir);
  checkBuildPlaces(req.src, dir);
  claimOwnedDir(dir);
  const fragment = join(req.buildDir, 'coverage.config');
  writeAtomically(fragment, fragmentText(settings));
  const patches: string[] = [];
  if (patch) {
    patches.push(join(req.buildDir, 'gcov-profile.patch'));
    writeAtomically(patches[0]!, patch);
  }
  const result = await buildKernel(
    { src: req.src, patches, fragment, base: 'tinyconfig', opt: 'O2', out: req.buildDir, label: 'coverage', jobs: req.jobs },
    deps,
  );
  const dropped = result.manifest.droppedOptions.filter((d) => settings.some((s) => d.startsWith(`CONFIG_${s.name}=`)));
  if (dropped.length) {
    throw new UserError(`this kernel cannot collect ${counter === 'gcov' ? 'coverage' : 'branch profiles'}: make olddefconfig dropped ${dropped.join(', ')} (dependencies not met on this architecture or compiler); see ${join(req.buildDir, 'config')}`);
  }
  return result;
}

/** make's object directory inside a build directory of `buildKernel` (where the .gcno files are). */
export function objectDir(buildDir: string): string {
  return builtLayout(buildDir).obj;
}
