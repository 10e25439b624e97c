/**
 * The attribution lines (src/trial/attribute.ts) for the shapes a real
 * run cannot be scripted into cheaply: a change only the hunks together
 * make, and another group that moves the subject too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attribute } from '../../src/trial/attribute.ts';
import type { TrialHunk, TrialVariant, VariantRow } from '../../src/trial/document.ts';

const hunk = (index: number, oldStart: number): TrialHunk => ({ index, file: 'kernel/sched/core.c', oldStart, oldLines: 7, newStart: oldStart, newLines: 7, added: 1, removed: 1, group: index });
const hunks = [hunk(1, 100), hunk(2, 300), hunk(3, 500)];
const groups = hunks.map((h) => ({ index: h.index, hunks: [h.index], names: [] }));
const row = (changePct: number, verdict: VariantRow['verdict']): VariantRow => ({ subject: 'fifo@1', kind: 'stressor', unit: 'icount-bogo-ops/s', changeInUnit: changePct * 100, changePct, verdict });
const variant = (kind: TrialVariant['kind'], group: number, r: VariantRow): TrialVariant => ({ name: `${kind}-${group}`, kind, group, hunks: [group], state: 'measured', rows: [r] });
const none = row(0.1, 'no difference proven');

test('a change no group makes alone is said to come from the hunks together, with the groups it is gone without', () => {
  const variants = [variant('alone', 1, none), variant('alone', 2, none), variant('alone', 3, none), variant('without', 1, none), variant('without', 2, row(-20, 'slower')), variant('without', 3, none)];
  const [a] = attribute(hunks, groups, variants, [row(-33, 'slower')]);
  assert.deepEqual(a!.explainedBy, []);
  assert.equal(a!.line, 'fifo@1 -33.00 %: no group alone (all none); together only; gone without kernel/sched/core.c @100, kernel/sched/core.c @500');
});

test('the group that explains a change is named first; another group that moves the subject is named with its own change', () => {
  const variants = [variant('alone', 1, row(-31, 'slower')), variant('alone', 2, row(5, 'faster')), variant('alone', 3, none), variant('without', 1, none), variant('without', 2, row(-35, 'slower')), variant('without', 3, row(-33, 'slower'))];
  const [a] = attribute(hunks, groups, variants, [row(-33, 'slower'), { ...none, subject: 'yield@1' }]);
  assert.equal(a!.line, 'fifo@1 -33.00 %: kernel/sched/core.c @100 alone -31.00 %, without it none; others: kernel/sched/core.c @300 alone +5.00 %');
  assert.equal(attribute(hunks, groups, variants, [{ ...none, subject: 'yield@1' }]).length, 0, 'no line for a subject B does not change');
});
