/**
 * The record `hintlab kernel build` writes next to the bzImage it built
 * (`<out>/hintlab-kernel.json`), read back by `hintlab vm` when `--kernel`
 * names a build directory and by the next build to decide whether anything
 * changed.
 *
 * Format history: schema 1 (first version).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MANIFEST_FILE = 'hintlab-kernel.json';
export const IMAGE_FILE = 'bzImage';

export type OptLevel = 'O2' | 'Os';

export interface PatchRecord {
  /** As given on the command line (absolute). */
  path: string;
  sha256: string;
  /** Files the patch touches, relative to the source tree. */
  files: string[];
}

export interface KernelManifest {
  schema: 1;
  label: string;
  /** The bzImage's file name inside the output directory. */
  image: string;
  source: {
    dir: string;
    /** VERSION.PATCHLEVEL.SUBLEVEL+EXTRAVERSION from the tree's Makefile. */
    version: string;
    /** sha256 over every file's path, size and mtime: changes when the tree does. */
    fingerprint: string;
  };
  patches: PatchRecord[];
  /** `tinyconfig`, `defconfig`, or `file:<path>`. */
  base: string;
  opt: OptLevel;
  /** sha256 of the fragment merged on top of the base (built-in + user's). */
  fragmentSha256: string;
  /** sha256 of the final .config. */
  configSha256: string;
  /** Options the fragment asked for that olddefconfig dropped (unmet dependencies). */
  droppedOptions: string[];
  compiler: string;
  /** sha256 over everything above that decides the output: equal key, reusable image. */
  inputKey: string;
  buildSeconds: number;
  builtAt: string;
}

/** Read a manifest, or null when the directory has none. Throws with the file name on a broken one. */
export function readManifest(dir: string): KernelManifest | null {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${(err as Error).message}); delete it and rebuild`);
  }
  const m = parsed as Partial<KernelManifest>;
  if (m.schema !== 1 || typeof m.image !== 'string' || typeof m.label !== 'string') {
    throw new Error(`${path}: not a hintlab kernel manifest of schema 1; delete it and rebuild`);
  }
  return m as KernelManifest;
}
