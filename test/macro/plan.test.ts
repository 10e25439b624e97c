import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildPlan, parseInstances, resolveInstances, usableCpus } from '../../src/macro/plan.ts';

test('--instances accepts counts and all; all is one per usable CPU, duplicates dropped', () => {
  assert.deepEqual(parseInstances('1,all'), [1, 'all']);
  assert.deepEqual(resolveInstances(parseInstances('1,all,4'), 4), [1, 4]);
  assert.deepEqual(resolveInstances(['all'], 24), [24]);
  assert.throws(() => parseInstances('1,0'), /--instances 1,0: '0' is neither a positive count nor 'all'/);
  assert.throws(() => parseInstances('two'), /--instances two/);
});

test('--cpu must be a subset of the allowed CPUs', () => {
  assert.deepEqual(usableCpus('0-3', null), [0, 1, 2, 3]);
  assert.deepEqual(usableCpus('0-3', '3,1-2'), [1, 2, 3]);
  assert.throws(() => usableCpus('0-1', '1-2'), /--cpu 1-2: CPU 2 is not in this process's allowed CPUs \(0-1\)/);
  assert.throws(() => usableCpus('0-1', 'first'), /--cpu first: not a CPU list/);
});

test('repeat r of every subject runs before repeat r+1 of any', () => {
  const plan = buildPlan(['fifo', 'yield'], [1, 2], 2);
  assert.deepEqual(
    plan.map((p) => `${p.seq}:${p.subject}#${p.repeat}`),
    ['0:fifo@1#0', '1:yield@1#0', '2:fifo@2#0', '3:yield@2#0', '4:fifo@1#1', '5:yield@1#1', '6:fifo@2#1', '7:yield@2#1'],
  );
});
