/** The bisect reports (src/report/bisect.ts) of a hand-built document. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BisectDocument, BisectStep } from '../../src/bisect/document.ts';
import type { Commit } from '../../src/bisect/search.ts';
import { bisectJson, bisectLkml, bisectText, replayLog } from '../../src/report/bisect.ts';

const commit = (n: number, subject: string): Commit => ({ hash: String(n).repeat(40), subject, author: 'A U Thor <author@example.org>' });
const [good, c4, c6, c7, c8, bad] = [commit(1, 'base'), commit(4, 'sched: hint'), commit(6, 'sched: half a refactor'), commit(7, 'sched: copy the attr'), commit(8, 'sched: comment'), commit(9, 'sched: last comment')] as const;
const measured = (c: Commit, role: 'good' | 'bad' | 'step', value: number, side: 'good' | 'bad', boots = 1): Extract<BisectStep, { state: 'measured' }> => ({
  commit: c, role, state: 'measured', boots: Array.from({ length: boots }, () => ({ value, runId: null })), value, side, reused: false, build: 'built', seconds: 1,
});

const doc: BisectDocument = {
  format: 'hintlab-bisect',
  schema: 2,
  src: '/src/linux',
  target: null,
  refs: { good: 'v1', bad: 'master' },
  good,
  bad,
  metric: { subject: 'getppid', name: 'instructions/call', costModel: null },
  mode: { kind: 'exact', bootsPerStep: 1 },
  commits: 9,
  steps: [
    measured(good, 'good', 1000, 'good', 2),
    measured(bad, 'bad', 1051, 'bad', 2),
    measured(c4, 'step', 1001, 'good'),
    { commit: c6, role: 'step', state: 'skip', reason: 'build failed (make exit 2)', reused: false, seconds: 3 },
    measured(c7, 'step', 1051, 'bad'),
    { ...measured(c8, 'step', 1051, 'bad'), reused: true, build: 'reused' },
  ],
  outcome: { state: 'ambiguous', candidates: [c6, c7], lastGood: c4 },
  culpritIsMerge: false,
  builds: 4,
  functions: null,
  seconds: 12.3,
};
const c5 = commit(5, 'sched: fix');
const found: BisectDocument = { ...doc, outcome: { state: 'found', firstBad: c7, lastGood: c5 }, steps: [...doc.steps, measured(c5, 'step', 1001, 'good')] };

test('the replay log marks every tested commit as git bisect log does, and names the first bad commit', () => {
  const log = replayLog(found);
  assert.equal(log[0], 'git bisect start');
  assert.deepEqual(log.slice(1, 3), [`# good: [${good.hash}] base`, `git bisect good ${good.hash}`]);
  assert.ok(log.includes(`git bisect skip ${c6.hash}`));
  assert.equal(log.at(-1), `# first bad commit: [${c7.hash}] sched: copy the attr`);
});

test('text names the first bad commit with subject, author and the change at it, and every tested commit with its value', () => {
  const text = bisectText(found);
  assert.match(text, /^first bad commit: 7{40}\n {2}subject: sched: copy the attr\n {2}author: {2}A U Thor <author@example.org>\n {2}getppid, guest instructions per call: 1001 instr at its parent, 1051 instr here: \+50 instr \(\+5\.00 %\)$/m);
  assert.match(text, /^mode: exact: the good and the bad commit each repeated their value exactly in 2 boots, so one boot per step decides$/m);
  assert.match(text, /^ {2}666666666666 +step +- +skip +- +build failed \(make exit 2\) +sched: half a refactor$/m);
  assert.match(text, /^ {2}888888888888 +step +1051 instr +bad +1 +stored +sched: comment$/m);
  assert.match(text, /^9 commits on the first-parent line, 6 booted, 1 skipped \(did not build or boot\); 4 kernels built by this run; 12\.3 s$/m);
});

test('text says the range of candidates when skips leave the culprit unpinned', () => {
  const text = bisectText(doc);
  assert.match(text, /^the first bad commit could not be pinned: skipped commits lie between the last good one \(444444444444\) and the first bad one; it is one of:\n {2}666666666666 sched: half a refactor\n {2}777777777777 sched: copy the attr$/m);
});

test('json has firstBad, every booted commit with value and side (endpoints included), and the builds', () => {
  const j = JSON.parse(bisectJson(found)) as { firstBad: unknown; steps: { commit: string; value: number | null; side: string }[]; builds: number };
  assert.deepEqual(j.firstBad, { commit: c7.hash, subject: 'sched: copy the attr', author: 'A U Thor <author@example.org>' });
  assert.deepEqual(j.steps.slice(0, 4).map((s) => [s.commit.slice(0, 1), s.value, s.side]), [['1', 1000, 'good'], ['9', 1051, 'bad'], ['4', 1001, 'good'], ['6', null, 'skip']]);
  assert.equal(j.builds, 4);
});

test('lkml gives commit, metric, change and how it was measured', () => {
  assert.deepEqual(bisectLkml(found).split('\n').slice(0, 9), [
    'getppid, guest instructions per call: +51 instr (+5.10 %) between v1 and master, bisected to',
    '',
    `  commit ${c7.hash} ("sched: copy the attr")`,
    '  Author: A U Thor <author@example.org>',
    '',
    '  metric:   getppid, guest instructions per call',
    '  change:   1000 instr (good) -> 1051 instr (bad)',
    '  measured: each commit built and booted under qemu -icount (guest instructions, exact: counts repeat boot to boot, one boot per commit); 6 of 9 commits booted',
    '',
  ]);
});

test('with --cost, text names the model and the per-function change from the parent to the first bad commit', () => {
  const change = { insns: 50, taken: 3, fetches: 0, misses: 0, mispred: 0 };
  const withCost: BisectDocument = {
    ...found,
    metric: { ...found.metric, costModel: 'l1i=32k,8way,64 predictor=2bit' },
    functions: { changed: [{ subject: 'getppid', name: '__x64_sys_getppid', change, shiftBytes: 0, sizeA: 64, sizeB: 96 }], small: 0, unchanged: 12 },
  };
  const text = bisectText(withCost);
  assert.match(text, /^cost model: l1i=32k,8way,64 predictor=2bit\nper function, first bad commit - parent per call:\n/m);
  assert.match(text, /^getppid +__x64_sys_getppid +\+50\.0 +\+3\.00 .*size 64 -> 96 bytes; same address$/m);
  assert.match(text, /^every other function unchanged \(12 function rows\)$/m);
});

test('a bisect on a LAVA lab says so in text, json and lkml; one in qemu here names no lab', () => {
  const onLab: BisectDocument = { ...found, target: 'lava://lab.example/qemu' };
  assert.match(bisectText(onLab), /^boots: on lava:\/\/lab\.example\/qemu, each boot one LAVA job \(its URL is stored with the boot's run: hintlab runs --verbose\); the kernels were built here$/m);
  assert.doesNotMatch(bisectText(found), /^boots: /m);
  assert.equal((JSON.parse(bisectJson(onLab)) as { target: string }).target, 'lava://lab.example/qemu');
  assert.match(bisectLkml(onLab), /^ {2}measured: each commit built and booted under qemu -icount on a LAVA lab \(lava:\/\/lab\.example\/qemu\) \(guest instructions, exact/m);
});
