/**
 * A small git history made with the real git for the bisect tests, and a
 * fake lab behind the BisectLab interface that "builds" a commit by
 * exporting it (src/bisect/git-log.ts) and "boots" it by reading the
 * count the commit's tree holds: exact, repeatable values.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportTree } from '../../src/kernel/git.ts';
import type { BisectLab, LabMeasurement } from '../../src/bisect/run.ts';
import type { Commit } from '../../src/bisect/search.ts';
import { Store } from '../../src/store/store.ts';
import { miniTree } from '../trial/fakes.ts';

export function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'A U Thor', GIT_AUTHOR_EMAIL: 'author@example.org', GIT_COMMITTER_NAME: 'A U Thor', GIT_COMMITTER_EMAIL: 'author@example.org' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

export interface HistoryCommit {
  subject: string;
  /** Instructions the commit adds to the measured path. */
  adds?: number;
  /** The commit does not build until a later one fixes it. */
  breaks?: boolean;
  fixes?: boolean;
}

/**
 * A repository with one commit per entry after a base commit ("v1"):
 * `cost` holds the count a boot would give, `broken` exists while the
 * tree does not build. Returns the hashes, oldest first, base included.
 */
export function makeHistory(dir: string, commits: readonly HistoryCommit[]): string[] {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'master');
  let cost = 1000;
  writeFileSync(join(dir, 'cost'), `${cost}\n`);
  writeFileSync(join(dir, 'README'), 'a tree\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'v1');
  const hashes = [git(dir, 'rev-parse', 'HEAD')];
  commits.forEach((c, i) => {
    cost += c.adds ?? 0;
    writeFileSync(join(dir, 'cost'), `${cost}\n`);
    writeFileSync(join(dir, `note-${i}`), `${c.subject}\n`);
    if (c.breaks) writeFileSync(join(dir, 'broken'), 'syntax error\n');
    if (c.fixes) git(dir, 'rm', '-q', 'broken');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', c.subject);
    hashes.push(git(dir, 'rev-parse', 'HEAD'));
  });
  return hashes;
}

/** Everything of a checkout a bisect must leave as it was: HEAD, index, work tree (every file's bytes), stashes, worktrees. */
export function checkoutState(dir: string): Record<string, string> {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(`${p.slice(dir.length)} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return {
    head: git(dir, 'rev-parse', 'HEAD'),
    symbolic: git(dir, 'symbolic-ref', 'HEAD'),
    stash: git(dir, 'stash', 'list'),
    worktrees: git(dir, 'worktree', 'list', '--porcelain'),
    status: git(dir, 'status', '--porcelain=v2', '--ignored'),
    files: files.join('\n'),
  };
}

/** A lab whose build is `git archive` and whose boot reads `cost`; a tree with `broken` does not build. */
export class FakeLab implements BisectLab {
  readonly measured: { hash: string; boots: number }[] = [];
  private exported = 0;
  constructor(
    private readonly src: string,
    private readonly area: string,
    /** Extra per-boot values: a commit's boots cycle through these added to its count (non-repeating counts). */
    private readonly jitter: readonly number[] = [0],
  ) {}

  async measure(commit: Commit, boots: number): Promise<LabMeasurement> {
    this.measured.push({ hash: commit.hash, boots });
    const tree = join(this.area, `tree-${this.exported++}`);
    await exportTree(this.src, commit.hash, tree);
    if (existsSync(join(tree, 'broken'))) return { state: 'skip', reason: 'build failed: broken: syntax error' };
    const count = Number(readFileSync(join(tree, 'cost'), 'utf8'));
    const values = Array.from({ length: boots }, (_, i) => ({ value: count + this.jitter[i % this.jitter.length]!, runId: null }));
    return { state: 'measured', boots: values, build: 'built' };
  }

  close(): void {}
}

/** Instructions per call of a mini kernel image (test/trial/fakes.ts's miniBuild): 217 plus every `cost N` its patch added. */
export const perCall = (image: string): number => 217 + [...image.matchAll(/cost (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);

/** The trial tests' mini tree as a git history: a hint of 1 and a regression of 50 among comments. */
export function miniHistory(dir: string): string {
  const src = miniTree(dir);
  git(src, 'init', '-q', '-b', 'master');
  git(src, 'add', '.');
  git(src, 'commit', '-q', '-m', 'base');
  git(src, 'tag', 'v1');
  const subjects = ['comment', 'hint: cost 1', 'comment', 'copy the attr: cost 50', 'comment', 'comment'];
  for (const [i, s] of subjects.entries()) {
    appendFileSync(join(src, 'kernel/sys_impl.c'), `/* ${i}: ${s} */\n`);
    git(src, 'commit', '-q', '-am', s);
  }
  return src;
}

/** `body` on a fresh mini history in a temporary directory with its own database, both removed afterwards. */
export async function inMiniHistory(body: (dir: string, store: Store, src: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-bisect-mini-'));
  const store = Store.open(join(dir, 'lab.db'));
  try {
    await body(dir, store, miniHistory(dir));
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
