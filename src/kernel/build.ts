/**
 * `hintlab kernel build`: a bzImage from a kernel tree plus patches, in its
 * own output directory, without ever writing to the user's tree.
 *
 * Layout of `--out DIR`: `bzImage`, `hintlab-kernel.json` (the manifest),
 * `config` (the final .config), `build.log`, and `work/` (the hard-link copy
 * of the tree, with make's object directory inside it, kept for fast
 * rebuilds and for `--from`; see layout.ts). A box-based build also keeps
 * `box.config` (the configuration read from the box) and, with
 * --localmodconfig, `modules-list`.
 * The manifest is written last: a failed or interrupted build leaves none,
 * so it is never mistaken for a finished one.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { writeAtomically } from '../write-file.ts';
import { fragmentText } from './config.ts';
import { configure, touchesKconfig, type Configured } from './configure.ts';
import { checkFrom, copyObjects, rebaseCommandFiles, type FromBuild } from './incremental.ts';
import { gatherInputs, inputKey, sha256, type Inputs, type KernelBuildRequest } from './inputs.ts';
import { buildLayout, existingLayout, OBJ_DIR_NAME, type BuildLayout } from './layout.ts';
import { errorLines, runMake } from './make.ts';
import { checkOwnedDir, claimOwnedDir, refuseNested, type OwnedDir } from './owned-dir.ts';
import { IMAGE_FILE, MANIFEST_FILE, readManifest, type AppliedFile, type KernelManifest } from './manifest.ts';
import { applyPatch, checkPatchTargets, linkCopy } from './source.ts';


export interface KernelBuildDeps {
  abort: AbortSignal;
  onPhase?: (message: string) => void;
  onCompiled?: (count: number, object: string) => void;
}

export type KernelBuildResult =
  | { state: 'built'; dir: string; manifest: KernelManifest; modulesNotBuilt: string[] }
  | { state: 'reused'; dir: string; manifest: KernelManifest };

const DETACHED_FILE = 'detached.json';
export const BOX_CONFIG_FILE = 'box.config';
export const MODULES_LIST_FILE = 'modules-list';

function readDetached(work: string): string[] {
  try {
    return JSON.parse(readFileSync(join(work, DETACHED_FILE), 'utf8')) as string[];
  } catch {
    return [];
  }
}

async function make(args: string[], log: string, deps: KernelBuildDeps, what: string): Promise<number> {
  const r = await runMake({ args, log, abort: deps.abort, onCompiled: deps.onCompiled });
  if (r.state === 'aborted') throw new UserError(`interrupted during ${what}; make was stopped (the source tree was never written to)`);
  if (r.state === 'failed') {
    const errors = errorLines(log);
    throw new UserError(`${what} failed (make exit ${r.code}):\n${errors.map((l) => `  ${l}`).join('\n') || '  (no error lines found)'}\nfull log: ${log}`);
  }
  return r.compiled;
}

/**
 * A kernel build directory as owned-dir.ts checks it before clearing its
 * `work/`. An earlier hintlab, which wrote no marker, left a manifest or
 * `work/detached.json` (written before every copy of the tree).
 */
export function kernelBuildDir(dir: string, flag = '--out'): OwnedDir {
  return { dir, flag, what: 'kernel build directory', legacy: (d) => existsSync(join(d, MANIFEST_FILE)) || existsSync(join(d, 'work', DETACHED_FILE)) };
}

/** Refuse a --src the build would copy into itself or clear (see owned-dir.ts), and an --out that is not hintlab's. */
export function checkBuildPlaces(src: string, out: OwnedDir): void {
  refuseNested({ flag: '--src', path: src }, { flag: out.flag, path: out.dir }, 'put the output outside the kernel tree (it is copied whole)');
  checkOwnedDir(out);
}

/** make's object directory and the tree copy of a finished build (either layout), e.g. for gcov's .gcno files. */
export function builtLayout(dir: string): BuildLayout {
  return existingLayout(dir);
}

/**
 * Set up `work/`: a fresh hard-link copy of the tree with the patches
 * applied, and the object directory (kept from the last build, or a copy of
 * A's with --from). Files whose content differs from what the objects were
 * compiled from get their own inode and a new mtime, so make recompiles them.
 */
async function prepareWork(req: KernelBuildRequest, i: Inputs, out: string, from: FromBuild | null, deps: KernelBuildDeps): Promise<BuildLayout & { applied: AppliedFile[][] }> {
  const layout = buildLayout(out);
  const old = existingLayout(out);
  mkdirSync(layout.work, { recursive: true });
  // objects of the earlier layout name its absolute paths: start afresh
  if (old.legacy) rmSync(old.obj, { recursive: true, force: true });
  const patchedNow = i.patches.flatMap((p) => p.files);
  const stale = from ? from.manifest.patches.flatMap((p) => p.files) : readDetached(layout.work);
  const detach = [...new Set([...stale, ...patchedNow])].sort();
  writeAtomically(join(layout.work, DETACHED_FILE), JSON.stringify(patchedNow));
  deps.onPhase?.(`copying ${req.src} (hard links; the tree itself is never written)`);
  linkCopy(req.src, layout.tree, detach, from ? null : OBJ_DIR_NAME);
  if (from) {
    deps.onPhase?.(`copying ${from.manifest.label}'s objects from ${from.obj} (incremental: ${from.dir} is only read)`);
    await copyObjects(from.obj, layout.obj, deps.abort);
    rebaseCommandFiles(layout.obj, existingLayout(from.dir).work, layout.work);
  }
  const applied: AppliedFile[][] = [];
  for (const p of i.patches) {
    deps.onPhase?.(`applying ${p.path}`);
    applied.push(applyPatch(layout.tree, p));
  }
  return { ...layout, applied };
}

function readRelease(obj: string): string | undefined {
  // what `make -s kernelrelease` prints: kbuild writes it here while preparing the build
  try {
    return readFileSync(join(obj, 'include/config/kernel.release'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

interface Finished {
  key: string;
  configured: Configured;
  compiled: number;
  started: number;
  from: FromBuild | null;
}

function writeManifest(req: KernelBuildRequest, i: Inputs, out: string, layout: BuildLayout & { applied: AppliedFile[][] }, f: Finished): KernelManifest {
  writeAtomically(join(out, IMAGE_FILE), readFileSync(join(layout.obj, 'arch/x86/boot/bzImage')));
  const config = readFileSync(join(layout.obj, '.config'));
  writeAtomically(join(out, 'config'), config);
  const manifest: KernelManifest = {
    schema: 1,
    label: req.label,
    image: IMAGE_FILE,
    source: { dir: req.src, version: i.version, fingerprint: i.fingerprint },
    patches: i.patches.map(({ path, sha256: hash, files }, n) => ({ path, sha256: hash, files, applied: layout.applied[n] ?? [] })),
    base: i.baseDesc,
    opt: req.opt,
    fragmentSha256: sha256(fragmentText(i.fragment)),
    fragmentFile: req.fragment,
    ...(req.fragments?.length ? { fragments: req.fragments } : {}),
    configSha256: sha256(config),
    droppedOptions: f.configured.dropped,
    compiler: i.compiler,
    inputKey: f.key,
    buildSeconds: Math.round((Date.now() - f.started) / 100) / 10,
    builtAt: new Date().toISOString(),
    release: readRelease(layout.obj),
    objectsCompiled: f.compiled,
    ...(i.localVersion !== null ? { localVersion: i.localVersion } : {}),
    ...(i.modules !== null ? { modules: i.modules } : {}),
    ...(i.modulesList !== null ? { modulesListSha256: sha256(i.modulesList) } : {}),
    ...(i.box !== null ? { box: i.box } : {}),
    ...(f.from ? { incremental: { dir: f.from.dir, label: f.from.manifest.label, inputKey: f.from.manifest.inputKey } } : {}),
  };
  writeAtomically(join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The previous build in `out`, when it has exactly these inputs and its image. */
function reusable(out: string, key: string, label: string): KernelBuildResult | null {
  const previous = existsSync(out) ? readManifest(out) : null;
  if (previous?.inputKey !== key || !existsSync(join(out, previous.image))) return null;
  const manifest = { ...previous, label };
  if (previous.label !== label) writeAtomically(join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return { state: 'reused', dir: out, manifest };
}

export async function buildKernel(request: KernelBuildRequest, deps: KernelBuildDeps): Promise<KernelBuildResult> {
  const out = resolve(request.out);
  const req = { ...request, src: resolve(request.src), out, fragment: request.fragment ? resolve(request.fragment) : null };
  checkBuildPlaces(req.src, kernelBuildDir(out));
  const inputs = await gatherInputs(req);
  for (const p of inputs.patches) checkPatchTargets(req.src, p);
  const key = inputKey(inputs);
  const from = req.from
    ? checkFrom(req.from, out, inputs, { src: req.src, opt: req.opt, fragmentFile: req.fragment, modulesListSha256: inputs.modulesList === null ? null : sha256(inputs.modulesList) })
    : null;
  const reused = reusable(out, key, req.label);
  if (reused) return reused;

  claimOwnedDir(kernelBuildDir(out));
  rmSync(join(out, MANIFEST_FILE), { force: true });
  rmSync(join(out, IMAGE_FILE), { force: true });
  const log = join(out, 'build.log');
  writeAtomically(log, '');
  if (inputs.box) writeAtomically(join(out, BOX_CONFIG_FILE), inputs.baseText ?? '');
  const modulesList = inputs.modulesList !== null ? join(out, MODULES_LIST_FILE) : null;
  if (modulesList) writeAtomically(modulesList, inputs.modulesList!);
  const started = Date.now();

  const layout = await prepareWork(req, inputs, out, from, deps);
  const keepBase = from !== null && !touchesKconfig([...from.manifest.patches, ...inputs.patches].flatMap((p) => p.files));
  const baseName = inputs.box ? inputs.box.url : inputs.baseDesc.split(' ')[0];
  const modules = inputs.modules === 'local-builtin' ? ', loaded modules built in' : inputs.modules === 'builtin' ? ', modules built in' : '';
  deps.onPhase?.(`configuring: ${baseName}${modules} + hintlab fragment${(req.fragments ?? []).map((f) => ` + --${f}`).join('')}${req.fragment ? ` + ${req.fragment}` : ''}, -${req.opt}${keepBase ? ` (from ${from.manifest.label}'s .config: no patch touches Kconfig)` : ''}`);
  const configured = await configure(layout.tree, layout.obj, inputs, modulesList, (args, what) => make(args, log, deps, what).then(() => undefined), keepBase);
  deps.onPhase?.(`compiling with ${req.jobs} jobs (log: ${log})`);
  const compiled = await make(['-C', layout.tree, `O=${layout.obj}`, `-j${req.jobs}`, 'bzImage'], log, deps, 'the kernel build');
  const manifest = writeManifest(req, inputs, out, layout, { key, configured, compiled, started, from });
  return { state: 'built', dir: out, manifest, modulesNotBuilt: configured.modulesNotBuilt };
}
