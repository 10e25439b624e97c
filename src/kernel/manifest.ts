/**
 * The record `hintlab kernel build` writes next to the bzImage it built
 * (`<out>/hintlab-kernel.json`), read back by `hintlab vm` when `--kernel`
 * names a build directory and by the next build to decide whether anything
 * changed.
 *
 * Format history: schema 1 (first version). Fields added later, all optional
 * so older manifests keep reading (and older hintlabs read newer ones):
 * `release` (the kernel release, what `uname -r` will say), `incremental`
 * (built from a copy of another build's objects), `box` (the base
 * configuration came from a box over ssh), `localVersion`, `modules`,
 * `objectsCompiled`, `patches[].applied` (where each hunk applied, with its
 * offset and fuzz, as patch(1) reported it).
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
  /**
   * Where each hunk applied, from patch(1)'s own report (absent in
   * manifests written before it was recorded, and in a build reused from one).
   */
  applied?: AppliedFile[];
}

/** One file of a patch as patch(1) applied it. */
export interface AppliedFile {
  /** Relative to the source tree. */
  file: string;
  hunks: AppliedHunk[];
}

export interface AppliedHunk {
  /** 1-based, as patch(1) counts them within the file. */
  hunk: number;
  /** The line of the patched file where the hunk starts (its header's, plus the offset). */
  line: number;
  /** Lines away from where the hunk's header put it (patch's "offset N lines"); 0 when it applied where the header said. */
  offsetLines: number;
  /** Context lines patch ignored (always 0: builds apply with --fuzz=0). */
  fuzz: number;
}

/** The build this one started from (`kernel build --from DIR`): a copy of its objects. */
export interface IncrementalFrom {
  dir: string;
  label: string;
  inputKey: string;
}

/** Where a box-based build's base configuration came from. */
export interface BoxConfigRecord {
  /** `ssh://[user@]host[:port]` */
  url: string;
  /** The file read on the box: `/proc/config.gz` or `/boot/config-<release>`. */
  path: string;
  /** `uname -r` on the box when the configuration was fetched. */
  release: string;
  /** sha256 of the configuration text (decompressed). */
  sha256: string;
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
  /** `make -s kernelrelease` (absent in manifests written before it was recorded). */
  release?: string;
  /** CONFIG_LOCALVERSION hintlab set (box-based builds: `-hintlab-<label>`). */
  localVersion?: string;
  /** How `=m` options of the base were handled: `builtin` (mod2yesconfig), `local-builtin` (localyesconfig from the box's modules). */
  modules?: 'builtin' | 'local-builtin';
  /** With --localmodconfig: sha256 of the module list (the box's /proc/modules, or --lsmod) kept built in; the list is saved as `modules-list`. */
  modulesListSha256?: string;
  /** The --config-fragment file, or null for none. */
  fragmentFile?: string | null;
  /** Named fragments added by hintlab (`--behave`, `--debug-checks`); absent when none were. */
  fragments?: string[];
  /** Objects compiled by this build ("  CC" lines of the log). */
  objectsCompiled?: number;
  incremental?: IncrementalFrom;
  box?: BoxConfigRecord;
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
