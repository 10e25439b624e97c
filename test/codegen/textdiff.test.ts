import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editScript, unifiedDiff } from '../../src/codegen/textdiff.ts';

describe('line diff', () => {
  it('finds the shortest edit script (Myers paper example: ABCABBA -> CBABAC, D = 5)', () => {
    const ops = editScript(Array.from('ABCABBA'), Array.from('CBABAC'));
    assert.equal(ops.filter((o) => o.kind !== ' ').length, 5);
    assert.deepEqual(ops.filter((o) => o.kind !== '+').map((o) => o.line), Array.from('ABCABBA'));
    assert.deepEqual(ops.filter((o) => o.kind !== '-').map((o) => o.line), Array.from('CBABAC'));
  });

  it('writes unified hunks with context and line numbers', () => {
    const a = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
    const b = ['1', '2', '3', '4', 'x', '6', '7', '8', '9'];
    assert.equal(unifiedDiff(a, b, 2), '@@ -3,5 +3,5 @@\n 3\n 4\n-5\n+x\n 6\n 7\n');
  });

  it('is empty for equal input', () => {
    assert.equal(unifiedDiff(['a'], ['a']), '');
  });
});
