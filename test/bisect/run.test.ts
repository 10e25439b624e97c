/**
 * `runBisect` end to end on a small history made with the real git and a
 * fake lab (test/bisect/history.ts): the culprit found, a commit that does
 * not build skipped, stored steps reused, and the user's checkout byte for
 * byte unchanged.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runBisect, type BisectRequest } from '../../src/bisect/run.ts';
import { UserError } from '../../src/errors.ts';
import { Store } from '../../src/store/store.ts';
import { checkoutState, FakeLab, git, makeHistory, type HistoryCommit } from './history.ts';

/** Sixteen commits: hints and comments, one that breaks the build and its fix, and the fifty-instruction regression. */
const SIXTEEN: HistoryCommit[] = [
  { subject: 'sched: comment on the fast path' },
  { subject: 'sched: unlikely() on the -EINVAL return', adds: 1 },
  { subject: 'sched: comment' },
  { subject: 'sched: hint in setparam' },
  { subject: 'sched: rename a local' },
  { subject: 'sched: comment typo' },
  { subject: 'sched: comment' },
  { subject: 'sched: half a refactor', breaks: true },
  { subject: 'sched: finish the refactor', fixes: true },
  { subject: 'sched: comment' },
  { subject: 'sched: copy the whole attr on every call', adds: 50 },
  { subject: 'sched: comment on the copy' },
  { subject: 'sched: likely() on the common case' },
  { subject: 'sched: comment' },
  { subject: 'sched: comment' },
  { subject: 'sched: last comment' },
];

function setup(commits: readonly HistoryCommit[] = SIXTEEN): { dir: string; src: string; hashes: string[]; store: Store; request: BisectRequest; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-bisect-'));
  const src = join(dir, 'linux');
  const hashes = makeHistory(src, commits);
  const store = Store.open(join(dir, 'bisect.db'));
  const request: BisectRequest = {
    src,
    good: 'v1',
    bad: 'master',
    out: join(dir, 'area'),
    metric: { subject: 'getppid', name: 'instructions/call', costModel: null },
    keyInputs: { config: 'tinyconfig' },
    resume: false,
    command: 'hintlab bisect --src linux --good v1 --bad master --profile getppid',
    target: null,
  };
  return { dir, src, hashes, store, request, cleanup: () => { store.close(); rmSync(dir, { recursive: true, force: true }); } };
}

test('bisect finds the commit that adds fifty instructions among hints and comments, skipping the one that does not build', async () => {
  const t = setup();
  try {
    // a user's checkout in the middle of work: a staged change, an unstaged one, an untracked file and a stash
    writeFileSync(join(t.src, 'README'), 'stashed edit\n');
    git(t.src, 'stash', '-q');
    writeFileSync(join(t.src, 'README'), 'staged edit\n');
    git(t.src, 'add', 'README');
    writeFileSync(join(t.src, 'cost'), 'unstaged edit\n');
    writeFileSync(join(t.src, 'untracked.c'), 'int x;\n');
    const before = checkoutState(t.src);
    const lab = new FakeLab(t.src, t.dir);
    const doc = await runBisect(t.request, { store: t.store, lab });
    assert.deepEqual(checkoutState(t.src), before, 'HEAD, index, work tree and stashes unchanged');
    assert.deepEqual(doc.outcome.state === 'found' ? doc.outcome.firstBad : null, { hash: t.hashes[11], subject: 'sched: copy the whole attr on every call', author: 'A U Thor <author@example.org>' });
    assert.deepEqual(doc.mode, { kind: 'exact', bootsPerStep: 1 });
    assert.equal(doc.commits, 17);
    assert.deepEqual(doc.steps.slice(0, 2).map((s) => [s.role, s.state === 'measured' && s.value]), [['good', 1000], ['bad', 1051]]);
    const skip = doc.steps.find((s) => s.state === 'skip');
    assert.equal(skip?.commit.hash, t.hashes[8], 'the commit that does not build is tested, skipped and named');
    assert.deepEqual(lab.measured.slice(0, 2), [{ hash: t.hashes[0], boots: 2 }, { hash: t.hashes[16], boots: 2 }], 'the endpoints are booted twice each first');
    assert.ok(lab.measured.slice(2).every((m) => m.boots === 1), 'one boot per step once the counts repeat');
    assert.equal(doc.builds, doc.steps.filter((s) => s.state === 'measured').length);
  } finally {
    t.cleanup();
  }
});

test('a rerun reuses every stored commit and boots nothing; a stored skip is tried again unless resumed', async () => {
  const t = setup();
  try {
    await runBisect(t.request, { store: t.store, lab: new FakeLab(t.src, t.dir) });
    const again = new FakeLab(t.src, t.dir);
    const doc = await runBisect(t.request, { store: t.store, lab: again });
    assert.deepEqual(again.measured.map((m) => m.hash), [t.hashes[8]], 'only the skipped commit is tried again');
    assert.equal(doc.builds, 0);
    assert.ok(doc.steps.every((s) => s.reused || s.state === 'skip'));
    const resumed = new FakeLab(t.src, t.dir);
    await runBisect({ ...t.request, resume: true }, { store: t.store, lab: resumed });
    assert.deepEqual(resumed.measured, []);
  } finally {
    t.cleanup();
  }
});

test('good and bad with the same count are refused before any commit between them is built', async () => {
  const t = setup([{ subject: 'comment' }, { subject: 'comment' }, { subject: 'hint', adds: 0 }]);
  try {
    const lab = new FakeLab(t.src, t.dir);
    await assert.rejects(runBisect(t.request, { store: t.store, lab }), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, /^nothing to bisect: --good v1 \(1000\) and --bad master \(1000\) do not differ in instructions\/call of getppid \(exact mode: every boot of both gave the same count\)/);
      return true;
    });
    assert.equal(lab.measured.length, 2);
  } finally {
    t.cleanup();
  }
});

test('counts that do not repeat switch to three boots per step, and the culprit is still found', async () => {
  const t = setup();
  try {
    const lab = new FakeLab(t.src, t.dir, [0, 0.5, -0.5]);
    const doc = await runBisect(t.request, { store: t.store, lab });
    assert.equal(doc.mode.kind, 'statistical');
    assert.equal(doc.outcome.state === 'found' && doc.outcome.firstBad.hash, t.hashes[11]);
    assert.ok(doc.steps.filter((s) => s.role === 'step' && s.state === 'measured').every((s) => s.state === 'measured' && s.boots.length === 3));
  } finally {
    t.cleanup();
  }
});

test('an unknown ref, a good commit that is no ancestor of the bad one and a build area inside the tree are refused, naming the flag', async () => {
  const t = setup([{ subject: 'one', adds: 5 }]);
  try {
    const lab = new FakeLab(t.src, t.dir);
    await assert.rejects(runBisect({ ...t.request, good: 'v0' }, { store: t.store, lab }), /--good: unknown revision 'v0' in /);
    await assert.rejects(runBisect({ ...t.request, good: 'master', bad: 'v1' }, { store: t.store, lab }), /--good master is not an ancestor of --bad v1/);
    await assert.rejects(runBisect({ ...t.request, out: join(t.src, 'build') }, { store: t.store, lab }), /--out .*\/linux\/build is inside --src .*; put the build area outside the git tree/);
    assert.deepEqual(lab.measured, []);
  } finally {
    t.cleanup();
  }
});

test('a regression merged from a side branch is pinned on the merge commit, which the document marks as a merge', async () => {
  const t = setup([{ subject: 'comment' }, { subject: 'comment' }]);
  try {
    git(t.src, 'checkout', '-q', '-b', 'topic');
    writeFileSync(join(t.src, 'cost'), '1050\n');
    git(t.src, 'commit', '-q', '-am', 'topic: copy the attr');
    git(t.src, 'checkout', '-q', 'master');
    writeFileSync(join(t.src, 'other'), 'x\n');
    git(t.src, 'add', 'other');
    git(t.src, 'commit', '-q', '-m', 'comment on master');
    git(t.src, 'merge', '-q', '--no-ff', '-m', 'Merge branch topic', 'topic');
    writeFileSync(join(t.src, 'late'), 'x\n');
    git(t.src, 'add', 'late');
    git(t.src, 'commit', '-q', '-m', 'after the merge');
    const doc = await runBisect(t.request, { store: t.store, lab: new FakeLab(t.src, t.dir) });
    assert.equal(doc.outcome.state === 'found' ? doc.outcome.firstBad.subject : null, 'Merge branch topic');
    assert.equal(doc.culpritIsMerge, true);
    assert.ok(!doc.steps.some((s) => s.commit.subject === 'topic: copy the attr'), 'the side branch is not searched (first-parent history)');
    await assert.rejects(runBisect({ ...t.request, good: 'topic' }, { store: t.store, lab: new FakeLab(t.src, t.dir) }), /--good topic is not on the first-parent line of --bad master/);
  } finally {
    t.cleanup();
  }
});
