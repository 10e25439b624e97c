/**
 * Debian's linux-source-6.12, unpacked once into hintlab's cache for the
 * slow tests that build kernels; the tree is then only ever read.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const KERNEL_TARBALL = '/usr/src/linux-source-6.12.tar.xz';

/** ~/.cache/hintlab (or $XDG_CACHE_HOME/hintlab). */
export const hintlabCache = join(process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache'), 'hintlab');

/** The unpacked tree, unpacking it first if needed. */
export function sourceTree(): string {
  const src = join(hintlabCache, 'src');
  const tree = join(src, 'linux-source-6.12');
  if (!existsSync(tree)) {
    // unpack beside, then rename: an interrupted tar never leaves half a tree behind
    const partial = join(src, `.unpack-${process.pid}`);
    mkdirSync(partial, { recursive: true });
    const r = spawnSync('tar', ['xf', KERNEL_TARBALL, '-C', partial], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    renameSync(join(partial, 'linux-source-6.12'), tree);
    rmSync(partial, { recursive: true, force: true });
  }
  return tree;
}
