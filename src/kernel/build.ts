/**
 * `hintlab kernel build`: a bzImage from a kernel tree plus patches, in its
 * own output directory, without ever writing to the user's tree.
 *
 * Layout of `--out DIR`: `bzImage`, `hintlab-kernel.json` (the manifest),
 * `config` (the final .config), `build.log`, and `work/` (the hard-link copy
 * of the tree and make's O= object directory, kept for fast rebuilds).
 * The manifest is written last: a failed or interrupted build leaves none,
 * so it is never mistaken for a finished one.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { compilerVersion } from '../bench/build.ts';
import { UserError } from '../errors.ts';
import { BUILTIN_FRAGMENT, droppedSettings, fragmentText, mergeConfig, NAMED_FRAGMENTS, optFragment, parseFragment, type ConfigSetting, type NamedFragment } from './config.ts';
import { errorLines, runMake } from './make.ts';
import { IMAGE_FILE, MANIFEST_FILE, readManifest, type KernelManifest, type OptLevel, type PatchRecord } from './manifest.ts';
import { applyPatch, kernelVersion, linkCopy, readPatch, treeFingerprint } from './source.ts';

export type ConfigBase = 'tinyconfig' | 'defconfig' | { file: string };

export interface KernelBuildRequest {
  src: string;
  patches: string[];
  fragment: string | null;
  base: ConfigBase;
  opt: OptLevel;
  out: string;
  label: string;
  jobs: number;
  /** Named fragments added after the opt level, before the user's (`--behave`, `--debug-checks`). */
  fragments?: NamedFragment[];
}

export interface KernelBuildDeps {
  abort: AbortSignal;
  onPhase?: (message: string) => void;
  onCompiled?: (count: number, object: string) => void;
}

export type KernelBuildResult =
  | { state: 'built'; dir: string; manifest: KernelManifest }
  | { state: 'reused'; dir: string; manifest: KernelManifest };

const DETACHED_FILE = 'detached.json';

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

interface Inputs {
  version: string;
  fingerprint: string;
  patches: (PatchRecord & { text: string })[];
  baseDesc: string;
  baseText: string | null;
  fragment: ConfigSetting[];
  compiler: string;
}

function gatherInputs(req: KernelBuildRequest): Inputs {
  if (!existsSync(req.src) || !statSync(req.src).isDirectory()) throw new UserError(`--src ${req.src} is not a directory`, 2);
  const version = kernelVersion(req.src);
  if (req.out === req.src || req.out.startsWith(req.src + sep)) {
    throw new UserError(`--out ${req.out} is inside --src ${req.src}; put the output outside the kernel tree (it is copied whole)`, 2);
  }
  const patches = req.patches.map(readPatch);
  let baseDesc = typeof req.base === 'string' ? req.base : '';
  let baseText: string | null = null;
  if (typeof req.base !== 'string') {
    try {
      baseText = readFileSync(req.base.file, 'utf8');
    } catch (err) {
      throw new UserError(`--base ${req.base.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
    }
    baseDesc = `file:${req.base.file} sha256:${sha256(baseText)}`;
  }
  let user: ConfigSetting[] = [];
  if (req.fragment) {
    let text: string;
    try {
      text = readFileSync(req.fragment, 'utf8');
    } catch (err) {
      throw new UserError(`--config-fragment ${req.fragment}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
    }
    user = parseFragment(text, req.fragment);
  }
  // the user's fragment comes last, so it can override the built-in choices (the opt level too)
  const fragment = [...BUILTIN_FRAGMENT, ...optFragment(req.opt), ...(req.fragments ?? []).flatMap((f) => NAMED_FRAGMENTS[f]), ...user];
  return { version, fingerprint: treeFingerprint(req.src), patches, baseDesc, baseText, fragment, compiler: compilerVersion('gcc') };
}

function inputKey(req: KernelBuildRequest, i: Inputs): string {
  return sha256(
    JSON.stringify({
      schema: 1,
      version: i.version,
      fingerprint: i.fingerprint,
      patches: i.patches.map((p) => p.sha256),
      base: i.baseDesc,
      fragment: sha256(fragmentText(i.fragment)),
      compiler: i.compiler,
    }),
  );
}

function readDetached(work: string): string[] {
  try {
    return JSON.parse(readFileSync(join(work, DETACHED_FILE), 'utf8')) as string[];
  } catch {
    return [];
  }
}

async function make(args: string[], log: string, deps: KernelBuildDeps, what: string): Promise<void> {
  const r = await runMake({ args, log, abort: deps.abort, onCompiled: deps.onCompiled });
  if (r.state === 'aborted') throw new UserError(`interrupted during ${what}; make was stopped (the source tree was never written to)`);
  if (r.state === 'failed') {
    const errors = errorLines(log);
    throw new UserError(`${what} failed (make exit ${r.code}):\n${errors.map((l) => `  ${l}`).join('\n') || '  (no error lines found)'}\nfull log: ${log}`);
  }
}

/** Configure the object directory: base config, the merged fragment, olddefconfig; returns the dropped settings. */
async function configure(tree: string, obj: string, i: Inputs, log: string, deps: KernelBuildDeps): Promise<string[]> {
  const mk = ['-C', tree, `O=${obj}`];
  if (i.baseText !== null) {
    mkdirSync(obj, { recursive: true });
    writeFileSync(join(obj, '.config'), i.baseText);
  } else {
    await make([...mk, i.baseDesc], log, deps, `make ${i.baseDesc}`);
  }
  const merged = mergeConfig(readFileSync(join(obj, '.config'), 'utf8'), i.fragment);
  writeFileSync(join(obj, '.config'), merged);
  await make([...mk, 'olddefconfig'], log, deps, 'make olddefconfig');
  return droppedSettings(readFileSync(join(obj, '.config'), 'utf8'), i.fragment);
}

export async function buildKernel(req: KernelBuildRequest, deps: KernelBuildDeps): Promise<KernelBuildResult> {
  const out = resolve(req.out);
  const inputs = gatherInputs({ ...req, src: resolve(req.src), out });
  const key = inputKey(req, inputs);
  const previous = existsSync(out) ? readManifest(out) : null;
  if (previous?.inputKey === key && existsSync(join(out, previous.image))) {
    const manifest = { ...previous, label: req.label };
    if (previous.label !== req.label) writeFileSync(join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    return { state: 'reused', dir: out, manifest };
  }

  const work = join(out, 'work');
  const tree = join(work, 'src');
  const obj = join(work, 'obj');
  const log = join(out, 'build.log');
  mkdirSync(work, { recursive: true });
  rmSync(join(out, MANIFEST_FILE), { force: true });
  rmSync(join(out, IMAGE_FILE), { force: true });
  writeFileSync(log, '');
  const started = Date.now();

  // files patched now or by the previous build get their own inode and a new mtime
  const patchedNow = inputs.patches.flatMap((p) => p.files);
  const detach = [...new Set([...readDetached(work), ...patchedNow])].sort();
  writeFileSync(join(work, DETACHED_FILE), JSON.stringify(patchedNow));
  deps.onPhase?.(`copying ${resolve(req.src)} (hard links; the tree itself is never written)`);
  linkCopy(resolve(req.src), tree, detach);
  for (const p of inputs.patches) {
    deps.onPhase?.(`applying ${p.path}`);
    applyPatch(tree, p);
  }
  deps.onPhase?.(`configuring: ${inputs.baseDesc.split(" ")[0]} + hintlab fragment${(req.fragments ?? []).map((f) => ` + --${f}`).join("")}${req.fragment ? ` + ${req.fragment}` : ''}, -${req.opt}`);
  const dropped = await configure(tree, obj, inputs, log, deps);
  deps.onPhase?.(`compiling with ${req.jobs} jobs (log: ${log})`);
  await make(['-C', tree, `O=${obj}`, `-j${req.jobs}`, 'bzImage'], log, deps, 'the kernel build');

  copyFileSync(join(obj, 'arch/x86/boot/bzImage'), join(out, IMAGE_FILE));
  const config = readFileSync(join(obj, '.config'));
  copyFileSync(join(obj, '.config'), join(out, 'config'));
  const manifest: KernelManifest = {
    schema: 1,
    label: req.label,
    image: IMAGE_FILE,
    source: { dir: resolve(req.src), version: inputs.version, fingerprint: inputs.fingerprint },
    patches: inputs.patches.map(({ path, sha256: hash, files }) => ({ path, sha256: hash, files })),
    base: inputs.baseDesc,
    opt: req.opt,
    fragmentSha256: sha256(fragmentText(inputs.fragment)),
    configSha256: sha256(config),
    droppedOptions: dropped,
    compiler: inputs.compiler,
    inputKey: key,
    buildSeconds: Math.round((Date.now() - started) / 100) / 10,
    builtAt: new Date().toISOString(),
  };
  writeFileSync(join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return { state: 'built', dir: out, manifest };
}
