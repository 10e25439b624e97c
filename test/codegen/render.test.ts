/**
 * cellPhrase, the one-line summary of a compiler cell that the trial and
 * lkml reports print: three changed functions named and "and N more
 * functions" beyond four, never "and 1 more functions".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellPhrase } from '../../src/codegen/render.ts';
import type { Cell, FunctionDelta } from '../../src/codegen/types.ts';

const compiler = { command: 'gcc', label: 'gcc 12.2.0', family: 'gcc' as const, version: '12.2.0' };
const added = (name: string): FunctionDelta => ({ name, class: 'added', instructions: 10, sizeBytes: 40 });
const cell = (functions: FunctionDelta[]): Cell => ({ state: 'compared', compiler, opt: 'O2', functions });

test('four changed functions are all named; five name three and count the rest; identical ones are left out', () => {
  const same: FunctionDelta = { name: 'same', class: 'identical', instructions: 5, sizeBytes: 20 };
  assert.equal(cellPhrase(cell([same])), 'identical');
  assert.equal(cellPhrase(cell([added('a'), same, added('b'), added('c'), added('d')])), 'a added; b added; c added; d added');
  assert.equal(cellPhrase(cell(['a', 'b', 'c', 'd', 'e'].map(added))), 'a added; b added; c added; and 2 more functions');
});
