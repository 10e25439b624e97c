import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alignColumns } from '../../src/format/columns.ts';

test('columns are as wide as their widest cell, two spaces apart, left-aligned, trailing blanks trimmed', () => {
  assert.deepEqual(alignColumns([['id', 'label', 'kind'], ['#1', 'A', 'bench'], ['#12', 'vm-A-1', '']]), [
    'id   label   kind',
    '#1   A       bench',
    '#12  vm-A-1',
  ]);
});

test('right-aligned columns pad on the left, and a short row leaves its missing cells empty', () => {
  assert.deepEqual(alignColumns([['subject', 'mean', 'CV'], ['getppid', '109.6', '0.65 %'], ['select-1000', '29455']], (i) => i > 0), [
    'subject       mean      CV',
    'getppid      109.6  0.65 %',
    'select-1000  29455',
  ]);
  assert.deepEqual(alignColumns([]), []);
});
