/**
 * The history a bisect searches, read with src/kernel/git.ts (read-only on
 * the user's repository): the first-parent line from good to bad with each
 * commit's subject and author, whether a commit is a merge, and the diff
 * between two commits of the line for an incremental build.
 */
import { spawnSync } from 'node:child_process';
import { UserError } from '../errors.ts';
import { commitInfo, gitTopLevel, isAncestor, rangeCommits, revParse, type GitCommit } from '../kernel/git.ts';
import type { Commit } from './search.ts';

const toCommit = (c: GitCommit): Commit => ({ hash: c.commit, subject: c.subject, author: c.author });

/** git with the user's diff settings overridden, reading only; stdout, or a UserError naming what failed. */
function gitRead(src: string, args: readonly string[], what: string): { ok: boolean; stdout: string } {
  const settings = ['-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'core.quotePath=false'];
  const r = spawnSync('git', ['-C', src, ...settings, ...args], { encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }, maxBuffer: 1 << 30 });
  if (r.error) throw new UserError(`cannot run git for ${what} (${r.error.message}); install it with 'apt-get install git'`);
  return { ok: r.status === 0, stdout: r.stdout };
}

/**
 * Commits from good to bad along bad's first parents, both included, oldest
 * first. Refused, naming the flag, when a ref names no commit, when good
 * is not an ancestor of bad or only reached through a merged side branch
 * (the first-parent line skips it), or when both are the same commit.
 */
export function firstParentLine(src: string, goodRef: string, badRef: string): Commit[] {
  gitTopLevel(src);
  const good = revParse(src, goodRef, '--good');
  const bad = revParse(src, badRef, '--bad');
  if (good === bad) throw new UserError(`--good ${goodRef} and --bad ${badRef} are the same commit (${good.slice(0, 12)}); nothing lies between them`, 2);
  if (!isAncestor(src, good, bad)) {
    throw new UserError(`--good ${goodRef} is not an ancestor of --bad ${badRef}; give a good commit the bad one descends from ('git merge-base ${goodRef} ${badRef}' names one)`, 2);
  }
  const after = rangeCommits(src, good, bad).map(toCommit);
  const first = after[0];
  if (first && gitRead(src, ['rev-parse', `${first.hash}^1`], 'the first parent').stdout.trim() !== good) {
    throw new UserError(`--good ${goodRef} is not on the first-parent line of --bad ${badRef} (it came in through a merged side branch); bisect searches first-parent history: give a commit on ${badRef}'s own line, such as the merge's first parent`, 2);
  }
  return [toCommit(commitInfo(src, good)), ...after];
}

/** Whether `hash` has a second parent. */
export function isMerge(src: string, hash: string): boolean {
  return gitRead(src, ['rev-parse', '--verify', '--quiet', `${hash}^2`], 'a merge check').ok;
}

/** The diff from `from` to `to` for `patch -p1` (a/ and b/ prefixes, no renames, no colour). */
export function diffBetween(src: string, from: string, to: string): string {
  const r = gitRead(src, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--src-prefix=a/', '--dst-prefix=b/', from, to, '--'], 'a diff');
  if (!r.ok) throw new UserError(`git diff ${from.slice(0, 12)} ${to.slice(0, 12)} failed in ${src}`);
  return r.stdout;
}
