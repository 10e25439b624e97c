/** The one rule for digits: about four significant figures, never grouped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatNumber } from '../../src/format/numbers.ts';
import { alignColumns } from '../../src/format/columns.ts';

test('large values print their digits without thousands separators, so a column of them stays aligned', () => {
  assert.equal(formatNumber(119626.4), '119626');
  assert.equal(formatNumber(10_000_000), '10000000');
  assert.equal(formatNumber(45.2), '45.20');
  // Right-aligned, every figure ends in the same column.
  const lines = alignColumns([['a', formatNumber(119626.4)], ['b', formatNumber(45.2)]], (i) => i === 1);
  assert.deepEqual(lines, ['a  119626', 'b   45.20']);
});
