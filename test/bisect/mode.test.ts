/** The determinism check (src/bisect/mode.ts): which mode a bisect runs in, and when its endpoints differ. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkEndpoints, chooseMode, STATISTICAL_BOOTS } from '../../src/bisect/mode.ts';

test('counts that repeat exactly on both endpoints give exact mode with one boot per step', () => {
  assert.deepEqual(chooseMode([1200.5, 1200.5], [1250.25, 1250.25]), { kind: 'exact', bootsPerStep: 1 });
});

test('a count that does not repeat gives statistical mode, naming the endpoint', () => {
  const mode = chooseMode([1200.5, 1200.5], [1250, 1251]);
  assert.deepEqual(mode, { kind: 'statistical', bootsPerStep: STATISTICAL_BOOTS, why: 'the boots of the bad commit did not repeat their count exactly' });
});

test('exact endpoints differ by 0.01 per call or more; closer counts are refused with the reason', () => {
  const exact = chooseMode([1, 1], [1, 1]);
  assert.deepEqual(checkEndpoints(exact, [1000, 1000], [1000.25, 1000.25]), { differ: true, good: 1000, bad: 1000.25 });
  assert.deepEqual(checkEndpoints(exact, [1000, 1000], [1000, 1000]), { differ: false, good: 1000, bad: 1000, why: 'every boot of both gave the same count' });
  const close = checkEndpoints(exact, [1000, 1000], [1000.005, 1000.005]);
  assert.equal(close.differ, false);
});

test('statistical endpoints differ when Welch finds a difference at 0.05, and not when the boots overlap', () => {
  const mode = chooseMode([1, 2], [1, 1]);
  assert.equal(checkEndpoints(mode, [1000, 1001, 1002], [1050, 1051, 1052]).differ, true);
  const same = checkEndpoints(mode, [1000, 1010, 1020], [1001, 1011, 1021]);
  assert.ok(!same.differ);
  assert.match(same.why, /^Welch's t-test over 3 and 3 boots finds no difference \(p = 0\.9\d, alpha 0\.05\)$/);
});

test('exact rates differ only beyond the threshold in percent: a bogo-op count is quantized', () => {
  const exact = chooseMode([1, 1], [1, 1]);
  assert.equal(checkEndpoints(exact, [3000, 3000], [2000, 2000], 1).differ, true);
  const close = checkEndpoints(exact, [3000, 3000], [3010, 3010], 1);
  assert.ok(!close.differ);
  assert.equal(close.why, 'the rates differ by less than 1.00 % (a bogo-op count is quantized over its budget)');
});
