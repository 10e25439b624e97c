import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAgainstProfiler, type Verdict } from '../../src/hints/verdict.ts';

const T = { minBias: 0.99, minHits: 1000 };
const rename: Verdict = { kind: 'contradicted', claimed: 'likely', macro: 'likely', claimedShare: 0.002, fix: 'unlikely' };

test('the rename of a contradicted annotation is checked by the branch profiler like a proposal', () => {
  // gcov says likely() holds 0.2 %: rename to unlikely(). The profiler ran the then-branch 99.8 % of 50000.
  const against = checkAgainstProfiler(rename, [{ workload: 'w', executions: 50_000, thenCount: 49_900 }], T);
  assert.equal(against.verdict.kind, 'skip');
  assert.equal(against.check?.agreement, 'disagrees');
  // The profiler ran it 0.1 % of 50000: the rename stands.
  const agrees = checkAgainstProfiler(rename, [{ workload: 'w', executions: 50_000, thenCount: 50 }], T);
  assert.deepEqual(agrees.verdict, rename);
  assert.equal(agrees.check?.agreement, 'agrees');
  // A contradiction without a rename writes nothing, so there is nothing to check.
  assert.equal(checkAgainstProfiler({ ...rename, fix: null }, [{ workload: 'w', executions: 50_000, thenCount: 49_900 }], T).check, null);
});
