/**
 * Everything that decides a build's output, read and checked before anything
 * is written: the tree (version, fingerprint), the patches, the base
 * configuration (a kconfig target, a file, or a box's own over ssh), the
 * fragment, how modules are handled, and the compiler. `inputKey` hashes
 * them: equal key, reusable image.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { compilerVersion } from '../proc/native.ts';
import { UserError } from '../errors.ts';
import type { SshAddress } from '../targets/ssh-address.ts';
import type { SshOptions } from '../targets/ssh-connection.ts';
import { fetchBoxConfig, type BoxConfigFetch } from './box-config.ts';
import { BUILTIN_FRAGMENT, fragmentText, NAMED_FRAGMENTS, optFragment, parseFragment, type ConfigSetting, type NamedFragment } from './config.ts';
import type { BoxConfigRecord, KernelManifest, OptLevel, PatchRecord } from './manifest.ts';
import { kernelVersion, readPatch, treeFingerprint } from './source.ts';

export type ConfigBase = 'tinyconfig' | 'defconfig' | { file: string } | { box: SshAddress };

export interface KernelBuildRequest {
  src: string;
  patches: string[];
  fragment: string | null;
  base: ConfigBase;
  opt: OptLevel;
  out: string;
  label: string;
  jobs: number;
  /** Start from a copy of this finished build's objects (`--from`); its inputs must match. */
  from?: string | null;
  /** Keep only the modules the box has loaded, built in (`make localyesconfig`). */
  localmodconfig?: boolean;
  /** The module list for --localmodconfig (lsmod output or /proc/modules) instead of the box's. */
  lsmod?: string | null;
  /** How to reach a `{ box }` base. */
  ssh?: SshOptions;
  /** Where a box keeps its configuration (tests point this elsewhere; default BOX_CONFIG_PATHS). */
  boxConfigPaths?: readonly string[];
  /** Named fragments added after the opt level, before the user's (`--behave`, `--debug-checks`). */
  fragments?: NamedFragment[];
}

export interface Inputs {
  version: string;
  fingerprint: string;
  patches: (PatchRecord & { text: string })[];
  baseDesc: string;
  baseText: string | null;
  /** Built-in + -O level + the user's fragment: what `fragmentSha256` hashes. */
  fragment: ConfigSetting[];
  /** CONFIG_LOCALVERSION for box builds. */
  localVersion: string | null;
  /** What is merged on top of the base, in order: built-in, -O level, LOCALVERSION, the user's fragment (which may override any of them). */
  merge: ConfigSetting[];
  modules: KernelManifest['modules'] | null;
  /** The module list for localyesconfig. */
  modulesList: string | null;
  box: BoxConfigRecord | null;
  compiler: string;
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

function readInput(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }
}

/** `-hintlab-<label>`: the release then never names one of the box's own kernels or their /lib/modules. */
export function boxLocalVersion(label: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/.test(label)) {
    throw new UserError(`--label '${label}' becomes part of the kernel release (-hintlab-<label>) of a kernel for a box: use up to 40 letters, digits, '.', '_' or '-'`, 2);
  }
  return `-hintlab-${label}`;
}

interface BaseInputs {
  baseDesc: string;
  baseText: string | null;
  box: BoxConfigRecord | null;
  modulesList: string | null;
}

async function baseInputs(req: KernelBuildRequest): Promise<BaseInputs> {
  const base = req.base;
  const needList = req.localmodconfig === true;
  const lsmod = req.lsmod ? readInput('--lsmod', req.lsmod) : null;
  if (typeof base === 'string' || 'file' in base) {
    if (needList && lsmod === null) {
      throw new UserError('--localmodconfig needs the modules the box has loaded: give --base ssh://[user@]host to read them from the box, or --lsmod FILE (its lsmod output)', 2);
    }
    if (typeof base === 'string') return { baseDesc: base, baseText: null, box: null, modulesList: lsmod };
    const text = readInput('--base', base.file);
    return { baseDesc: `file:${base.file} sha256:${sha256(text)}`, baseText: text, box: null, modulesList: lsmod };
  }
  const fetched: BoxConfigFetch = await fetchBoxConfig(base.box, { ssh: req.ssh, paths: req.boxConfigPaths, modules: needList && lsmod === null });
  const modulesList = lsmod ?? fetched.modules;
  const box: BoxConfigRecord = { url: base.box.url, path: fetched.path, release: fetched.release, sha256: sha256(fetched.text) };
  return { baseDesc: `${base.box.url}:${fetched.path} sha256:${box.sha256}`, baseText: fetched.text, box, modulesList };
}

export async function gatherInputs(req: KernelBuildRequest): Promise<Inputs> {
  if (!existsSync(req.src) || !statSync(req.src).isDirectory()) throw new UserError(`--src ${req.src} is not a directory`, 2);
  const version = kernelVersion(req.src);
  if (req.lsmod && !req.localmodconfig) throw new UserError('--lsmod is the module list of --localmodconfig; add --localmodconfig or drop --lsmod', 2);
  const patches = req.patches.map(readPatch);
  const forBox = typeof req.base === 'object' && 'box' in req.base;
  const localVersion = forBox || req.localmodconfig ? boxLocalVersion(req.label) : null;
  const user = req.fragment ? parseFragment(readInput('--config-fragment', req.fragment), req.fragment) : [];
  const base = await baseInputs(req);
  // the user's fragment comes last, so it can override the built-in choices (the opt level too)
  const ours = [...BUILTIN_FRAGMENT, ...optFragment(req.opt), ...(req.fragments ?? []).flatMap((f) => NAMED_FRAGMENTS[f])];
  const lv = localVersion !== null ? [{ name: 'LOCALVERSION', value: JSON.stringify(localVersion) }] : [];
  const modules = req.localmodconfig ? 'local-builtin' : forBox ? 'builtin' : null;
  return {
    version,
    fingerprint: treeFingerprint(req.src),
    patches,
    ...base,
    fragment: [...ours, ...user],
    localVersion,
    merge: [...ours, ...lv, ...user],
    modules,
    compiler: compilerVersion('gcc'),
  };
}

export function inputKey(i: Inputs): string {
  return sha256(
    JSON.stringify({
      schema: 1,
      version: i.version,
      fingerprint: i.fingerprint,
      patches: i.patches.map((p) => p.sha256),
      base: i.baseDesc,
      fragment: sha256(fragmentText(i.fragment)),
      compiler: i.compiler,
      // only when set, so builds from before these existed keep their key
      ...(i.localVersion !== null ? { localVersion: i.localVersion } : {}),
      ...(i.modules !== null ? { modules: i.modules, modulesList: i.modulesList === null ? null : sha256(i.modulesList) } : {}),
    }),
  );
}
