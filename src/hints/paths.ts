/**
 * `--path` values: root-relative paths that must exist inside `--src` and
 * stay there. `../x`, an absolute path elsewhere, or a symlink whose target
 * lies outside the tree would make `hints` read (and `--apply` write) files
 * the user did not point `--src` at.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.ts';

function inside(root: string, abs: string): boolean {
  const rel = relative(root, abs);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Check every `--path` against `root` and return them root-relative and
 * `/`-separated (an absolute path inside the tree is made relative). A
 * missing path is named; one outside the tree is refused.
 */
export function checkPaths(root: string, paths: readonly string[]): string[] {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch (err) {
    throw new UserError(`--src ${root}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; point --src at the C source tree`, 2);
  }
  return paths.map((p) => {
    const abs = resolve(root, p);
    if (!inside(resolve(root), abs)) {
      throw new UserError(`--path ${p} is outside --src ${root}; give a path inside the source tree, relative to it (like kernel/sched)`, 2);
    }
    let real: string;
    try {
      real = realpathSync(abs);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file or directory' : (code ?? (err as Error).message);
      throw new UserError(`--path ${p}: ${why} under --src ${root}; give a file or directory of the source tree (like kernel/sched)`, 2);
    }
    if (!inside(realRoot, real)) {
      throw new UserError(`--path ${p} leads outside --src ${root} (a symlink to ${real}); give a path inside the source tree`, 2);
    }
    return relative(resolve(root), abs).split(sep).join('/');
  });
}
