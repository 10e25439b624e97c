/**
 * The git plumbing hintlab reads a user's history with: which repository
 * a directory is, what a ref names, whether one commit is an ancestor of
 * another, the commits of a range with their subjects and authors, one
 * commit's change as a patch, and a commit's tree exported into a
 * directory of hintlab's own.
 *
 * Every call only reads the repository: no checkout, no index, no HEAD,
 * no stash, no worktree is written. `GIT_OPTIONAL_LOCKS=0` keeps git from
 * refreshing the index as a side effect, and the variables that would
 * point git at another repository or index (`GIT_DIR`, `GIT_INDEX_FILE`,
 * ...) are dropped, so a hintlab started from a git hook reads the tree it
 * was given. A tree is exported with `git archive` (files get the commit's
 * time as mtime, so the same commit always exports to the same tree).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { UserError } from '../errors.ts';
import { spawnSupervised } from '../proc/supervise.ts';

/** One commit of a history, as a report names it. */
export interface GitCommit {
  /** The full hash (40 hex digits, or 64 in a sha256 repository). */
  commit: string;
  /** The first line of its message. */
  subject: string;
  /** `Name <email>`. */
  author: string;
}

/** A checked range: both ends as full hashes, BASE an ancestor of HEAD, and the commits from BASE (excluded) to HEAD. */
export interface GitRange {
  base: GitCommit;
  head: GitCommit;
  /** Oldest first, along HEAD's first parents; HEAD is the last. */
  commits: GitCommit[];
}

/** Variables that would send git to another repository, index or worktree than the one named. */
const REDIRECTING = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_PREFIX', 'GIT_NAMESPACE'];

function gitEnv(): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([name]) => !REDIRECTING.includes(name));
  return { ...Object.fromEntries(kept), GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
}

/** Run git in `repo`; its status, stdout and stderr. A missing git is said with the package to install. */
function git(repo: string, args: readonly string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: gitEnv(), maxBuffer: 512 * 1024 * 1024 });
  if (r.error) throw new UserError(`cannot run git (${r.error.message}); install it with 'apt-get install git'`);
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr.trim() };
}

/**
 * The top of the work tree `dir` belongs to. `flag` names the input in the
 * error (`--src ~/linux: not a git repository ...`).
 */
export function gitTopLevel(dir: string, flag = '--src'): string {
  const r = git(dir, ['rev-parse', '--show-toplevel']);
  if (r.status !== 0 || r.stdout.trim() === '') {
    throw new UserError(`${flag} ${dir}: not a git repository (git rev-parse: ${r.stderr || 'no work tree'}); give the top of a git clone of the kernel, or drop the git option and patch the tree as it is`, 2);
  }
  return r.stdout.trim();
}

/** The full hash of the commit `ref` names in `repo`; an unknown ref is an error naming it and `flag`. */
export function revParse(repo: string, ref: string, flag = '--range'): string {
  if (ref === '' || ref.startsWith('-')) throw new UserError(`${flag}: '${ref}' is not a revision; give a commit, branch or tag name`, 2);
  const r = git(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (r.status !== 0) throw new UserError(`${flag}: unknown revision '${ref}' in ${repo} (no commit of that name); 'git -C ${repo} log --oneline' lists them`, 2);
  return r.stdout.trim();
}

/** Whether `ancestor` is `descendant` or one of its ancestors (`git merge-base --is-ancestor`). */
export function isAncestor(repo: string, ancestor: string, descendant: string): boolean {
  const r = git(repo, ['merge-base', '--is-ancestor', ancestor, descendant]);
  if (r.status === 0) return true;
  if (r.status === 1) return false;
  throw new UserError(`git merge-base --is-ancestor ${ancestor} ${descendant} failed in ${repo}: ${r.stderr}`);
}

const FIELDS = '%H%x00%s%x00%an <%ae>';

function parseCommits(text: string): GitCommit[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [commit = '', subject = '', author = ''] = l.split('\0');
      return { commit, subject, author };
    });
}

/** One commit's hash, subject and author. */
export function commitInfo(repo: string, commit: string): GitCommit {
  const r = git(repo, ['log', '-1', '--no-show-signature', `--format=${FIELDS}`, commit, '--']);
  const info = parseCommits(r.stdout)[0];
  if (r.status !== 0 || !info) throw new UserError(`git log of ${commit} failed in ${repo}: ${r.stderr}`);
  return info;
}

/**
 * The commits after `base` up to `head`, oldest first, along `head`'s first
 * parents (a merge counts as one commit: its change against its first
 * parent), so that applying them in order walks from base's tree to head's.
 */
export function rangeCommits(repo: string, base: string, head: string): GitCommit[] {
  const r = git(repo, ['log', '--reverse', '--first-parent', '--no-show-signature', `--format=${FIELDS}`, `${base}..${head}`, '--']);
  if (r.status !== 0) throw new UserError(`git log ${base}..${head} failed in ${repo}: ${r.stderr}`);
  return parseCommits(r.stdout);
}

/** `BASE..HEAD` split in two; `...` and a missing end are refused naming `flag`. */
export function parseRange(text: string, flag = '--range'): { base: string; head: string } {
  const m = /^([^.]+(?:\.[^.]+)*)\.\.([^.]+(?:\.[^.]+)*)$/.exec(text);
  if (!m || text.includes('...')) throw new UserError(`${flag} ${text}: expected BASE..HEAD (two dots, both ends named, e.g. v6.12..my-series)`, 2);
  return { base: m[1]!, head: m[2]! };
}

/**
 * `BASE..HEAD` of `repo` checked: both refs name commits, BASE is an
 * ancestor of HEAD (an ancestry path, so HEAD's tree is BASE's plus the
 * commits between), and at least one commit lies between.
 */
export function resolveRange(repo: string, text: string, flag = '--range'): GitRange {
  const ends = parseRange(text, flag);
  const base = revParse(repo, ends.base, flag);
  const head = revParse(repo, ends.head, flag);
  if (!isAncestor(repo, base, head)) {
    throw new UserError(`${flag} ${text}: ${ends.base} is not an ancestor of ${ends.head} in ${repo}, so the range is no ancestry path from one to the other; give a BASE that ${ends.head} descends from ('git merge-base ${ends.base} ${ends.head}' names one)`, 2);
  }
  const commits = rangeCommits(repo, base, head);
  if (commits.length === 0) throw new UserError(`${flag} ${text}: ${ends.base} and ${ends.head} are the same commit; there is no change to measure`, 2);
  return { base: commitInfo(repo, base), head: commitInfo(repo, head), commits };
}

/**
 * One commit's change against its first parent as a unified diff for
 * `patch -p1` (`a/`, `b/` prefixes, no renames, no colour, the user's diff
 * settings overridden). A change to a binary file or a symbolic link is
 * refused naming the commit: patch(1) cannot apply the one and writes the
 * other as a regular file, and the built tree would not be the commit's.
 */
export function commitPatch(repo: string, commit: GitCommit): string {
  const r = patchDiff(repo, `${commit.commit}^1`, commit.commit);
  if (r.status !== 0) throw new UserError(`git diff of ${short(commit)} failed in ${repo}: ${r.stderr}`);
  const binary = /^Binary files (.+) and (.+) differ$/m.exec(r.stdout);
  if (binary) throw new UserError(`commit ${short(commit)} changes a binary file (${binary[2]!}); patch(1) cannot apply that, so hintlab cannot build the range from its patches`, 2);
  const link = symlinkChanged(r.stdout);
  if (link !== null) throw new UserError(`commit ${short(commit)} changes the symbolic link ${link}; patch(1) would write it as a regular file, so hintlab cannot build the range from its patches`, 2);
  return r.stdout;
}

/** The diff from `from` to `to` for `patch -p1`, as commitPatch writes it (a/ and b/ prefixes, no renames, no colour). */
export function diffBetween(repo: string, from: string, to: string): string {
  const r = patchDiff(repo, from, to);
  if (r.status !== 0) throw new UserError(`git diff ${from.slice(0, 12)} ${to.slice(0, 12)} failed in ${repo}: ${r.stderr}`);
  return r.stdout;
}

/**
 * The path of the first symbolic link a `git diff` (diffBetween's) creates,
 * removes or changes, or null: patch(1) writes a link's change as a regular
 * file holding the link's target, so such a diff cannot stand for the tree.
 */
export function symlinkChanged(diff: string): string | null {
  let path: string | null = null;
  for (const line of diff.split('\n')) {
    const header = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
    if (header) path = header[2]!;
    else if (/^(?:new file mode|deleted file mode|old mode|new mode) 120000$|^index [0-9a-f]+\.\.[0-9a-f]+ 120000$/.test(line)) return path;
  }
  return null;
}

/** git diff for patch(1), the user's diff settings overridden. */
function patchDiff(repo: string, from: string, to: string): { status: number; stdout: string; stderr: string } {
  const settings = ['-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'core.quotePath=false'];
  return git(repo, [...settings, 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--src-prefix=a/', '--dst-prefix=b/', from, to, '--']);
}

/** The first parent of `commit` (full hash), or null for a root commit. */
export function firstParent(repo: string, commit: string): string | null {
  const r = git(repo, ['rev-parse', '--verify', '--quiet', `${commit}^1`]);
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Whether `commit` has a second parent. */
export function isMerge(repo: string, commit: string): boolean {
  return git(repo, ['rev-parse', '--verify', '--quiet', `${commit}^2`]).status === 0;
}

/** `1a2b3c4d5e6f ("subject")`, as messages name a commit. */
export function short(c: GitCommit): string {
  return `${c.commit.slice(0, 12)} ("${c.subject}")`;
}

/**
 * `git archive | tar -x` as one pipeline under the supervisor, so both
 * programs end with hintlab however it ends (kill -9 included). Exit 10:
 * git failed; 11: tar failed (a full disk), each with its own words on stderr.
 */
const EXPORT_PIPELINE = 'git -C "$1" archive --format=tar "$2" | tar -x -f - -C "$3"; s=("${PIPESTATUS[@]}"); [ "${s[0]}" = 0 ] || exit 10; [ "${s[1]}" = 0 ] || exit 11';

/**
 * The tree of `commit` written into `dest` (created if missing) with
 * `git archive | tar -x`: every file of the commit with the commit's time
 * as its mtime, nothing of the repository's own (no .git). The repository
 * is only read. `abort` stops both programs.
 */
export async function exportTree(repo: string, commit: string, dest: string, abort?: AbortSignal): Promise<void> {
  mkdirSync(dest, { recursive: true });
  const p = spawnSupervised(['bash', '-c', EXPORT_PIPELINE, 'hintlab-export', repo, commit, dest], { env: gitEnv(), stdout: 'ignore' });
  let stderr = '';
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const kill = () => {
    p.signal('SIGKILL');
  };
  if (abort?.aborted) kill();
  abort?.addEventListener('abort', kill, { once: true });
  try {
    const end = await p.exit.catch((err: unknown) => {
      throw new UserError(`cannot run bash to export ${commit} (${err instanceof Error ? err.message : String(err)}); install it with 'apt-get install bash'`);
    });
    if (abort?.aborted) throw new UserError(`the export of ${commit} from ${repo} was interrupted`, 130);
    if (end.code === 10) throw new UserError(`git archive of ${commit} in ${repo} failed: ${stderr.trim()}`);
    if (end.code !== 0) throw new UserError(`tar could not write the tree of ${commit} into ${dest}: ${stderr.trim()}`);
  } finally {
    abort?.removeEventListener('abort', kill);
  }
}
