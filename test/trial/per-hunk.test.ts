/**
 * `trial --per-hunk` on the mini tree (./fakes.ts: real gcc builds in a
 * real build directory's layout, real patch(1) and diff(1)) with a scripted
 * qemu whose instruction count per call grows only in kernels that carry
 * the hunk adding work: the variants built from A's objects, one step each,
 * the hunk that adds work named alone (and gone without it), the hints
 * moving nothing, a helper and its caller grouped, a variant that cannot
 * build alone recorded with its compiler error, the reports, and a rerun
 * that reuses every variant.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findProfile } from '../../src/bench/profiles.ts';
import { parseScenarios } from '../../src/behave/scenario.ts';
import { trialJson } from '../../src/report/trial-json.ts';
import { trialLkml, trialText } from '../../src/report/trial.ts';
import { trialMarkdown } from '../../src/report/trial-md.ts';
import { trialHtml } from '../../src/report/trial-html.ts';
import { Store } from '../../src/store/store.ts';
import type { TrialRequest } from '../../src/trial/request.ts';
import { runTrial } from '../../src/trial/run.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';
import { miniBuild, miniTree, scriptedGuest, spreadImpl, unusedProbe } from './fakes.ts';

const skip = requireAll(requireTool('patch', 'patch'), requireTool('objdump', 'binutils'), requireTool('diff', 'diffutils'));
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = unusedProbe(dir);
const src = miniTree(dir);
// three functions far enough apart that every change is its own hunk
writeFileSync(join(src, 'kernel/sys_impl.c'), spreadImpl(true));

/** A -p1 diff of the tree against a copy changed by `edit` (file -> new text). */
function patchOf(name: string, edit: Record<string, (text: string) => string>): string {
  const work = join(dir, `${name}.d`);
  rmSync(work, { recursive: true, force: true });
  for (const side of ['a', 'b']) mkdirSync(join(work, side), { recursive: true });
  for (const [file, change] of Object.entries(edit)) {
    const text = readFileSync(join(src, file), 'utf8');
    for (const side of ['a', 'b']) mkdirSync(join(work, side, file, '..'), { recursive: true });
    writeFileSync(join(work, 'a', file), text);
    writeFileSync(join(work, 'b', file), change(text));
  }
  const diff = spawnSync('diff', ['-ruN', 'a', 'b'], { cwd: work, encoding: 'utf8' });
  const path = join(dir, name);
  writeFileSync(path, diff.stdout.replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2'));
  return path;
}

// a hint, one line of work in setparam, a helper and its caller, a hint in mm/other.c
const WORK = '\tx = x * 3 + 1;';
const FOUR = patchOf('four.patch', {
  'kernel/sys_impl.c': (t) =>
    t
      .replace('\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 0))')
      .replace('int setparam(int pid, int x)\n{', `int setparam(int pid, int x)\n{\n${WORK}`)
      .replace('int third(int y)', 'static int fast_helper(int v)\n{\n\treturn v * 7;\n}\n\nint third(int y)')
      .replace('\treturn y;', '\treturn fast_helper(y);'),
  'mm/other.c': (t) => t.replace('x < HL_LIMIT', '__builtin_expect(x < HL_LIMIT, 1)'),
});

function request(name: string, patch: string, over: Partial<TrialRequest> = {}): TrialRequest {
  return {
    src, patches: [patch], out: join(dir, name), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 2, debugChecks: false,
    scenarios: parseScenarios('scenario tiny\nsetpriority pid=self nice=3\n', 'tiny.scn'), scenarioArgs: ['tiny.scn'],
    profiles: [findProfile('getppid')!], profileArgs: ['getppid'], ops: 1000, rounds: 5, warmups: 1, repeat: 3, kvm: false,
    maxObjects: 8, thresholdPct: 1, timeoutSeconds: 60, command: 'hintlab trial ... --per-hunk',
    invocation: { argv: ['trial', '--src', src, '--patch', patch, '--per-hunk'], cwd: dir }, db: null, hintlabVersion: 'test', perHunk: true,
    ...over,
  };
}

// 217 instructions per call, 230 in a kernel that carries the line of work
const guest = () => scriptedGuest({ perCall: (image) => (image.includes(WORK.trim()) ? 230 : 217) });

test('--per-hunk: the hunk that adds work explains the change alone and its absence removes it; the hints move nothing', { skip }, async () => {
  const store = Store.open(join(dir, 'four.db'));
  try {
    const built: string[] = [];
    const g = guest();
    const doc = await runTrial(request('four', FOUR), { store, launcher: g, probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild(built) } });
    const p = doc.perHunk!;
    assert.deepEqual(p.hunks.map((h) => `${h.file} @${h.oldStart} g${h.group}`), ['kernel/sys_impl.c @2 g1', 'kernel/sys_impl.c @18 g2', 'kernel/sys_impl.c @29 g3', 'kernel/sys_impl.c @39 g3', 'mm/other.c @1 g4']);
    assert.deepEqual(p.groups.map((x) => x.names), [[], [], ['fast_helper'], []]);
    // four groups: each alone and each left out, every one built from A's objects
    assert.deepEqual(built, ['A', 'B', 'alone-1', 'alone-2', 'alone-3', 'alone-4', 'without-1', 'without-2', 'without-3', 'without-4']);
    assert.deepEqual(doc.steps.map((s) => s.name).slice(5), ['hunk-alone-1', 'hunk-alone-2', 'hunk-alone-3', 'hunk-alone-4', 'hunk-without-1', 'hunk-without-2', 'hunk-without-3', 'hunk-without-4']);
    assert.ok(p.variants.every((v) => v.state === 'measured' && v.runs && v.build), 'each variant measured with its run');
    // three boots per variant, none of A again (under icount A's boots repeat exactly)
    assert.equal(g.boots.filter((b) => b.kind === 'probe').length, 6 + 8 * 3);
    const verdict = (name: string) => p.variants.find((v) => v.name === name)!.rows[0]!.verdict;
    assert.deepEqual(['alone-1', 'alone-2', 'alone-3', 'alone-4'].map(verdict), ['no difference proven', 'more instructions', 'no difference proven', 'no difference proven']);
    assert.deepEqual(['without-1', 'without-2', 'without-3', 'without-4'].map(verdict), ['more instructions', 'no difference proven', 'more instructions', 'more instructions']);
    assert.equal(p.attribution.length, 1);
    assert.deepEqual(p.attribution[0]!.explainedBy, [2]);
    assert.equal(p.attribution[0]!.line, 'getppid +5.99 %: kernel/sys_impl.c @18 alone +6.00 %, without it none; others none');

    const lkml = trialLkml(doc, { generatedAt: 'now' });
    assert.match(lkml, /^  getppid \+5\.99 %: kernel\/sys_impl\.c @18 alone \+6\.00 %, without it none;$/m);
    assert.match(lkml.replace(/\n\s+/g, ' '), /Alone, kernel\/sys_impl\.c @2, kernel\/sys_impl\.c @29 \+ @39, mm\/other\.c @1 move no subject\./);
    assert.ok(lkml.split('\n').every((l) => l.length <= 72), 'lkml stays within 72 columns');
    assert.match(trialText(doc, { generatedAt: 'now' }), /grouped because they cannot build apart: kernel\/sys_impl\.c @29 \+ @39 \(fast_helper\)/);
    assert.match(trialMarkdown(doc, { generatedAt: 'now' }), /## Per hunk[\s\S]*\| 2 \| kernel\/sys\\_impl\.c @18 \| \+1 -0 \| getppid \+6\.00 % \| nothing \|/);
    assert.match(trialHtml(doc, { generatedAt: 'now' }), /<section id="per-hunk"><h2>Per hunk<\/h2>[\s\S]*<th scope="row">2<\/th><td>kernel\/sys_impl\.c @18<\/td>/);
    const json = JSON.parse(trialJson(doc, { generatedAt: 'now' })) as { perHunk: { file: string; oldStart: number; newStart: number; groupedWith: number[]; alone: { subject: string; changePct: number; verdict: string }[]; without: { verdict: string }[] }[] };
    assert.equal(json.perHunk.length, 5);
    const work = json.perHunk[1]!;
    assert.deepEqual([work.file, work.oldStart, work.newStart, work.alone[0]!.subject, work.alone[0]!.verdict, work.without[0]!.verdict], ['kernel/sys_impl.c', 18, 18, 'getppid', 'more instructions', 'no difference proven']);
    assert.ok(Math.abs(work.alone[0]!.changePct - 6) < 0.02, `alone: ${work.alone[0]!.changePct} %`);
    assert.deepEqual(json.perHunk[2]!.groupedWith, [4]);

    // a rerun builds and boots nothing again
    const boots = g.boots.length;
    const again = await runTrial(request('four', FOUR), { store, launcher: g, probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild(built) } });
    assert.equal(g.boots.length, boots);
    assert.ok(again.steps.slice(5).every((s) => s.state === 'reused'));
    assert.equal(again.perHunk!.attribution[0]!.line, p.attribution[0]!.line);
  } finally {
    store.close();
  }
});

test('--per-hunk: a hunk that does not build without another is recorded with its compiler error, and the trial goes on', { skip }, async () => {
  // an indented #define (valid C) the grouping does not read as a declaration; the other hunk uses it
  const patch = patchOf('hidden.patch', {
    'kernel/sys_impl.c': (t) => t.replace('int getparam(int pid, int *param)', ' #define EXTRA 2\nint getparam(int pid, int *param)').replace('\treturn y;', '\treturn y + EXTRA;'),
  });
  const store = Store.open(join(dir, 'hidden.db'));
  try {
    const notes: string[] = [];
    const doc = await runTrial(request('hidden', patch), { store, launcher: guest(), probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild() }, onNote: (l) => notes.push(l) });
    const p = doc.perHunk!;
    assert.deepEqual(p.variants.map((v) => [v.name, v.state]), [['alone-1', 'measured'], ['alone-2', 'unbuilt']]);
    assert.match(p.variants[1]!.error!, /EXTRA/);
    assert.match(trialText(doc, { generatedAt: 'now' }), /alone-2 did not build: .*EXTRA/);
    assert.equal(store.trials.get(doc.trialId)!.status, 'complete');
  } finally {
    store.close();
  }
});

test('--per-hunk with a one-hunk patch builds nothing more and says why', { skip }, async () => {
  const patch = patchOf('one.patch', { 'kernel/sys_impl.c': (t) => t.replace('\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 0))') });
  const store = Store.open(join(dir, 'one.db'));
  try {
    const notes: string[] = [];
    const built: string[] = [];
    const doc = await runTrial(request('one', patch), { store, launcher: guest(), probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild(built) }, onNote: (l) => notes.push(l) });
    assert.deepEqual(built, ['A', 'B']);
    assert.deepEqual(notes, ['--per-hunk: the change is one hunk, so B is its only variant: nothing more to build']);
    assert.match(trialLkml(doc, { generatedAt: 'now' }), /Per hunk: the change is one hunk/);
  } finally {
    store.close();
  }
});

test('the variants live under --out/hunks, each patch beside its build', { skip }, () => {
  const out = join(dir, 'four', 'hunks');
  const text = readFileSync(join(out, 'alone-2.patch'), 'utf8');
  assert.match(text, /^--- a\/kernel\/sys_impl\.c\n\+\+\+ b\/kernel\/sys_impl\.c\n@@ -18,/);
  assert.ok(readFileSync(join(out, 'alone-2', 'hintlab-kernel.json'), 'utf8').includes('"label": "alone-2"'));
  cpSync(out, join(dir, 'copy'), { recursive: true });
});
