/** The paired designs' budget: when measuring stops, and --min-pairs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetState, MIN_PAIRS } from '../../src/bench/budget.ts';
import type { PairedBudget } from '../../src/bench/sides.ts';

const budget = (over: Partial<PairedBudget>): PairedBudget => ({ secondsPerProfile: 1, precisionPct: null, blockRounds: 2, alpha: 0.05, ...over });
/** n pairs whose log ratios are tiny and alike, so any precision target is met at once. */
const ratios = (n: number) => new Map([['getppid', Array.from({ length: n }, (_, k) => (k % 2 === 0 ? 1e-6 : -1e-6))]]);

test('the time budget stops only after the confidence sequence has its three pairs', () => {
  assert.equal(budgetState(ratios(MIN_PAIRS - 1), budget({}), 1, 100).stop, null);
  assert.equal(budgetState(ratios(MIN_PAIRS), budget({}), 1, 100).stop, 'time');
  assert.equal(budgetState(ratios(MIN_PAIRS), budget({}), 1, 0.5).stop, null);
});

test('--min-pairs holds measuring on past the time budget and past a precision target reached early', () => {
  assert.equal(budgetState(ratios(20), budget({ minPairs: 26 }), 1, 100).stop, null);
  assert.equal(budgetState(ratios(26), budget({ minPairs: 26 }), 1, 100).stop, 'time');
  assert.equal(budgetState(ratios(20), budget({ minPairs: 26, precisionPct: 5 }), 1, 0).stop, null);
  assert.equal(budgetState(ratios(26), budget({ minPairs: 26, precisionPct: 5 }), 1, 0).stop, 'precision');
});

test('--min-pairs below three still waits for three pairs', () => {
  assert.equal(budgetState(ratios(2), budget({ minPairs: 1 }), 1, 100).stop, null);
});
