/**
 * Where a build directory keeps its tree copy and make's object directory.
 *
 * The object directory sits directly below the tree copy
 * (`work/src/hintlab-obj`). The 6.12 top Makefile then uses `srctree := ..`
 * (relative) instead of the tree's absolute path, so the command lines
 * kbuild records in every `.cmd` file, and the dependency lists in them,
 * name no absolute path of this build directory: a copy of the object
 * directory under another build directory rebuilds only what changed.
 *
 * Builds made before this layout have `work/obj` beside `work/src`
 * (absolute srctree); they are still read (`hintlab vm`, a reused build,
 * gcov's object files) and rebuilt in the current layout when their inputs
 * change.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The object directory's name inside the tree copy. */
export const OBJ_DIR_NAME = 'hintlab-obj';

export interface BuildLayout {
  work: string;
  /** The hard-link copy of the user's tree, patches applied. */
  tree: string;
  /** make's O= directory. */
  obj: string;
  /** `work/obj` beside the tree (absolute srctree in its command lines): not copyable for an incremental build. */
  legacy: boolean;
}

/** The current layout of build directory `out`. */
export function buildLayout(out: string): BuildLayout {
  const work = join(out, 'work');
  const tree = join(work, 'src');
  return { work, tree, obj: join(tree, OBJ_DIR_NAME), legacy: false };
}

/** The layout a build directory actually has on disk: the legacy one when only `work/obj` is there. */
export function existingLayout(out: string): BuildLayout {
  const current = buildLayout(out);
  const legacyObj = join(current.work, 'obj');
  if (!existsSync(current.obj) && existsSync(legacyObj)) return { ...current, obj: legacyObj, legacy: true };
  return current;
}
