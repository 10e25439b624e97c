/**
 * Debian's linux-source-6.12 for the slow tests that build kernels: the one
 * tree test/codegen/kernel-tree.ts unpacks once into hintlab's cache (the
 * tree is then only ever read), and where those tests keep their builds.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { testKernelTree } from '../codegen/kernel-tree.ts';


/** ~/.cache/hintlab (or $XDG_CACHE_HOME/hintlab). */
export const hintlabCache = join(process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache'), 'hintlab');

/** The unpacked tree, unpacking it first if needed. */
export function sourceTree(): string {
  return testKernelTree();
}
