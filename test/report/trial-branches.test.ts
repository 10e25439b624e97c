/**
 * The trial's cost section with per-branch counts, in its reporters: the
 * lkml block gives one line per flipped branch within 72 columns, the text
 * and Markdown parts say whether each kernel's boots agree branch for
 * branch and list the flips, and a schema 1 document (no branches) reads
 * as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costLkml, costMarkdown, costText } from '../../src/report/trial-cost.ts';
import type { TrialCost } from '../../src/trial/cost.ts';

const cost: TrialCost = {
  schema: 2,
  model: 'l1i=32k,8way,64 predictor=2bit',
  scope: 'cost counters: exact counts.',
  counters: { known: false, reason: 'test document' },
  kernels: { A: { known: true, value: { boots: 3, identical: true } }, B: { known: true, value: { boots: 3, identical: true } } },
  functions: { changed: [], small: 0, unchanged: 40 },
  branches: {
    kernels: [{ label: 'A', boots: 3, identical: true, noLines: null }, { label: 'B', boots: 3, identical: true, noLines: null }],
    ab: {
      a: 'A',
      b: 'B',
      matchedBy: { by: 'line' },
      onlyA: 0,
      onlyB: 0,
      flips: [{ subject: 'sched_getattr', function: '__do_sys_sched_getattr', file: 'kernel/sched/syscalls.c', line: 1033, offset: 0x2c, addressA: 'ffffffff8108a12c', addressB: 'ffffffff8108a134', takenPerCallA: 0, fallThroughPerCallA: 1, takenPerCallB: 1, fallThroughPerCallB: 0 }],
    },
  },
};

test('the lkml block gives each flipped branch its own line, within 72 columns', () => {
  const lines = costLkml(cost);
  const at = lines.indexOf('Branches whose common direction changed, B vs A:');
  assert.ok(at > 0, lines.join('\n'));
  assert.deepEqual(lines.slice(at + 1), [
    '  sched_getattr: __do_sys_sched_getattr kernel/sched/syscalls.c:1033: A',
    '    falls through 1.00/call, B jumps 1.00/call: the hot path now jumps.',
  ]);
  assert.ok(lines.every((l) => l.length <= 72));
});

test('the text and Markdown parts say that each kernel\'s boots agree branch for branch, then list the flipped branches', () => {
  for (const lines of [costText(cost), costMarkdown(cost)]) {
    const all = lines.join('\n');
    assert.match(all, /kernel A: per-branch counts identical across 3 boot\(s\)\nkernel B: per-branch counts identical across 3 boot\(s\)\n/);
    assert.match(all, /\n {2}sched_getattr: __do_sys_sched_getattr kernel\/sched\/syscalls\.c:1033: A falls through 1\.00\/call, B jumps 1\.00\/call: the hot path now jumps/);
  }
});

test('a schema 1 cost section, stored before branches were counted, reports no branch lines', () => {
  const { branches: _branches, ...old } = cost;
  const v1: TrialCost = { ...old, schema: 1 };
  assert.doesNotMatch(costText(v1).join('\n'), /branch/);
  assert.doesNotMatch(costLkml(v1).join('\n'), /Branches whose/);
});
