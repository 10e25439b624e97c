/**
 * Objects from a kernel tree before and after a patch. The user's tree is
 * only read: builds run from a mirror (workspace.ts) into per-cell output
 * directories (kbuild.ts); the patch goes onto the mirror and comes off in
 * `close`, even when a build fails.
 *
 * Workspace layout, under --work-dir (default $XDG_CACHE_HOME/hintlab/codegen):
 *   <tree name>-<hash of its path>/src        the mirror
 *   <tree name>-<hash of its path>/obj-<cc>-<O2|Os>   configured output directories
 *   <tree name>-<hash of its path>/objects    the compared objects of the last run
 *   <tree name>-<hash of its path>/lock       held by the running process
 *   <tree name>-<hash of its path>/.hintlab-dir   the marker: hintlab made this directory (owned-dir.ts)
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, normalize, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { checkOwnedDir, claimOwnedDir, refuseNested, type OwnedDir } from '../kernel/owned-dir.ts';
import { takePidLock } from '../store/owner.ts';
import { configLevel, ensureObjdir, levelArgs, runMake } from './kbuild.ts';
import { errorLines } from './compilers.ts';
import type { BuildOutcome, ObjectSource, Variant } from './matrix.ts';
import { AppliedPatch } from './patch.ts';
import type { CodegenSubject, CompilerInfo, ConfigSource, OptLevel } from './types.ts';
import { defaultWorkRoot, mirrorTree } from './workspace.ts';

export interface KernelRequest {
  tree: string;
  patch: string;
  /** Object relative to the tree, e.g. `mm/mincore.o`. */
  object: string;
  config?: string;
  workDir?: string;
  env: NodeJS.ProcessEnv;
}

function checkTree(tree: string): string {
  if (!existsSync(tree) || !statSync(tree).isDirectory()) throw new UserError(`--src ${tree}: no such directory`, 2);
  if (!existsSync(join(tree, 'Kbuild')) || !existsSync(join(tree, 'scripts', 'config'))) {
    throw new UserError(`--src ${tree}: not a Linux kernel source tree (no Kbuild or scripts/config at its top)`, 2);
  }
  return realpathSync(tree);
}

function checkObject(tree: string, object: string): string {
  const rel = normalize(object);
  if (isAbsolute(rel) || rel.startsWith('..') || !rel.endsWith('.o')) {
    throw new UserError(`--obj ${object}: give the object relative to the tree, e.g. mm/mincore.o`, 2);
  }
  const stem = rel.slice(0, -2);
  if (!['.c', '.S'].some((ext) => existsSync(join(tree, stem + ext)))) {
    throw new UserError(`--obj ${object}: the tree has no ${stem}.c or ${stem}.S to build it from`, 2);
  }
  return rel;
}

function pickConfig(tree: string, config: string | undefined): { source: ConfigSource; path?: string } {
  if (config !== undefined) {
    if (!existsSync(config)) throw new UserError(`--config ${config}: no such file`, 2);
    return { source: { kind: 'file', path: resolve(config) }, path: resolve(config) };
  }
  const own = join(tree, '.config');
  return existsSync(own) ? { source: { kind: 'tree', path: own }, path: own } : { source: { kind: 'defconfig' } };
}

/**
 * A codegen workspace as owned-dir.ts checks it: an earlier hintlab, which
 * wrote no marker, left nothing in it but the names of the layout above.
 */
function workspaceDir(dir: string): OwnedDir {
  const ours = (name: string): boolean => ['src', 'objects', 'lock'].includes(name) || name.startsWith('obj-');
  return { dir, flag: '--work-dir', what: 'codegen workspace', legacy: (d) => readdirSync(d).every(ours) };
}

export class KernelSource implements ObjectSource {
  readonly subject: CodegenSubject;
  readonly notes: string[] = [];
  private readonly tree: string;
  private readonly object: string;
  private readonly baseConfig: string | undefined;
  private readonly workspace: string;
  private readonly mirror: string;
  private readonly patchFile: string;
  private applied: AppliedPatch | undefined;
  private locked = false;

  constructor(req: KernelRequest) {
    this.tree = checkTree(req.tree);
    this.object = checkObject(this.tree, req.object);
    if (!existsSync(req.patch)) throw new UserError(`--patch ${req.patch}: no such file`, 2);
    this.patchFile = resolve(req.patch);
    const config = pickConfig(this.tree, req.config);
    this.baseConfig = config.path;
    const key = createHash('sha256').update(this.tree).digest('hex').slice(0, 12);
    this.workspace = join(resolve(req.workDir ?? defaultWorkRoot(req.env)), `${basename(this.tree)}-${key}`);
    this.mirror = join(this.workspace, 'src');
    refuseNested({ flag: '--src', path: this.tree }, { flag: '--work-dir', path: this.workspace }, 'give a --work-dir outside the kernel tree');
    checkOwnedDir(workspaceDir(this.workspace));
    this.subject = { kind: 'kernel', tree: this.tree, patch: this.patchFile, object: this.object, config: config.source };
    if (config.source.kind === 'defconfig') this.notes.push(`${this.tree} has no .config: built with 'make defconfig' (pass --config FILE to use another)`);
    this.notes.push(`-O2 = CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE, -Os = CONFIG_CC_OPTIMIZE_FOR_SIZE, -O3 = the -O2 config plus KCFLAGS=-O3`);
    this.notes.push(`scratch tree and objects: ${this.workspace}`);
  }

  async enter(variant: Variant): Promise<void> {
    if (variant === 'before') {
      this.lock();
      await mirrorTree(this.tree, this.mirror);
      // Check (and apply) the patch before any build, so a bad patch fails in seconds.
      this.applied = await AppliedPatch.apply(this.mirror, this.tree, this.patchFile);
      this.applied.revert();
      this.applied = undefined;
    } else {
      this.applied = await AppliedPatch.apply(this.mirror, this.tree, this.patchFile);
    }
  }

  async build(compiler: CompilerInfo, opt: OptLevel, variant: Variant): Promise<BuildOutcome> {
    const level = configLevel(opt);
    const objdir = join(this.workspace, `obj-${compiler.command.replace(/[^\w.-]/g, '_')}-${level}`);
    const ready = await ensureObjdir(this.mirror, objdir, compiler.command, level, this.baseConfig);
    if (!ready.ok) return { state: 'failed', errorLines: this.tidy(ready.errorLines) };
    // The object of the other variant may be newer than the restored source: remove it so it is rebuilt.
    rmSync(join(objdir, this.object), { force: true });
    const made = await runMake(this.mirror, objdir, compiler.command, [...levelArgs(opt), this.object]);
    if (!made.ok) return { state: 'failed', errorLines: this.tidy(errorLines(made.output)) };
    const kept = join(this.workspace, 'objects', `${basename(objdir)}${opt === 'O3' ? '-O3' : ''}-${variant}.o`);
    mkdirSync(join(this.workspace, 'objects'), { recursive: true });
    copyFileSync(join(objdir, this.object), kept);
    return { state: 'built', objectPath: kept };
  }

  close(): Promise<void> {
    try {
      this.applied?.revert();
      this.applied = undefined;
      if (this.locked) rmSync(join(this.workspace, 'lock'), { force: true });
      this.locked = false;
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Paths relative to the tree, and make's cascade of '*** Error' lines cut to the first. */
  private tidy(lines: string[]): string[] {
    const relative = lines.map((l) => l.split(`${this.mirror}/`).join(''));
    const firstMake = relative.findIndex((l) => /^make(\[\d+\])?: \*\*\*/.test(l));
    return relative.filter((l, i) => i <= firstMake || !/^make(\[\d+\])?: \*\*\*/.test(l));
  }

  /** One run per workspace at a time: two would patch the same mirror. */
  private lock(): void {
    claimOwnedDir(workspaceDir(this.workspace));
    const taken = takePidLock(join(this.workspace, 'lock'));
    if ('heldBy' in taken) throw new UserError(`${this.workspace} is in use by hintlab process ${taken.heldBy}; wait for it, or pass another --work-dir`);
    this.locked = true;
  }
}
