/**
 * Debian's linux-source-6.12, extracted once into
 * $XDG_CACHE_HOME/hintlab/test-kernel/ (about 1.5 GB, a minute). Used by the
 * slow kernel test and by bench/codegen-mincore.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const KERNEL_TARBALL = '/usr/src/linux-source-6.12.tar.xz';

export function testKernelTree(env: NodeJS.ProcessEnv = process.env): string {
  const root = join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hintlab', 'test-kernel');
  const tree = join(root, 'linux-source-6.12');
  if (existsSync(join(tree, 'Makefile'))) return tree;
  if (!existsSync(KERNEL_TARBALL)) throw new Error(`${KERNEL_TARBALL} is missing: apt-get install -y linux-source-6.12`);
  // Extract beside the final place and rename, so an interrupted extraction is never taken for a tree.
  const partial = join(root, 'partial');
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  execFileSync('tar', ['xf', KERNEL_TARBALL, '-C', partial]);
  renameSync(join(partial, 'linux-source-6.12'), tree);
  rmSync(partial, { recursive: true, force: true });
  return tree;
}
