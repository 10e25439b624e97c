/**
 * The git a bisect needs, read-only on the user's repository: refs
 * resolved to commits, the first-parent line from good to bad with each
 * commit's subject and author, whether a commit is a merge, a commit's
 * tree exported with `git archive` (which reads objects only: HEAD, the
 * index, the work tree and the stashes are never written), and the diff
 * between two commits for an incremental build.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { UserError } from '../errors.ts';
import type { Commit } from './search.ts';

/** Large enough for `git diff` between two releases of a kernel tree. */
const MAX_BUFFER = 1 << 30;

function git(src: string, args: string[]): { ok: boolean; stdout: string; stderr: string } {
  const r = spawnSync('git', ['-C', src, ...args], { encoding: 'utf8', maxBuffer: MAX_BUFFER });
  if (r.error) throw new UserError(`cannot run git: ${r.error.message}; install git (apt-get install -y git)`, 2);
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr.trim() };
}

/** The commit `ref` names, or a refusal naming the flag. */
export function resolveRef(src: string, ref: string, flag: string): string {
  const top = git(src, ['rev-parse', '--git-dir']);
  if (!top.ok) throw new UserError(`--src ${src} is not a git repository (${top.stderr}); bisect needs a git tree`, 2);
  const r = git(src, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!r.ok) throw new UserError(`${flag} ${ref}: no such commit in ${src}; give a commit, tag or branch name (git log names them)`, 2);
  return r.stdout.trim();
}

const SEP = '\u001f';

/**
 * Commits from good to bad along bad's first parents, both included, oldest
 * first. Refused when good is not on that line (not an ancestor, or only
 * through a merged branch), or when good and bad are the same commit.
 */
export function firstParentLine(src: string, goodRef: string, badRef: string): Commit[] {
  const good = resolveRef(src, goodRef, '--good');
  const bad = resolveRef(src, badRef, '--bad');
  if (good === bad) throw new UserError(`--good ${goodRef} and --bad ${badRef} are the same commit (${good.slice(0, 12)}); nothing lies between them`, 2);
  if (!git(src, ['merge-base', '--is-ancestor', good, bad]).ok) {
    throw new UserError(`--good ${goodRef} is not an ancestor of --bad ${badRef}; give a good commit older than the bad one (git bisect needs the same)`, 2);
  }
  const r = git(src, ['log', '--first-parent', '--reverse', `--format=%H${SEP}%an <%ae>${SEP}%s`, `${good}..${bad}`]);
  if (!r.ok) throw new UserError(`git log ${goodRef}..${badRef} failed: ${r.stderr}`, 2);
  const after = r.stdout.split('\n').filter(Boolean).map(toCommit);
  const boundary = git(src, ['log', '-1', `--format=%H${SEP}%an <%ae>${SEP}%s`, good]);
  // good reached only through a merged side branch: the first-parent line skips over it
  const parentOfFirst = after[0] ? git(src, ['rev-parse', `${after[0].hash}^1`]).stdout.trim() : good;
  if (parentOfFirst !== good) {
    throw new UserError(`--good ${goodRef} is not on the first-parent line of --bad ${badRef} (it was merged from a side branch); bisect searches first-parent history: give the merge's first parent or a commit on ${badRef}'s own line`, 2);
  }
  return [toCommit(boundary.stdout.trim()), ...after];
}

function toCommit(line: string): Commit {
  const [hash = '', author = '', ...subject] = line.split(SEP);
  return { hash, author, subject: subject.join(SEP) };
}

/** Whether `hash` has more than one parent. */
export function isMerge(src: string, hash: string): boolean {
  return git(src, ['rev-parse', '--verify', '--quiet', `${hash}^2`]).ok;
}

/** Write the tree of `hash` into `dir` (emptied first) with git archive: the repository is only read. */
export function exportCommit(src: string, hash: string, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tar = `${dir}.tar`;
  try {
    const archive = git(src, ['archive', '--format=tar', `--output=${tar}`, hash]);
    if (!archive.ok) throw new UserError(`cannot export commit ${hash.slice(0, 12)} of ${src}: ${archive.stderr}`);
    const x = spawnSync('tar', ['-x', '-f', tar, '-C', dir], { encoding: 'utf8' });
    if (x.status !== 0) throw new UserError(`cannot unpack commit ${hash.slice(0, 12)} into ${dir}: ${x.stderr.trim() || `tar exit ${x.status}`}`);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    rmSync(tar, { force: true });
  }
}

/** The diff from `from` to `to` (binary hunks included), as patch(1) and git apply read it with -p1. */
export function diffBetween(src: string, from: string, to: string): string {
  const r = git(src, ['diff', '--no-color', '--no-ext-diff', '--binary', from, to]);
  if (!r.ok) throw new UserError(`git diff ${from.slice(0, 12)} ${to.slice(0, 12)} failed: ${r.stderr}`);
  return r.stdout;
}
