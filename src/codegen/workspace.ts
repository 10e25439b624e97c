/**
 * A scratch mirror of the user's kernel tree. Kbuild's `make O=DIR` refuses
 * a tree that was ever configured or built in place, and the patch must not
 * touch the user's files, so builds run from a mirror made of hard links
 * (a copy when the cache sits on another file system) without the tree's
 * configuration and build products. The mirror is only ever written through
 * `replaceWithCopy` (patch.ts breaks links before patching) and Kbuild writes
 * only into O=, so the user's files are never written.
 *
 * The mirror is kept between runs and brought up to date by comparing size
 * and modification time, so a second run costs a tree listing, not a copy.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, linkSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, utimesSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeAtomically } from '../write-file.ts';

/** `$XDG_CACHE_HOME/hintlab/codegen`, or `~/.cache/hintlab/codegen`. */
export function defaultWorkRoot(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'hintlab', 'codegen');
}

/** Paths never mirrored: the in-tree configuration and build products (they make `make O=` refuse, or are rebuilt in O=). */
const PRUNE_PATHS = ['.git', '.config', '.config.old', 'include/config', 'include/generated', 'arch/*/include/generated', 'vmlinux', 'vmlinux.*', 'System.map', 'Module.symvers', 'modules.order', '.version', '.tmp_*'];
const PRUNE_NAMES = ['*.o', '*.ko', '.*.cmd', '*.mod', '*.mod.c', '.*.d'];

interface Entry {
  type: 'f' | 'd' | 'l';
  sizeBytes: number;
  mtime: string;
  /** A symbolic link's target ('' otherwise): links are compared by target, their own mtime is the mirror's. */
  linkTarget: string;
}

/** Every mirrored entry below `dir`, by relative path, from one `find`. */
export function listTree(dir: string): Promise<Map<string, Entry>> {
  const prune = [
    ...PRUNE_PATHS.flatMap((p, i) => [...(i ? ['-o'] : []), '-path', `${dir}/${p}`]),
    ...PRUNE_NAMES.flatMap((n) => ['-o', '-name', n]),
  ];
  const args = [dir, '-mindepth', '1', '(', ...prune, ')', '-prune', '-o', '-printf', '%y\t%s\t%T@\t%l\t%P\\0'];
  return new Promise((resolve, reject) => {
    execFile('find', args, { maxBuffer: 1024 * 1024 * 1024 }, (err, stdout) => {
      if (err) { reject(new Error(`listing ${dir} failed: ${err.message}`)); return; }
      const entries = new Map<string, Entry>();
      for (const rec of stdout.split('\0')) {
        const [type, size, mtime, linkTarget, ...rest] = rec.split('\t');
        if (type !== 'f' && type !== 'd' && type !== 'l') continue;
        entries.set(rest.join('\t'), { type, sizeBytes: Number(size), mtime: mtime ?? '', linkTarget: linkTarget ?? '' });
      }
      resolve(entries);
    });
  });
}

/** Make `to` a copy of `from` that shares no inode with it (fresh modification time, so make rebuilds what depends on it). */
export function replaceWithCopy(from: string, to: string): void {
  rmSync(to, { force: true });
  copyFileSync(from, to);
}

/** Give `path` its own inode (same content), so writing it cannot reach a hard-linked original. */
export function breakLink(path: string): void {
  // through an exclusive temporary file: nothing the tree holds is followed
  writeAtomically(path, readFileSync(path), lstatSync(path).mode & 0o7777);
}

function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (err) {
    if (!['EXDEV', 'EPERM', 'EMLINK'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    copyFileSync(from, to);
    const st = lstatSync(from);
    utimesSync(to, st.atime, st.mtime);
  }
}

const sameContent = (a: string, b: string): boolean => readFileSync(a).equals(readFileSync(b));

export interface MirrorStats {
  /** Entries created or replaced. */
  updated: number;
  removed: number;
  entries: number;
}

/** Bring `copy` up to date with `tree` (both absolute paths). Only `copy` is written. */
export async function mirrorTree(tree: string, copy: string): Promise<MirrorStats> {
  mkdirSync(copy, { recursive: true });
  const [want, have] = await Promise.all([listTree(tree), listTree(copy)]);
  let removed = 0;
  let updated = 0;
  // Deepest first, so a directory is empty of tracked entries when removed.
  for (const path of [...have.keys()].sort().reverse()) {
    if (want.get(path)?.type !== have.get(path)?.type) {
      rmSync(join(copy, path), { recursive: true, force: true });
      have.delete(path);
      removed++;
    }
  }
  for (const [path, w] of [...want].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const h = have.get(path);
    const src = join(tree, path);
    const dst = join(copy, path);
    if (w.type === 'd') {
      if (!h) {
        mkdirSync(dst, { recursive: true });
        updated++;
      }
      continue;
    }
    if (h && w.type === 'l' && h.linkTarget === w.linkTarget) continue;
    if (h && w.type === 'f' && h.sizeBytes === w.sizeBytes && (h.mtime === w.mtime || sameContent(src, dst))) continue;
    if (h) unlinkSync(dst);
    mkdirSync(dirname(dst), { recursive: true });
    if (w.type === 'l') symlinkSync(readlinkSync(src), dst);
    else linkOrCopy(src, dst);
    updated++;
  }
  return { updated, removed, entries: want.size };
}
