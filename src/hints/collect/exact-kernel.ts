/**
 * The kernel `hints collect --exact` boots: the kernel as built, with no
 * counters compiled in (no GCOV, no branch profiler), so the code whose
 * branches are counted is the code that is judged. Its vmlinux must have a
 * DWARF line table (hintlab's fragment sets DEBUG_INFO_DWARF5), so every
 * jump can be placed at its source line.
 *
 * Either a finished `hintlab kernel build --out DIR` (`--kernel-build`),
 * checked before anything runs, or a tinyconfig -O2 build of the tree:
 * the trial's kernel A of the same tree when its inputs are exactly that
 * build's (nothing is rebuilt), else one hintlab builds into its cache.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { UserError } from '../../errors.ts';
import { buildKernel, checkBuildPlaces, kernelBuildDir, type KernelBuildDeps } from '../../kernel/build.ts';
import { claimOwnedDir } from '../../kernel/owned-dir.ts';
import { kernelVersion } from '../../kernel/source.ts';
import { fragmentText, parseConfig } from '../../kernel/config.ts';
import { gatherInputs, inputKey, type KernelBuildRequest } from '../../kernel/inputs.ts';
import { readManifest, type KernelManifest } from '../../kernel/manifest.ts';
import { vmlinuxFor, type DebugElf } from '../../vm/dwarf-lines.ts';
import { writeAtomically } from '../../write-file.ts';

/** A kernel ready to boot for an exact collect. */
export interface ExactKernel {
  dir: string;
  image: string;
  manifest: KernelManifest;
  elf: DebugElf;
  /** given: --kernel-build; reused: a build with the same inputs; built: by this collect. */
  state: 'given' | 'reused' | 'built';
}

const cacheHome = (env: NodeJS.ProcessEnv): string => env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
const treeKey = (src: string): string => `${basename(src)}-${createHash('sha256').update(src).digest('hex').slice(0, 12)}`;

/** Where `hintlab trial` keeps kernel A of tree `src` (a real path): `<cache>/hintlab/trial/<tree>-<hash>/A`. */
export function trialKernelA(src: string, env: NodeJS.ProcessEnv): string {
  return join(cacheHome(env), 'hintlab', 'trial', treeKey(src), 'A');
}

/**
 * The exact collect's own build of `src` (a real path):
 * `<cache>/hintlab/exact-kernels/<tree>-<hash>`, with `-<hash>` of the
 * options a workload adds, so a profiles build and a stress-ng build of one
 * tree are kept side by side rather than rebuilt in turn.
 */
export function defaultExactBuildDir(src: string, env: NodeJS.ProcessEnv, workloadConfig: readonly string[] = []): string {
  const options = workloadConfig.length ? `-${createHash('sha256').update([...workloadConfig].sort().join('\n')).digest('hex').slice(0, 8)}` : '';
  return join(cacheHome(env), 'hintlab', 'exact-kernels', `${treeKey(src)}${options}`);
}

/** Whether the ELF has a `.debug_line` section (readelf's section list). */
function hasLineTable(path: string): boolean {
  const r = spawnSync('readelf', ['-S', '-W', path], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new UserError(`readelf -S ${path} failed (${r.error?.message ?? `exit ${r.status}`}); install binutils`);
  return /\s\.debug_line\s/.test(r.stdout);
}

/** Options the workload needs that the build's .config does not set to y. */
function missingOptions(dir: string, options: readonly string[]): string[] {
  const config = existsSync(join(dir, 'config')) ? parseConfig(readFileSync(join(dir, 'config'), 'utf8')) : new Map<string, string>();
  return options.filter((o) => config.get(o) !== 'y');
}

/**
 * A finished build directory for `--kernel-build`: its manifest names the
 * same tree version as --src, its image is there, and its vmlinux has a
 * line table; refused otherwise, saying how to make one.
 */
export function checkKernelBuild(dir: string, srcVersion: string, src: string, workloadConfig: readonly string[] = []): ExactKernel {
  const rebuild = `hintlab kernel build --src ${src} --out ${dir}`;
  let manifest: KernelManifest | null;
  try {
    manifest = existsSync(dir) ? readManifest(dir) : null;
  } catch (err) {
    throw new UserError(`--kernel-build ${dir}: ${(err as Error).message}`, 2);
  }
  if (!manifest) throw new UserError(`--kernel-build ${dir} is not a finished kernel build (no hintlab-kernel.json); make one with '${rebuild}'`, 2);
  if (manifest.source.version !== srcVersion) {
    throw new UserError(`--kernel-build ${dir} was built from Linux ${manifest.source.version} (${manifest.source.dir}), but --src is Linux ${srcVersion}: give the tree it was built from, or build this one with '${rebuild}'`, 2);
  }
  const image = join(dir, manifest.image);
  if (!existsSync(image)) throw new UserError(`--kernel-build ${dir} has no ${manifest.image}; rebuild it with '${rebuild}'`, 2);
  const elf = vmlinuxFor(image);
  if (!elf.known) throw new UserError(`--kernel-build ${dir}: ${elf.reason.replace(/: branches are placed.*$/, '')}; --exact places every jump at its source line: rebuild it with '${rebuild}'`, 2);
  if (!hasLineTable(elf.value.path)) {
    throw new UserError(`--kernel-build ${dir}: ${elf.value.path} has no DWARF line table; --exact places every jump at its source line: rebuild it with '${rebuild}' (its fragment sets DEBUG_INFO_DWARF5), or set CONFIG_DEBUG_INFO_DWARF5=y`, 2);
  }
  const missing = missingOptions(dir, workloadConfig);
  if (missing.length) {
    throw new UserError(`--kernel-build ${dir} lacks what the workload needs (${missing.map((o) => `CONFIG_${o}`).join(', ')} not =y in ${join(dir, 'config')}): rebuild it with those options in a --config-fragment, or leave out --kernel-build`, 2);
  }
  return { dir, image, manifest, elf: elf.value, state: 'given' };
}

export interface ExactBuildRequest {
  src: string;
  /** Where hintlab builds when no reusable build exists. */
  buildDir: string;
  jobs: number;
  /** Options the workload needs (a stress-ng workload's), merged as a fragment. */
  workloadConfig: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** The trial's kernel A, when it is exactly a plain build of the tree as it is now (same input key). */
async function reusableTrialA(src: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const dir = trialKernelA(src, env);
  let manifest: KernelManifest | null;
  try {
    manifest = existsSync(dir) ? readManifest(dir) : null;
  } catch {
    return null;
  }
  if (!manifest || manifest.patches.length || manifest.fragmentFile || !existsSync(join(dir, manifest.image))) return null;
  const shape: KernelBuildRequest = { src, patches: [], fragment: null, base: 'tinyconfig', opt: 'O2', out: dir, label: 'A', jobs: 1, fragments: manifest.fragments as KernelBuildRequest['fragments'] };
  return inputKey(await gatherInputs(shape)) === manifest.inputKey ? dir : null;
}

/** A build checkKernelBuild accepts, or null (a trial's kernel A built before hintlab's fragment had DWARF is built again). */
function usableBuild(dir: string, version: string, src: string): ExactKernel | null {
  try {
    return checkKernelBuild(dir, version, src);
  } catch (err) {
    if (err instanceof UserError) return null;
    throw err;
  }
}

/** Build (or reuse) the kernel as built: tinyconfig + hintlab's fragment, -O2, and the workload's options. */
export async function exactKernel(req: ExactBuildRequest, deps: KernelBuildDeps): Promise<ExactKernel> {
  const src = resolve(req.src);
  const version = kernelVersion(src);
  if (!req.workloadConfig.length) {
    deps.onPhase?.('looking for a finished build of this tree (the trial\'s kernel A)');
    const trial = await reusableTrialA(src, req.env);
    const usable = trial ? usableBuild(trial, version, src) : null;
    if (usable) return { ...usable, state: 'reused' };
  }
  let fragment: string | null = null;
  const owned = kernelBuildDir(req.buildDir, '--build-dir');
  checkBuildPlaces(src, owned);
  if (req.workloadConfig.length) {
    claimOwnedDir(owned);
    fragment = join(req.buildDir, 'workload.config');
    writeAtomically(fragment, fragmentText(req.workloadConfig.map((name) => ({ name, value: 'y' }))));
  }
  const built = await buildKernel({ src, patches: [], fragment, base: 'tinyconfig', opt: 'O2', out: req.buildDir, label: 'exact', jobs: req.jobs }, deps);
  const checked = checkKernelBuild(built.dir, version, src, req.workloadConfig);
  return { ...checked, state: built.state === 'reused' ? 'reused' : 'built' };
}
