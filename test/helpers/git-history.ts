/**
 * A small git history made with the real git, for the tests of git
 * inputs: a repository whose work tree is `tree`'s files, one commit per
 * `commit()` call, with fixed dates and identity so hashes repeat.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada Dev',
  GIT_AUTHOR_EMAIL: 'ada@example.org',
  GIT_COMMITTER_NAME: 'Ada Dev',
  GIT_COMMITTER_EMAIL: 'ada@example.org',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Run git in `repo` with the fixed identity; its stdout. */
export function gitIn(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: ENV });
}

/** `git init` in an existing directory, its files committed as the first commit ("base"). */
export function initRepo(dir: string, subject = 'base'): string {
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', subject);
  return gitIn(dir, 'rev-parse', 'HEAD').trim();
}

/** Write `files` (path -> content) into the work tree and commit them; the new commit's hash. */
export function commit(repo: string, subject: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', subject);
  return gitIn(repo, 'rev-parse', 'HEAD').trim();
}
