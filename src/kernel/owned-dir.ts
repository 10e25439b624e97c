/**
 * Directories hintlab clears, and the user's trees it must never reach.
 *
 * A directory hintlab makes to work in (a kernel build's `--out`, a codegen
 * workspace) gets a marker file, `.hintlab-dir`, when hintlab creates it.
 * Only a directory that carries the marker, or that an earlier hintlab
 * demonstrably made (the caller's `legacy` rule), or that is new or empty,
 * is ever cleared or written into; anything else is refused, naming the
 * directory and the fix.
 *
 * Separately, a source tree and a directory hintlab clears must not be
 * inside one another (either way, or the same), compared by real path so a
 * symlink cannot hide it: the copy of a tree into itself, or clearing a
 * directory that holds the tree, loses the user's files.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { UserError } from '../errors.ts';
import { writeAtomically } from '../write-file.ts';

export const MARKER_FILE = '.hintlab-dir';

/** The real path of `path`: links resolved in the part that exists, the rest appended. */
export function realPathOf(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPathOf(parent), basename(abs));
  }
}

const within = (inner: string, outer: string): boolean => inner === outer || inner.startsWith(outer === sep ? outer : outer + sep);

export interface NamedPath {
  flag: string;
  path: string;
}

/**
 * Refuse a source tree that is the same as, inside, or above a directory
 * hintlab clears or writes (`out`), before anything is removed. `fix` says
 * where the output belongs ("put the output outside the kernel tree").
 */
export function refuseNested(src: NamedPath, out: NamedPath, fix: string): void {
  const s = realPathOf(src.path);
  const o = realPathOf(out.path);
  const real = (x: NamedPath, r: string): string => `${x.flag} ${x.path}${resolve(x.path) === r ? '' : ` (really ${r})`}`;
  if (s !== o && within(o, s)) throw new UserError(`${real(out, o)} is inside ${real(src, s)}; ${fix}`, 2);
  if (!within(s, o)) return;
  throw new UserError(
    `${real(src, s)} ${s === o ? 'is' : 'is inside'} ${real(out, o)}, which hintlab clears and rewrites while the tree is only ever read; ` +
      `${fix} (nothing was removed)`,
    2,
  );
}

export interface OwnedDir {
  /** The directory (absolute). */
  dir: string;
  /** The flag that named it, for messages (`--out`). */
  flag: string;
  /** What hintlab keeps there, for messages and the marker's text ("kernel build directory"). */
  what: string;
  /** True when an earlier hintlab, which wrote no marker, made this directory (see the callers' rules). */
  legacy: (dir: string) => boolean;
}

/**
 * Whether `dir` exists (following links): true for a directory, false when
 * there is nothing yet; anything else is refused as a usage error ending
 * with `fix`.
 */
export function isExistingDirectory(flag: string, dir: string, fix: string): boolean {
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    throw new UserError(`${flag} ${dir}: ${code === 'ENOTDIR' ? 'a part of the path is a file, not a directory' : (code ?? (err as Error).message)}; ${fix}`, 2);
  }
  if (!st.isDirectory()) throw new UserError(`${flag} ${dir} exists and is not a directory; ${fix}`, 2);
  return true;
}

/**
 * Check that `o.dir` may be written and cleared by hintlab: a directory
 * (or nothing yet) that is new, empty, marked, or recognised by the legacy
 * rule. Writes nothing.
 */
export function checkOwnedDir(o: OwnedDir): void {
  if (!isExistingDirectory(o.flag, o.dir, `give a new directory (hintlab creates it) or an earlier ${o.what}`)) return;
  if (existsSync(join(o.dir, MARKER_FILE)) || readdirSync(o.dir).length === 0 || o.legacy(o.dir)) return;
  throw new UserError(
    `${o.flag} ${o.dir} holds files hintlab did not write (it has no ${MARKER_FILE}, and is no ${o.what} of an earlier hintlab); ` +
      `hintlab clears directories inside it, so it refuses: choose a new or empty directory, or move those files away`,
    2,
  );
}

/** Check `o.dir` (see `checkOwnedDir`), create it if needed and mark it as hintlab's. */
export function claimOwnedDir(o: OwnedDir): void {
  checkOwnedDir(o);
  mkdirSync(o.dir, { recursive: true });
  const marker = join(o.dir, MARKER_FILE);
  if (!existsSync(marker)) writeAtomically(marker, `made by hintlab: ${o.what}; hintlab clears and rewrites what is inside it\n`);
}
