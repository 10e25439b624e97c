/**
 * Workloads: named sets of profile files (gcov JSON and/or branch profiler
 * statistics) taken while one workload ran. Counts of one workload are
 * summed per source line; workloads stay apart so a proposal can require
 * every one of them to agree.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.ts';
import { addLine, readGcovJson, type GcovFunction, type LineCounts } from './gcov.ts';
import { looksLikeProfiler, readProfiler, type ProfilerRow } from './profiler.ts';
import { looksLikeBranchSet, readBranchSet, type BranchSet } from './exact-set.ts';
import { indexJumps, type JumpIndex } from './exact.ts';

/** `[name=]path` as given on the command line. */
export interface WorkloadSpec {
  name: string;
  path: string;
}

/** Line counts of one source file within one workload, with where they came from. */
export interface FileCounts {
  lines: Map<number, LineCounts>;
  /** gcov's function records of this file (name and line range), from every document. */
  functions: GcovFunction[];
  /** The profile files that contributed, for error messages. */
  from: string[];
}

export interface Workload {
  name: string;
  /** Every profile file read. */
  files: string[];
  /** Newest modification time of the profile files, ms since the epoch. */
  newestMtimeMs: number;
  /** Root-relative source path -> counts. */
  gcov: Map<string, FileCounts>;
  profiler: { source: string; rows: ProfilerRow[] }[];
  /** Branch sets of the kernel as built (`hints collect --exact`), and their jumps indexed by source line; null without one. */
  exact: { sets: BranchSet[]; index: JumpIndex } | null;
  /** gcov paths that are not in the source tree (system headers, other trees). */
  outside: string[];
  /**
   * Root-relative paths of profiled files that belong to the profiled tree
   * (under --src, or under the checkout the other files resolved from) but
   * that --src lacks.
   */
  missing: string[];
}

/** Parse `name=path` or `path` (named after the path's base name). */
export function parseWorkloadSpec(arg: string): WorkloadSpec {
  const eq = arg.indexOf('=');
  if (eq > 0 && !arg.slice(0, eq).includes('/')) return { name: arg.slice(0, eq), path: arg.slice(eq + 1) };
  return { name: basename(arg).replace(/\.gcov\.json(\.gz)?$/, ''), path: arg };
}

const PROFILE_FILE_RE = /(\.gcov\.json(\.gz)?|^branch_annotated|^branch_all|^branches\.json)$/;

function profileFiles(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new UserError(`profile ${path} does not exist (give a .gcov.json.gz file, a branch profiler file, a branches.json or a directory of them)`);
  }
  if (!st.isDirectory()) return [path];
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (PROFILE_FILE_RE.test(e.name)) found.push(p);
    }
  };
  walk(path);
  if (found.length === 0) throw new UserError(`profile directory ${path} holds no *.gcov.json(.gz), branch_annotated, branch_all or branches.json file`);
  return found.sort();
}

/**
 * Map a path gcov wrote to a path relative to `root`, or null when the file
 * is not in the tree. Paths from another checkout of the same tree resolve
 * by their longest suffix that exists under `root`.
 */
export function resolveUnderRoot(root: string, cwd: string, path: string): string | null {
  const abs = isAbsolute(path) ? path : resolve(cwd || root, path);
  const rel = relative(root, abs);
  if (!rel.startsWith('..') && !isAbsolute(rel) && existsSync(abs)) return rel.split(sep).join('/');
  const parts = path.split(/[\\/]+/).filter((p) => p !== '' && p !== '.' && p !== '..');
  for (let k = 0; k < parts.length; k++) {
    const candidate = parts.slice(k).join('/');
    if (existsSync(join(root, candidate))) return candidate;
  }
  return null;
}

type ProfileKind = 'gcov' | 'profiler' | 'exact';

/** Tell gcov JSON (gzip'd or not), a branch set and branch profiler text apart by the first bytes. */
function profileKind(path: string): ProfileKind {
  const head = readFileSync(path).subarray(0, 200);
  if (looksLikeBranchSet(head.toString('utf8'))) return 'exact';
  if ((head[0] === 0x1f && head[1] === 0x8b) || head.toString('utf8').trimStart().startsWith('{')) return 'gcov';
  if (looksLikeProfiler(head.toString('utf8'))) return 'profiler';
  throw new UserError(
    `${path}: neither gcov JSON (gcov --json-format -b, .gcov.json[.gz]), a branch profiler file (trace_stat/branch_annotated or branch_all) nor a branch set (branches.json of hints collect --exact)`,
  );
}

/** Read every profile file of the given specs, grouping specs that share a name. */
export function loadWorkloads(root: string, specs: WorkloadSpec[]): Workload[] {
  const byName = new Map<string, Workload>();
  const trees = new Map<Workload, TreeGuess>();
  for (const spec of specs) {
    let w = byName.get(spec.name);
    if (!w) {
      w = { name: spec.name, files: [], newestMtimeMs: 0, gcov: new Map(), profiler: [], exact: null, outside: [], missing: [] };
      byName.set(spec.name, w);
      trees.set(w, { root: resolve(root), others: new Map(), unresolved: [] });
    }
    for (const file of profileFiles(spec.path)) addProfileFile(root, w, file, trees.get(w)!);
  }
  for (const [w, tree] of trees) splitUnresolved(w, tree);
  return [...byName.values()];
}

/**
 * Where the profiled tree was: --src, or the checkout most of gcov's paths
 * resolved from (a kernel built in a copy of the tree). Counting keeps out a
 * lone system header that happens to share a suffix with a tree file.
 */
interface TreeGuess {
  root: string;
  /** Other checkout's root -> files that resolved from it. */
  others: Map<string, number>;
  unresolved: string[];
}

function profiledRoots(tree: TreeGuess): string[] {
  const best = [...tree.others].sort((a, b) => b[1] - a[1])[0];
  return best ? [tree.root, best[0]] : [tree.root];
}

/**
 * A path under the profiled tree that --src lacks is "missing" (a wrong or
 * partial --src); anything else (system headers, generated files elsewhere)
 * is "outside".
 */
function splitUnresolved(w: Workload, tree: TreeGuess): void {
  const roots = profiledRoots(tree);
  for (const abs of tree.unresolved) {
    const root = roots.find((r) => abs.startsWith(r + sep));
    if (root) {
      const rel = relative(root, abs).split(sep).join('/');
      if (!w.missing.includes(rel)) w.missing.push(rel);
    } else if (!w.outside.includes(abs)) w.outside.push(abs);
  }
}

function addProfileFile(root: string, w: Workload, file: string, tree: TreeGuess): void {
  w.files.push(file);
  w.newestMtimeMs = Math.max(w.newestMtimeMs, statSync(file).mtimeMs);
  const kind = profileKind(file);
  if (kind === 'profiler') {
    w.profiler.push({ source: file, rows: readProfiler(file) });
    return;
  }
  if (kind === 'exact') {
    const set = readBranchSet(file);
    const sets = [...(w.exact?.sets ?? []), set];
    w.exact = { sets, index: indexJumps(sets.flatMap((s) => s.jumps)) };
    placeSetFiles(root, w, set);
    return;
  }
  const doc = readGcovJson(file);
  for (const f of doc.files) {
    const rel = resolveUnderRoot(root, doc.cwd, f.path);
    const abs = isAbsolute(f.path) ? f.path : resolve(doc.cwd || root, f.path);
    if (rel === null) {
      tree.unresolved.push(abs);
      continue;
    }
    if (abs.endsWith(`${sep}${rel}`)) {
      const other = abs.slice(0, -rel.length - 1);
      if (other !== tree.root) tree.others.set(other, (tree.others.get(other) ?? 0) + 1);
    }
    let acc = w.gcov.get(rel);
    if (!acc) {
      acc = { lines: new Map(), functions: [], from: [] };
      w.gcov.set(rel, acc);
    }
    if (!acc.from.includes(file)) acc.from.push(file);
    for (const [line, c] of f.lines) addLine(acc.lines, line, c);
    acc.functions.push(...f.functions);
  }
}

/** A branch set's files that --src lacks are "missing", absolute ones (system headers, another tree) "outside". */
function placeSetFiles(root: string, w: Workload, set: BranchSet): void {
  const files = new Set(set.jumps.flatMap((j) => j.at.map((f) => f.file)));
  for (const f of files) {
    if (isAbsolute(f) || f.startsWith('..')) {
      if (!w.outside.includes(f)) w.outside.push(f);
    } else if (!existsSync(join(root, f)) && !w.missing.includes(f)) w.missing.push(f);
  }
}
