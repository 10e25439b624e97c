/**
 * `kernel build --from A-DIR`: B starts from a copy of A's object directory,
 * so make recompiles only what B's patches (and A's, undone) touch.
 *
 * A is only ever read. Its objects are copied (`cp -a --reflink=auto`: a
 * reflink clone where the filesystem has them, a real copy elsewhere),
 * never hard-linked, since make and gcc rewrite objects in place and a
 * shared inode would carry B's build into A. The copy goes to a temporary
 * name first: an interrupted copy is never taken for an object directory
 * whose files look newer than their sources.
 *
 * The copy is only valid when everything but the patches is A's: the tree
 * (fingerprint), the base configuration, how modules are handled, the -O
 * level, the fragment and the compiler. Each difference is refused,
 * naming the input and the fix.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { UserError } from '../errors.ts';
import { spawnSupervised } from '../proc/supervise.ts';
import { fragmentText } from './config.ts';
import { sha256, type Inputs } from './inputs.ts';
import { existingLayout } from './layout.ts';
import { MANIFEST_FILE, readManifest, type KernelManifest, type OptLevel } from './manifest.ts';

export interface FromBuild {
  dir: string;
  manifest: KernelManifest;
  /** A's object directory (read only). */
  obj: string;
}

const short = (hex: string): string => `${hex.slice(0, 16)}...`;

/** The part of a base description that decides the configuration: a kconfig target's name, or a configuration's sha256 wherever it came from. */
export function baseIdentity(desc: string): string {
  return /sha256:([0-9a-f]{64})/.exec(desc)?.[0] ?? desc;
}

function refuse(from: string, what: string): never {
  throw new UserError(`--from ${from}: ${what}`, 2);
}

/** A's manifest and object directory, or a refusal saying why A cannot be started from. */
function finishedBuild(from: string, out: string): FromBuild {
  const dir = resolve(from);
  if (dir === out) refuse(from, 'is the --out directory itself; B gets its own --out (A is copied, never built into)');
  if (out.startsWith(dir + sep) || dir.startsWith(out + sep)) refuse(from, `and --out ${out} are inside one another; give B an --out beside A`);
  let manifest: KernelManifest | null;
  try {
    manifest = existsSync(dir) ? readManifest(dir) : null;
  } catch (err) {
    refuse(from, (err as Error).message);
  }
  if (!manifest) refuse(from, `has no ${MANIFEST_FILE}, so it is not a finished build (a failed or interrupted build leaves none); build A first with 'hintlab kernel build --out ${from} ...'`);
  const layout = existingLayout(dir);
  if (layout.legacy) {
    refuse(from, `was built by an earlier hintlab, whose object directory (work/obj) has absolute paths in its command lines: a copy would recompile everything. Build A again into a new --out directory, then start B from that`);
  }
  if (!existsSync(layout.obj)) refuse(from, `A's objects (${layout.obj}) are gone; build A again (delete ${dir} first), then start B from it`);
  const config = existsSync(`${layout.obj}/.config`) ? sha256(readFileSync(`${layout.obj}/.config`)) : null;
  if (config !== manifest.configSha256) {
    refuse(from, `A's object directory was changed after A was built (its .config is not the one ${MANIFEST_FILE} records); build A again, then start B from it`);
  }
  return { dir, manifest, obj: layout.obj };
}

export interface FromCheck {
  src: string;
  opt: OptLevel;
  fragmentFile: string | null;
  modulesListSha256: string | null;
}

/** Refuse the first input B does not share with A, naming it and the fix. */
function sameInputs(from: string, a: KernelManifest, i: Inputs, b: FromCheck): void {
  const fix = 'build B without --from (a full build), or';
  if (a.source.fingerprint !== i.fingerprint) {
    refuse(from, `A was built from ${a.source.dir} with tree fingerprint ${short(a.source.fingerprint)}, but --src ${b.src} now has ${short(i.fingerprint)} ` +
      `(the tree changed since A was built, or it is another tree); ${fix} build A again from this tree`);
  }
  if (baseIdentity(a.base) !== baseIdentity(i.baseDesc)) {
    refuse(from, `A was configured from --base ${a.base}, this build from ${i.baseDesc}; ${fix} give the same base as A` +
      (a.box ? ` (the box's configuration changed since A if the address is the same; A's copy is ${from}/box.config)` : ''));
  }
  if ((a.modules ?? null) !== i.modules) {
    refuse(from, `A handled modules as ${a.modules ?? 'the base has them'}, this build as ${i.modules ?? 'the base has them'}; ${fix} give ${a.modules === 'local-builtin' ? '--localmodconfig' : 'the same --base and --localmodconfig'} as A`);
  }
  if ((a.modulesListSha256 ?? null) !== b.modulesListSha256) {
    refuse(from, `the module list for --localmodconfig differs from A's (modules were loaded or unloaded on the box since); ${fix} give A's list: --lsmod ${from}/modules-list`);
  }
  if (a.opt !== b.opt) refuse(from, `A was built -${a.opt}, this build asks for -${b.opt}; ${fix} give --opt ${a.opt}`);
  if (a.fragmentSha256 !== sha256(fragmentText(i.fragment))) {
    const was = a.fragmentFile === undefined ? 'a different --config-fragment' : a.fragmentFile === null ? 'no --config-fragment' : `--config-fragment ${a.fragmentFile}`;
    refuse(from, `A was built with ${was}, and this build's fragment (${b.fragmentFile ?? 'none'}) is not the same; ${fix} give A's fragment, unchanged`);
  }
  if (a.compiler !== i.compiler) refuse(from, `A was compiled by ${a.compiler}, this build would use ${i.compiler}; ${fix} build A again with this compiler`);
}

/** Check that B can start from A (see the module comment); A's manifest and objects. */
export function checkFrom(from: string, out: string, i: Inputs, b: FromCheck): FromBuild {
  const a = finishedBuild(from, out);
  sameInputs(from, a.manifest, i, b);
  return a;
}

/**
 * kbuild's own objects name no absolute path (relative srctree, layout.ts),
 * but the host tools it builds with their own makefiles (tools/objtool)
 * record absolute paths of the build directory in their `.cmd` files: left
 * as A's, make would rebuild objtool in B. Rewrite A's work directory to
 * B's in B's copies of them. Returns how many files were rewritten.
 */
export function rebaseCommandFiles(obj: string, fromWork: string, toWork: string): number {
  const from = `${fromWork}/`;
  const to = `${toWork}/`;
  let rewritten = 0;
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && e.name.endsWith('.cmd')) {
        const text = readFileSync(path, 'utf8');
        if (!text.includes(from)) continue;
        const st = statSync(path);
        writeFileSync(path, text.replaceAll(from, to));
        utimesSync(path, st.atime, st.mtime);
        rewritten++;
      }
    }
  };
  walk(obj);
  return rewritten;
}

/**
 * Copy A's object directory to `dest` (through `dest.partial`); A is only
 * read. cp runs under the process supervisor: a distribution kernel's
 * objects are gigabytes, and neither Ctrl-C nor the death of hintlab may
 * leave a copy running.
 */
export async function copyObjects(fromObj: string, dest: string, abort: AbortSignal): Promise<void> {
  const partial = `${dest}.partial`;
  const stopIfAborted = (): void => {
    if (abort.aborted) throw new UserError(`interrupted while copying ${fromObj}; ${dest} was not written (A is unchanged)`, 130);
  };
  rmSync(partial, { recursive: true, force: true });
  rmSync(dest, { recursive: true, force: true });
  stopIfAborted();
  const cp = spawnSupervised(['cp', '-a', '--reflink=auto', '--', fromObj, partial], { stdout: 'ignore' });
  let stderr = '';
  cp.stderr.on('data', (b: Buffer) => void (stderr += b.toString()));
  const kill = (): void => cp.signal('SIGKILL');
  abort.addEventListener('abort', kill, { once: true });
  const end = await cp.exit.finally(() => abort.removeEventListener('abort', kill));
  if (end.code !== 0) {
    rmSync(partial, { recursive: true, force: true });
    stopIfAborted();
    throw new UserError(`cannot copy ${fromObj} to ${partial}: ${stderr.trim() || `cp ended with ${end.signal ?? `status ${end.code}`}`}`);
  }
  renameSync(partial, dest);
}
