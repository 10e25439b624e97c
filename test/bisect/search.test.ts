/** The bisection search (src/bisect/search.ts) on exact values, with a fake test callback. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bisectCommits, nextIndex, sideOf, type Commit, type TestOutcome } from '../../src/bisect/search.ts';

const commits: Commit[] = Array.from({ length: 17 }, (_, i) => ({ hash: `c${i}`, subject: `commit ${i}`, author: 'A U Thor <a@example.org>' }));

/** Values of a history where `at` adds `by` instructions, plus small moves elsewhere. */
function history(values: Record<number, number>, skip: readonly number[] = []): { test: (c: Commit) => Promise<TestOutcome>; tested: string[] } {
  const tested: string[] = [];
  let value = 1000;
  const byIndex = commits.map((_, i) => (value += values[i] ?? 0));
  return {
    tested,
    test: (c) => {
      tested.push(c.hash);
      const i = commits.indexOf(c);
      return Promise.resolve(skip.includes(i) ? { state: 'skip', reason: 'does not build' } : { state: 'measured', value: byIndex[i]! });
    },
  };
}

test('a value is on the side of the endpoint it lies nearer to; the midpoint counts as bad', () => {
  assert.equal(sideOf(1001, { good: 1000, bad: 1050 }), 'good');
  assert.equal(sideOf(1049, { good: 1000, bad: 1050 }), 'bad');
  assert.equal(sideOf(1025, { good: 1000, bad: 1050 }), 'bad');
  assert.equal(sideOf(990, { good: 1000, bad: 950 }), 'good', 'an improvement is bisected the same way');
});

test('the next commit is the midpoint, or its nearest untested neighbour when it is skipped, later first', () => {
  assert.equal(nextIndex(0, 16, new Set()), 8);
  assert.equal(nextIndex(0, 16, new Set([8])), 9);
  assert.equal(nextIndex(0, 16, new Set([8, 9])), 7);
  assert.equal(nextIndex(3, 4, new Set()), null);
  assert.equal(nextIndex(3, 5, new Set([4])), null);
});

test('the commit that adds fifty instructions is found in four tests of 15 candidates', async () => {
  const h = history({ 11: 50 });
  const r = await bisectCommits(commits, { good: 1000, bad: 1050 }, h.test);
  assert.deepEqual(r.outcome, { state: 'found', firstBad: commits[11], lastGood: commits[10] });
  assert.deepEqual(h.tested, ['c8', 'c12', 'c10', 'c11']);
  assert.equal(r.steps.length, 4);
});

test('a one-instruction hint elsewhere does not stop the search for the fifty-instruction regression', async () => {
  const h = history({ 5: 1, 11: 50 });
  const r = await bisectCommits(commits, { good: 1000, bad: 1051 }, h.test);
  assert.equal(r.outcome.state === 'found' && r.outcome.firstBad.hash, 'c11');
  const c8 = r.steps.find((s) => s.commit.hash === 'c8');
  assert.deepEqual(c8, { commit: commits[8], state: 'measured', value: 1001, side: 'good' });
});

test('a commit that does not build is skipped, named in the steps, and a neighbour decides instead', async () => {
  const h = history({ 11: 50 }, [8]);
  const r = await bisectCommits(commits, { good: 1000, bad: 1050 }, h.test);
  assert.equal(r.outcome.state === 'found' && r.outcome.firstBad.hash, 'c11');
  assert.deepEqual(r.steps[0], { commit: commits[8], state: 'skip', reason: 'does not build' });
  assert.equal(h.tested[1], 'c9');
});

test('when only skipped commits lie next to the first bad one, the outcome is the range of candidates, as git says', async () => {
  const h = history({ 11: 50 }, [10, 11]);
  const r = await bisectCommits(commits, { good: 1000, bad: 1050 }, h.test);
  assert.deepEqual(r.outcome, { state: 'ambiguous', candidates: [commits[10], commits[11], commits[12]], lastGood: commits[9] });
});

test('adjacent endpoints need no test: the bad one is the first bad commit', async () => {
  const h = history({ 1: 50 });
  const r = await bisectCommits(commits.slice(0, 2), { good: 1000, bad: 1050 }, h.test);
  assert.deepEqual(h.tested, []);
  assert.equal(r.outcome.state === 'found' && r.outcome.firstBad.hash, 'c1');
});
