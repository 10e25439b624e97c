/** A trial boots each kernel often enough for its exact claims to hold alpha over the family compared. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCHED_SET } from '../../src/macro/stressors.ts';
import { defaultRepeat, stressorsNamed } from '../../src/trial/boots.ts';

test('boots per kernel: 3 for one subject, 4 for the six one-CPU profiles, 5 with the sched stressor set', () => {
  assert.equal(defaultRepeat(1, 0, 0.05), 3);
  assert.equal(defaultRepeat(2, 0, 0.05), 4);
  assert.equal(defaultRepeat(6, 0, 0.05), 4);
  assert.equal(defaultRepeat(7, 0, 0.05), 5);
  assert.equal(defaultRepeat(6, stressorsNamed([], ['sched']), 0.05), 5);
  assert.equal(defaultRepeat(0, 0, 0.05), 3);
});

test('stressors named count each name once, sets expanded', () => {
  assert.equal(stressorsNamed(['fifo', 'yield'], []), 2);
  assert.equal(stressorsNamed(['fifo', SCHED_SET[0]!], ['sched']), new Set(['fifo', ...SCHED_SET]).size);
});
