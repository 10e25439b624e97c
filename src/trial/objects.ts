/**
 * Which objects of a kernel build a patch touches, from kbuild's own
 * records: every object's `.<name>.o.cmd` file lists its source
 * (`source_<obj> := ...`) and every file the compiler read for it
 * (`deps_<obj> := ...`, from gcc -MMD). File names are not enough: 6.12's
 * kernel/sched/syscalls.c has no object of its own, it is #included into
 * kernel/sched/build_policy.o, and a header reaches every object that
 * includes it.
 *
 * Paths in those files are relative to make's object directory (`../` is
 * the tree when the object directory sits inside it, src/kernel/layout.ts)
 * or absolute (builds of the earlier layout); both are read back as paths
 * relative to the tree. Generated files (include/generated/...) are not in
 * the tree and never match a patched file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

/** How an object reaches a patched file: it is the object's source, a .c/.S file it #includes, or a header. */
export type Reach = 'source' | 'includes' | 'header';

export const REACH_RANK: Record<Reach, number> = { source: 0, includes: 1, header: 2 };

export interface CmdRecord {
  /** The object, relative to the object directory (= its path in the tree, with .o). */
  object: string;
  /** Its source file, relative to the tree (null when outside it). */
  source: string | null;
  /** Every dependency inside the tree, relative to it. */
  deps: string[];
}

export interface TouchedObject {
  object: string;
  reach: Reach;
  /** The patched files it reads. */
  files: string[];
}

/** Directories of host programs (kconfig, objtool, modpost): they are not the kernel's code. */
const HOST_DIRS = new Set(['scripts', 'tools']);

/**
 * Paths as kbuild wrote them, made relative to the tree; outside the tree
 * or inside the object directory (generated files): null. The common case,
 * `../x` with the object directory one level below the tree, is a slice.
 */
function treePaths(objDir: string, tree: string): (path: string) => string | null {
  const below = relative(tree, objDir);
  const oneLevel = below !== '' && !below.includes('/') && !below.startsWith('..');
  return (path) => {
    // gcc names a file as it opened it: `../kernel/sched/../../include/x.h` for a relative #include, resolved below
    if (oneLevel && path.startsWith('../') && !path.slice(3).includes('..') && !path.includes('/./')) return path.slice(3);
    const abs = isAbsolute(path) ? path : resolve(objDir, path);
    const fromObj = relative(objDir, abs);
    if (!fromObj.startsWith('..') && !isAbsolute(fromObj)) return null;
    const rel = relative(tree, abs);
    return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? null : rel;
  };
}

/** Parse one `.cmd` file; null when it records no compiled object (archives, links, host tools without deps). */
export function parseCmdFile(text: string, objDir: string, tree: string): CmdRecord | null {
  const source = /^source_(\S+\.o) := (\S+)\s*$/m.exec(text);
  if (!source) return null;
  const object = source[1]!;
  const rel = treePaths(objDir, tree);
  const head = `\ndeps_${object} :=`;
  const at = text.indexOf(head);
  const words: string[] = [];
  // the list runs to the first line that does not end in a backslash
  for (const line of at < 0 ? [] : text.slice(at + head.length).split('\n')) {
    words.push(...line.replace(/\$\(wildcard [^)]*\)/g, ' ').replace(/\\\s*$/, '').split(/\s+/).filter((w) => w !== ''));
    if (!/\\\s*$/.test(line)) break;
  }
  return { object, source: rel(source[2]!), deps: [...new Set(words.map(rel).filter((p): p is string => p !== null))] };
}

/** Every `.<name>.o.cmd` under the object directory, host-program directories left out. */
export function cmdFiles(objDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, top: boolean): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!(top && HOST_DIRS.has(e.name))) walk(join(dir, e.name), false);
      } else if (e.isFile() && /^\..+\.o\.cmd$/.test(e.name)) out.push(join(dir, e.name));
    }
  };
  walk(objDir, true);
  return out.sort();
}

function reachOf(rec: CmdRecord, file: string): Reach | null {
  if (rec.source === file) return 'source';
  if (!rec.deps.includes(file)) return null;
  return /\.(c|S)$/.test(file) ? 'includes' : 'header';
}

/**
 * The objects of a build that read any of `files` (relative to the tree),
 * closest first: those built from a patched file, then those that #include
 * a patched .c or .S file, then those that include a patched header; by
 * name within each.
 */
export function objectsTouching(objDir: string, tree: string, files: readonly string[]): TouchedObject[] {
  const touched: TouchedObject[] = [];
  // a file's base name must appear in the text for it to be listed: most .cmd files are never parsed
  const names = [...new Set(files.map((f) => f.slice(f.lastIndexOf('/') + 1)))];
  for (const cmd of cmdFiles(objDir)) {
    const text = readFileSync(cmd, 'utf8');
    if (!names.some((n) => text.includes(n))) continue;
    const rec = parseCmdFile(text, objDir, tree);
    if (!rec) continue;
    const hits = files.map((f) => ({ f, reach: reachOf(rec, f) })).filter((h): h is { f: string; reach: Reach } => h.reach !== null);
    if (hits.length === 0) continue;
    const reach = hits.map((h) => h.reach).sort((a, b) => REACH_RANK[a] - REACH_RANK[b])[0]!;
    touched.push({ object: rec.object, reach, files: hits.map((h) => h.f) });
  }
  return touched.sort((a, b) => REACH_RANK[a.reach] - REACH_RANK[b.reach] || a.object.localeCompare(b.object));
}
