/**
 * The history a bisect searches, read with src/kernel/git.ts (read-only on
 * the user's repository): the first-parent line from good to bad with each
 * commit's subject and author.
 */
import { UserError } from '../errors.ts';
import { commitInfo, firstParent, gitTopLevel, isAncestor, rangeCommits, revParse, type GitCommit } from '../kernel/git.ts';
import type { Commit } from './search.ts';

const toCommit = (c: GitCommit): Commit => ({ hash: c.commit, subject: c.subject, author: c.author });

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
  if (first && firstParent(src, first.hash) !== good) {
    throw new UserError(`--good ${goodRef} is not on the first-parent line of --bad ${badRef} (it came in through a merged side branch); bisect searches first-parent history: give a commit on ${badRef}'s own line, such as the merge's first parent`, 2);
  }
  return [toCommit(commitInfo(src, good)), ...after];
}

