/**
 * The table of cost counters (src/cost-counters.ts): what is derived from
 * it (words, the scope sentence, the per-function columns) and the
 * invariants every row must keep (names, keys and columns distinct).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BLOCK_COUNT_KEYS, COST_COUNTERS, COST_METRICS, COST_SCOPE, costChangeWords, costWords, FUNCTION_COUNTERS, WINDOW_KEYS } from '../src/cost-counters.ts';

test('every counter has its own metric name, window key and per-function key and column', () => {
  const distinct = (xs: readonly string[]) => new Set(xs).size === xs.length;
  assert.ok(distinct(COST_METRICS));
  assert.ok(distinct(WINDOW_KEYS));
  assert.ok(distinct(FUNCTION_COUNTERS.map((c) => c.perFunction.key)));
  assert.ok(distinct(FUNCTION_COUNTERS.map((c) => c.perFunction.column)));
  assert.ok(COST_METRICS.every((m) => /^[a-z0-9-]+\/(call|entry)$/.test(m)), COST_METRICS.join(', '));
});

test("the plugin's block line carries the per-function counts in the table's order, the instructions from the block itself", () => {
  assert.deepEqual(BLOCK_COUNT_KEYS, ['taken', 'fetches', 'misses', 'mispred']);
  assert.deepEqual(FUNCTION_COUNTERS.map((c) => c.perFunction.column), ['instr', 'taken', 'fetches', 'L1i misses', 'mispredicts']);
});

test('the scope sentence names every exact and every modelled counter once, and no counter is a time', () => {
  assert.equal(
    COST_SCOPE,
    'kernel instructions, user instructions, taken branches, I-cache line fetches and distinct I-cache lines are exact counts of the emulated execution (qemu TCG, per translated block); ' +
      'L1i misses and branch mispredictions come from the named model, not from a CPU; none is a time',
  );
  for (const c of COST_COUNTERS) assert.ok(COST_SCOPE.includes(c.thing), c.thing);
});

test("a counter's words come from its row: what it counts, per what, and 'modelled' for a model's output", () => {
  assert.deepEqual(costWords('mispredictions/call'), { short: 'mispredicts', noun: 'modelled branch mispredictions per call', thing: 'modelled branch mispredictions', perOp: 'modelled branch mispredictions/call' });
  assert.deepEqual(costWords('distinct-lines/entry'), { short: 'lines/entry', noun: 'distinct I-cache lines per kernel entry', thing: 'distinct I-cache lines', perOp: 'distinct I-cache lines/entry' });
  assert.equal(costWords('frobs/call').perOp, 'frobs/call');
  assert.equal(costChangeWords('taken-branches/call', -1), 'fewer taken branches per call');
});
