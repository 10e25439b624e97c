/**
 * `trial` from a git history made here with the real git: a range (A is
 * BASE's tree, B is HEAD's), an mbox series with a cover letter and two
 * patches to one file, --per-commit naming the commit that adds work, the
 * errors that name their input, and the user's checkout (HEAD, index, work
 * tree, stashes, everything under .git) byte for byte the same afterwards.
 * Builds are ./fakes.ts's miniBuild (real gcc, real patch(1)); boots are a
 * scripted qemu whose count per call grows in a kernel carrying the work.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { findProfile } from '../../src/bench/profiles.ts';
import { parseScenarios } from '../../src/behave/scenario.ts';
import { UserError } from '../../src/errors.ts';
import { existingLayout } from '../../src/kernel/layout.ts';
import { trialJson } from '../../src/report/trial-json.ts';
import { trialLkml, trialText } from '../../src/report/trial.ts';
import { trialMarkdown } from '../../src/report/trial-md.ts';
import { Store } from '../../src/store/store.ts';
import type { TrialDeps, TrialRequest } from '../../src/trial/request.ts';
import { runTrial } from '../../src/trial/run.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { commit, gitIn, initRepo } from '../helpers/git-history.ts';
import { requireTool } from '../helpers/tools.ts';
import { miniBuild, miniTree, scriptedGuest, spreadImpl, unusedProbe } from './fakes.ts';

const skip = requireTool('patch', 'patch') || requireTool('objdump', 'binutils') || requireTool('git', 'git') || requireTool('diff', 'diffutils');
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = unusedProbe(dir);

const WORK = '\tx = x * 3 + 1;';

/** A kernel-shaped repository: base, a hint, a line of work, a second hint to the same file. */
function history(name: string) {
  const repo = miniTree(join(dir, name));
  writeFileSync(join(repo, 'kernel/sys_impl.c'), spreadImpl(false));
  const base = initRepo(repo, 'base: the mini kernel');
  gitIn(repo, 'tag', 'v1');
  const impl = () => readFileSync(join(repo, 'kernel/sys_impl.c'), 'utf8');
  commit(repo, 'sched: getparam: the error path is unlikely', { 'kernel/sys_impl.c': impl().replace('\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 0))') });
  commit(repo, 'sched: setparam: scale x', { 'kernel/sys_impl.c': impl().replace('int setparam(int pid, int x)\n{', `int setparam(int pid, int x)\n{\n${WORK}`) });
  const head = commit(repo, 'mm: other: the limit is likely', { 'mm/other.c': readFileSync(join(repo, 'mm/other.c'), 'utf8').replace('x < HL_LIMIT', '__builtin_expect(x < HL_LIMIT, 1)') });
  return { repo, base, head };
}

function request(name: string, over: Partial<TrialRequest>): TrialRequest {
  return {
    src: '', patches: [], out: join(dir, `${name}-out`), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 2, debugChecks: false,
    scenarios: parseScenarios('scenario tiny\nsetpriority pid=self nice=3\n', 'tiny.scn'), scenarioArgs: ['tiny.scn'],
    profiles: [findProfile('getppid')!], profileArgs: ['getppid'], ops: 1000, rounds: 5, warmups: 1, repeat: 3, kvm: false,
    maxObjects: 8, thresholdPct: 1, timeoutSeconds: 60, command: 'hintlab trial ...',
    invocation: { argv: ['trial'], cwd: dir }, db: null, hintlabVersion: 'test',
    ...over,
  };
}

// 217 instructions per call, 230 in a kernel that carries the line of work
const guest = () => scriptedGuest({ perCall: (image) => (image.includes(WORK.trim()) ? 230 : 217) });

function deps(store: Store, built: string[], launcher = guest()): TrialDeps {
  return { store, launcher, probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild(built) } };
}

/** Every file under `root` (.git included) by path: its bytes' sha256, mode and mtime. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      const st = lstatSync(path);
      if (e.isDirectory()) walk(path);
      else out[relative(root, path)] = `${createHash('sha256').update(readFileSync(path)).digest('hex')} ${st.mode} ${st.mtimeMs}`;
    }
  };
  walk(root);
  return out;
}

/** What a user sees of their checkout: HEAD, the index, the work tree's state and the stashes, as git says them. */
function gitView(repo: string) {
  return [gitIn(repo, 'rev-parse', 'HEAD'), gitIn(repo, 'symbolic-ref', 'HEAD'), gitIn(repo, '--no-optional-locks', 'status', '--porcelain=v2'), gitIn(repo, 'stash', 'list'), gitIn(repo, 'diff', '--cached')];
}

/** A user mid-work: a stash, a staged change and an unstaged one, none of which the range contains. */
function userAtWork(repo: string): void {
  writeFileSync(join(repo, 'mm/other.c'), `${readFileSync(join(repo, 'mm/other.c'), 'utf8')}/* stashed */\n`);
  gitIn(repo, 'stash', 'push', '-q', '-m', 'my stash');
  writeFileSync(join(repo, 'include/hl.h'), '#define HL_LIMIT 101\n');
  gitIn(repo, 'add', 'include/hl.h');
  writeFileSync(join(repo, 'kernel/sys.c'), '#include "sys_impl.c"\n/* unstaged */\n');
}

test('--range BASE..HEAD builds A from BASE\'s tree and B as HEAD\'s tree, names every commit by its subject, and leaves the checkout byte for byte as it was', { skip }, async () => {
  const h = history('range');
  userAtWork(h.repo);
  const before = { files: snapshot(h.repo), git: gitView(h.repo) };
  const store = Store.open(join(dir, 'range.db'));
  try {
    const built: string[] = [];
    const doc = await runTrial(request('range', { src: h.repo, range: 'v1..main' }), deps(store, built));
    assert.deepEqual(built, ['A', 'B']);
    assert.deepEqual(doc.patches.map((p) => [p.subject, p.commit?.length, p.author]), [
      ['sched: getparam: the error path is unlikely', 40, 'Ada Dev <ada@example.org>'],
      ['sched: setparam: scale x', 40, 'Ada Dev <ada@example.org>'],
      ['mm: other: the limit is likely', 40, 'Ada Dev <ada@example.org>'],
    ]);
    assert.deepEqual([doc.git?.base.commit, doc.git?.head.commit, doc.source.dir], [h.base, h.head, h.repo]);
    // A is BASE as committed (not the dirty work tree), B is HEAD's tree file for file
    const aTree = existingLayout(doc.kernels.A.dir).tree;
    const bTree = existingLayout(doc.kernels.B.dir).tree;
    for (const file of gitIn(h.repo, 'ls-files').trim().split('\n')) {
      assert.equal(readFileSync(join(aTree, file), 'utf8'), gitIn(h.repo, 'show', `${h.base}:${file}`), `A's ${file}`);
      assert.equal(readFileSync(join(bTree, file), 'utf8'), gitIn(h.repo, 'show', `${h.head}:${file}`), `B's ${file}`);
    }
    const lkml = trialLkml(doc, { generatedAt: 'now' });
    assert.match(lkml.replace(/\n\s*/g, ' '), /A = v1 [0-9a-f]{12} \("base: the mini kernel"\), B = main [0-9a-f]{12} \("mm: other: the limit is likely"\), 3 commits later: "sched: getparam: the error path is unlikely", "sched: setparam: scale x" and "mm: other: the limit is likely"\./);
    assert.match(trialText(doc, { generatedAt: 'now' }), /^Patch "sched: setparam: scale x" \(commit [0-9a-f]{12}, Ada Dev <ada@example\.org>\) sha256:/m);
    assert.deepEqual({ files: snapshot(h.repo), git: gitView(h.repo) }, before);
  } finally {
    store.close();
  }
});

test('an mbox series with a cover letter and two patches to one file applies in order, each patch named by its subject', { skip }, async () => {
  const h = history('mbox');
  const mbox = join(dir, 'series.mbox');
  writeFileSync(mbox, gitIn(h.repo, 'format-patch', '--cover-letter', '--stdout', 'v1..main'));
  const tree = join(dir, 'mbox-tree');
  cpSync(h.repo, tree, { recursive: true });
  gitIn(tree, 'checkout', '-q', 'v1');
  rmSync(join(tree, '.git'), { recursive: true });
  const store = Store.open(join(dir, 'mbox.db'));
  try {
    const doc = await runTrial(request('mbox', { src: tree, patches: [mbox] }), deps(store, []));
    assert.deepEqual(doc.patches.map((p) => [p.subject, p.files]), [
      ['sched: getparam: the error path is unlikely', ['kernel/sys_impl.c']],
      ['sched: setparam: scale x', ['kernel/sys_impl.c']],
      ['mm: other: the limit is likely', ['mm/other.c']],
    ]);
    assert.deepEqual(doc.patches.map((p) => p.path.split('/').slice(-2).join('/')), ['series/0001-sched-getparam-the-error-path-is-unlikely.patch', 'series/0002-sched-setparam-scale-x.patch', 'series/0003-mm-other-the-limit-is-likely.patch']);
    assert.equal(readFileSync(join(existingLayout(doc.kernels.B.dir).tree, 'kernel/sys_impl.c'), 'utf8'), gitIn(h.repo, 'show', 'main:kernel/sys_impl.c'));
    assert.match(trialMarkdown(doc, { generatedAt: 'now' }), /Patch "sched: setparam: scale x" \(Ada Dev \\<ada@example\.org\\>\) sha256:/);
  } finally {
    store.close();
  }
});

test('--per-commit builds A plus the first k commits, each from the one before, and names the commit that adds work; a rerun reuses every step', { skip }, async () => {
  const h = history('percommit');
  const before = { files: snapshot(h.repo), git: gitView(h.repo) };
  const store = Store.open(join(dir, 'percommit.db'));
  try {
    const built: string[] = [];
    const g = guest();
    const doc = await runTrial(request('percommit', { src: h.repo, range: 'v1..main', perCommit: true }), deps(store, built, g));
    assert.deepEqual(built, ['A', 'B', 'commit-1', 'commit-2']);
    assert.deepEqual(doc.steps.map((s) => s.name).slice(5), ['commit-1', 'commit-2']);
    assert.equal(g.boots.filter((b) => b.kind === 'probe').length, 6 + 2 * 3);
    const p = doc.perCommit!;
    assert.deepEqual(p.commits.map((c) => [c.index, c.kernel, c.against, c.rows[0]?.verdict]), [
      [1, 'commit-1', 'A', 'no difference proven'],
      [2, 'commit-2', 'commit-1', 'more instructions'],
      [3, 'B', 'commit-2', 'no difference proven'],
    ]);
    assert.deepEqual(p.attribution.map((a) => [a.subject, a.broughtBy]), [['getppid', [2]]]);
    assert.equal(p.attribution[0]!.line, 'getppid +5.99 %: 2/3 "sched: setparam: scale x" +5.99 %; others none');
    const lkml = trialLkml(doc, { generatedAt: 'now' });
    assert.match(lkml, /^  getppid \+5\.99 %: 2\/3 "sched: setparam: scale x" \+5\.99 %;/m);
    assert.ok(lkml.split('\n').every((l) => l.length <= 72), 'lkml stays within 72 columns');
    assert.match(trialText(doc, { generatedAt: 'now' }), /1\/3 "sched: getparam: the error path is unlikely", 3\/3 "mm: other: the limit is likely" move no subject\./);
    const json = JSON.parse(trialJson(doc, { generatedAt: 'now' })) as { perCommit: { attribution: { broughtBy: number[] }[] } };
    assert.deepEqual(json.perCommit.attribution[0]!.broughtBy, [2]);

    const boots = g.boots.length;
    const again = await runTrial(request('percommit', { src: h.repo, range: 'v1..main', perCommit: true }), deps(store, built, g));
    assert.equal(g.boots.length, boots, 'nothing booted again');
    assert.deepEqual(built, ['A', 'B', 'commit-1', 'commit-2'], 'nothing built again');
    assert.ok(again.steps.every((s) => s.state === 'reused'));
    assert.deepEqual({ files: snapshot(h.repo), git: gitView(h.repo) }, before);
  } finally {
    store.close();
  }
});

async function refusal(req: TrialRequest): Promise<string> {
  const store = Store.open(join(dir, 'errors.db'));
  try {
    const err = await runTrial(req, deps(store, [])).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof UserError, `expected a UserError, got ${String(err)}`);
    assert.equal(err.exitCode, 2);
    assert.equal(existsSync(req.out), false, 'nothing written before the refusal');
    assert.equal(store.trials.list().length, 0, 'nothing stored');
    return err.message;
  } finally {
    store.close();
  }
}

test('a tree that is no git repository, an unknown ref, a range that is no ancestry path and an mbox message that is no patch are each refused naming the input', { skip }, async () => {
  const h = history('errors');
  const plain = miniTree(join(dir, 'plain'));
  assert.match(await refusal(request('e1', { src: plain, range: 'v1..main' })), new RegExp(`^--src ${plain}: not a git repository`));
  assert.match(await refusal(request('e2', { src: h.repo, range: 'v1..no-such-branch' })), /^--range: unknown revision 'no-such-branch' in /);
  assert.match(await refusal(request('e3', { src: h.repo, range: 'main..v1' })), /^--range main\.\.v1: main is not an ancestor of v1 .* no ancestry path/);
  const mbox = join(dir, 'notes.mbox');
  const series = gitIn(h.repo, 'format-patch', '--stdout', 'v1..main');
  writeFileSync(mbox, `${series}From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nFrom: Ada Dev <ada@example.org>\nSubject: [PATCH 4/3] just a note\n\nno diff here\n`);
  assert.match(await refusal(request('e4', { src: plain, patches: [mbox] })), new RegExp(`^--patch ${mbox}: message 4 \\("\\[PATCH 4/3\\] just a note"\\) is not a patch`));
});

test('the CLI says before anything builds how many kernels --per-commit means and about how long, and refuses --range with --patch', { skip }, async () => {
  const h = history('cli');
  const scenario = join(dir, 'tiny.scn');
  writeFileSync(scenario, 'scenario tiny\nsetpriority pid=self nice=3\n');
  const built: string[] = [];
  const services = { trial: { services: { buildKernel: miniBuild(built) }, launcher: guest(), probe, cacheDir: dir } };
  const base = ['trial', '--src', h.repo, '--out', join(dir, 'cli-out'), '--db', join(dir, 'cli.db'), '--scenario', scenario, '--profile', 'getppid', '--ops', '1000', '--no-cost', '--repeat', '3'];
  const r = await runCli([...base, '--range', 'v1..main', '--per-commit', '--format', 'json'], { services });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.split('\n');
  const plan = lines.findIndex((l) => l.startsWith('note: --per-commit: 3 patches in the series: 2 kernels of A plus the first patches, each built from the objects of the one before, and 6 boots, about 2 min more'));
  assert.ok(plan >= 0 && plan < lines.findIndex((l) => l.startsWith('[1/')), `the plan comes before the first step:\n${r.stderr}`);
  assert.deepEqual((JSON.parse(r.stdout) as { perCommit: { attribution: { broughtBy: number[] }[] } }).perCommit.attribution.map((a) => a.broughtBy), [[2]]);
  const both = await runCli([...base, '--range', 'v1..main', '--patch', join(dir, 'series.mbox')], { services });
  assert.deepEqual([both.code, both.stderr], [2, 'hintlab: --range and --patch: give one (B is HEAD of the range, or the tree plus the patches)\n']);
});

test('--per-commit records a commit that does not build with the compiler\'s error, builds the next from the last kernel that did, and compares it with that one', { skip }, async () => {
  const repo = miniTree(join(dir, 'broken'));
  writeFileSync(join(repo, 'kernel/sys_impl.c'), spreadImpl(false));
  initRepo(repo);
  gitIn(repo, 'tag', 'v1');
  const impl = () => readFileSync(join(repo, 'kernel/sys_impl.c'), 'utf8');
  commit(repo, 'sched: setparam: half an edit', { 'kernel/sys_impl.c': impl().replace('\treturn lookup(pid) + x;', '\treturn lookup(pid) + x +;') });
  commit(repo, 'sched: setparam: the edit finished, with work', { 'kernel/sys_impl.c': impl().replace('\treturn lookup(pid) + x +;', `${WORK}\n\treturn lookup(pid) + x;`) });
  const store = Store.open(join(dir, 'broken.db'));
  try {
    const built: string[] = [];
    const doc = await runTrial(request('broken', { src: repo, range: 'v1..main', perCommit: true }), deps(store, built));
    assert.deepEqual(built, ['A', 'B']);
    const [one, two] = doc.perCommit!.commits;
    assert.equal(one!.state, 'unbuilt');
    assert.match(one!.error!, /error/);
    assert.deepEqual([two!.kernel, two!.against, two!.rows[0]?.verdict], ['B', 'A', 'more instructions']);
    assert.equal(doc.perCommit!.attribution[0]!.line, 'getppid +5.99 %: 2/2 "sched: setparam: the edit finished, with work" +5.99 %; others: 1/2 "sched: setparam: half an edit" not built');
    assert.match(trialText(doc, { generatedAt: 'now' }), /commit-1 did not build: /);
  } finally {
    store.close();
  }
});
