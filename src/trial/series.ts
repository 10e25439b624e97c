/**
 * What B is made of, read from the trial's inputs before anything is
 * written: the `--patch` files (a plain diff as it is; an mbox series
 * split into its patches, the cover letter left out), or with `--range
 * BASE..HEAD` the commits between, each as its change against its first
 * parent. Every patch carries the subject a report names it by.
 *
 * `placeSeries` then writes what the trial builds from into hintlab's own
 * area under --out: `series/NNNN-<subject>.patch` for each patch hintlab
 * made, and for a range BASE's tree exported with `git archive` into
 * `git/<hash>` (done once per commit; A is built from it). The user's
 * repository is only read (src/kernel/git.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import { commitPatch, exportTree, gitTopLevel, resolveRange, short, type GitCommit } from '../kernel/git.ts';
import { isMbox, splitMbox } from '../kernel/mbox.ts';
import { writeAtomically } from '../write-file.ts';

/** One patch of B, in the order it is applied. */
export interface SeriesPatch {
  /** What the report names it by: the mail's or commit's subject; null for a plain diff (named by its file). */
  subject: string | null;
  author: string | null;
  /** The commit it is (with --range), else null. */
  commit: string | null;
  /** Where it came from, for messages: `--patch s.mbox, message 2`, `commit 1a2b3c4d5e6f`. */
  origin: string;
  text: string;
  /** The user's own file, used as it is (a plain diff); null when hintlab writes the patch under --out/series. */
  file: string | null;
}

/** B's patches, and for a range its two ends in the user's repository. */
export interface TrialSeries {
  git: { repo: string; range: string; base: GitCommit; head: GitCommit } | null;
  patches: SeriesPatch[];
}

/** What a trial reads its inputs from. */
export interface SeriesInput {
  src: string;
  patches: readonly string[];
  range?: string | null;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a diff' : code === 'EACCES' ? 'not readable (permission denied)' : (code ?? (err as Error).message);
    throw new UserError(`--patch ${path}: ${why}`, 2);
  }
}

function patchFile(path: string): SeriesPatch[] {
  const text = readText(path);
  if (!isMbox(text)) return [{ subject: null, author: null, commit: null, origin: `--patch ${path}`, text, file: path }];
  return splitMbox(text, `--patch ${path}`).map((m) => ({ subject: m.subject, author: m.author, commit: null, origin: `--patch ${path}, message ${m.message}`, text: m.diff, file: null }));
}

function rangeSeries(src: string, range: string): TrialSeries {
  const repo = gitTopLevel(src);
  if (realpathSync(repo) !== realpathSync(src)) throw new UserError(`--src ${src}: is inside the git repository ${repo}, not its top; give --src ${repo}`, 2);
  const r = resolveRange(repo, range);
  const patches = r.commits.map((c) => ({ subject: c.subject, author: c.author, commit: c.commit, origin: `commit ${c.commit.slice(0, 12)}`, text: commitPatch(repo, c), file: null }));
  return { git: { repo, range, base: r.base, head: r.head }, patches };
}

/** B's patches from --patch files or --range; nothing is written. */
export function readSeries(input: SeriesInput): TrialSeries {
  if (input.range) {
    if (input.patches.length > 0) throw new UserError('--range and --patch: give one (B is HEAD of the range, or the tree plus the patches)', 2);
    return rangeSeries(input.src, input.range);
  }
  return { git: null, patches: input.patches.flatMap(patchFile) };
}

/** `0002-sched-fast-path-for-setparam.patch`, as git format-patch names a patch. */
export function seriesFileName(index: number, subject: string): string {
  const slug = subject.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 52).replace(/-+$/, '');
  return `${String(index + 1).padStart(4, '0')}-${slug || 'patch'}.patch`;
}

/** Write each patch hintlab made under `<out>/series` (a file is rewritten only when its text changed); every patch's path in order. */
function writeSeries(series: TrialSeries, out: string): string[] {
  const dir = join(out, 'series');
  const names = series.patches.map((p, i) => (p.file === null ? seriesFileName(i, p.subject ?? 'patch') : null));
  if (names.some((n) => n !== null)) mkdirSync(dir, { recursive: true });
  for (const name of existsSync(dir) ? readdirSync(dir) : []) if (!names.includes(name)) rmSync(join(dir, name), { force: true });
  return series.patches.map((p, i) => {
    const name = names[i];
    if (name === null || name === undefined) return p.file!;
    const path = join(dir, name);
    if (!existsSync(path) || readFileSync(path, 'utf8') !== p.text) writeAtomically(path, p.text);
    return path;
  });
}

/**
 * BASE's tree under `<out>/git/<hash>`, exported once (into a temporary
 * name, renamed when whole); trees of other commits there are removed, as
 * A is rebuilt for a new BASE anyway.
 */
async function baseTree(repo: string, base: GitCommit, out: string, abort?: AbortSignal, say?: (line: string) => void): Promise<string> {
  const dir = join(out, 'git');
  const tree = join(dir, base.commit);
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) if (name !== base.commit) rmSync(join(dir, name), { recursive: true, force: true });
  if (existsSync(tree)) return tree;
  say?.(`exporting ${short(base)} of ${repo} into ${tree} with git archive (the repository is only read)`);
  const partial = `${tree}.partial`;
  await exportTree(repo, base.commit, partial, abort);
  renameSync(partial, tree);
  return tree;
}

/** What the builds read: the tree A is (the user's, or BASE's export) and B's patch files in order; `say` hears of an export as it starts. */
export async function placeSeries(series: TrialSeries, src: string, out: string, abort?: AbortSignal, say?: (line: string) => void): Promise<{ src: string; patches: string[] }> {
  const patches = writeSeries(series, out);
  return { src: series.git ? await baseTree(series.git.repo, series.git.base, out, abort, say) : src, patches };
}
