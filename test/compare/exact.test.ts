/**
 * The exact rule for instruction counts (src/compare/exact.ts): when every
 * boot of each run repeats its count, a change of any size is claimed as
 * exact and no change reads 'identical'; one boot that differs sends the
 * subject back to the tests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compare } from '../../src/compare/compare.ts';
import { isClaim } from '../../src/compare/verdict.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { makeRun } from './fixtures.ts';

const icount = (id: number, label: string, getppid: number[], extra: Record<string, number[]> = {}) =>
  makeRun({ id, label, kind: 'vm', unit: 'instructions/call', values: { getppid, ...extra } });

test('one instruction fewer in every one of 3 boots is claimed, as exact, though it is 0.03 %', () => {
  const c = compare({ a: icount(1, 'A', [3754, 3754, 3754]), b: icount(2, 'B', [3753, 3753, 3753]) });
  const s = c.subjects[0]!;
  assert.equal(s.verdict.verdict, 'fewer instructions');
  assert.equal(s.verdict.exact, true);
  assert.match(s.verdict.reason, /^exact: every boot gave the same value \(boots: A 3, B 3\): 3754 in A, 3753 in B, -1 \(-0\.03 %\)/);
  assert.deepEqual(c.regressions, []);
});

test('the same count in every boot of A and B is identical; a changed subject beside it is still claimed (4 boots for 2 subjects)', () => {
  const c = compare({ a: icount(1, 'A', [321.65, 321.65, 321.65, 321.65], { mincore: [900, 900, 900, 900] }), b: icount(2, 'B', [321.65, 321.65, 321.65, 321.65], { mincore: [905, 905, 905, 905] }) });
  const [g, m] = c.subjects;
  assert.equal(g!.verdict.verdict, 'identical');
  assert.match(g!.verdict.reason, /321\.65 in A and B alike/);
  assert.equal(m!.verdict.verdict, 'more instructions');
  assert.deepEqual(c.regressions, ['mincore']);
});

test('A/B/A: A2 equal to A keeps the claim exact; A2 different from A leaves the tests to decide and says why', () => {
  const same = compare({ a: icount(1, 'A', [100, 100, 100]), b: icount(2, 'B', [102, 102, 102]), a2: icount(3, 'A2', [100, 100, 100]) });
  assert.equal(same.subjects[0]!.verdict.verdict, 'more instructions');
  assert.match(same.subjects[0]!.verdict.reason, /boots: A 3, B 3, A2 3/);
  const moved = compare({ a: icount(1, 'A', [100, 100, 100]), b: icount(2, 'B', [102, 102, 102]), a2: icount(3, 'A2', [101, 101, 101]) });
  const v = moved.subjects[0]!.verdict;
  assert.equal(v.exact, undefined);
  assert.notEqual(v.verdict, 'identical');
  assert.match(v.reason, /A gave 100 and A2 101: the count did not repeat across runs, so the change is not exact/);
});

test('boots that differ at all, or too few boots, are judged by the tests as before', () => {
  const spread = compare({ a: icount(1, 'A', [3754, 3754.2, 3754]), b: icount(2, 'B', [3753, 3753, 3753]) });
  assert.equal(spread.subjects[0]!.verdict.exact, undefined);
  const two = compare({ a: icount(1, 'A', [3754, 3754]), b: icount(2, 'B', [3753, 3753]) });
  assert.equal(two.subjects[0]!.verdict.exact, undefined);
  assert.equal(two.subjects[0]!.verdict.verdict, 'insufficient units');
});

test('time is never judged by the exact rule, however equal its units', () => {
  const c = compare({ a: makeRun({ id: 1, values: { getppid: [500, 500, 500] } }), b: makeRun({ id: 2, values: { getppid: [510, 510, 510] } }) });
  assert.equal(c.subjects[0]!.verdict.exact, undefined);
  assert.notEqual(c.subjects[0]!.verdict.verdict, 'slower');
});

test('an exact difference below one event in 100 calls is no change per call, and says how many per round', () => {
  const c = compare({ a: icount(1, 'A', [56.0309, 56.0309, 56.0309]), b: icount(2, 'B', [56.0308, 56.0308, 56.0308]) });
  const v = c.subjects[0]!.verdict;
  assert.equal(v.verdict, 'no difference proven');
  assert.equal(v.exact, true);
  assert.match(v.reason, /-0\.0001 per call, 10 per round of 100000 calls: less than one in 100 calls, an event of the round, not a change per call/);
});

/** 24 subjects whose count per boot is 100 or 101, each with probability 1/2, in A and B alike: no subject differs. */
function twoValued(seed: number, boots: number) {
  const random = mulberry32(seed);
  const side = () => Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`s${i}`, Array.from({ length: boots }, () => (random() < 0.5 ? 100 : 101))]));
  return compare({ a: makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: side() }), b: makeRun({ id: 2, kind: 'vm', unit: 'instructions/call', values: side() }) });
}

test('3 repeating boots are no proof over 24 subjects: the reason says 5 boots per side would be', () => {
  const values = (x: number) => [x, x, x];
  const subjects = (x: number) => Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`s${i}`, values(x + i)]));
  const c = compare({ a: makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: subjects(100) }), b: makeRun({ id: 2, kind: 'vm', unit: 'instructions/call', values: subjects(200) }) });
  const v = c.subjects[0]!.verdict;
  assert.equal(v.exact, undefined);
  assert.equal(v.verdict, 'insufficient data');
  // 24 x 2 (1/2)^6 = 75 %
  assert.match(v.reason, /every boot repeated its value \(boots: A 3, B 3\), but over 24 subjects a count that took two values would repeat like this in up to 75(\.0+)? % of comparisons: an exact claim needs 5 boots per side$/);
});

test('a count that takes two values equally often is claimed exact in at most alpha of comparisons of 24 subjects (5 boots), where 3 boots per subject claimed in 53 %', () => {
  // 24 x 2 x 4^-5 = 4.7 % is the bound; 400 seeded comparisons (binomial SE 1.1 points at 5 %)
  let claims = 0;
  for (let k = 0; k < 400; k++) if (twoValued(k, 5).subjects.some((s) => isClaim(s.verdict.verdict))) claims++;
  console.log(`# two-valued counts, 24 subjects, 5 boots: exact claims in ${claims / 400} of 400 comparisons`);
  assert.ok(claims / 400 <= 0.065, `claims in ${claims / 400}`);
  let three = 0;
  for (let k = 0; k < 100; k++) if (twoValued(1000 + k, 3).subjects.some((s) => isClaim(s.verdict.verdict))) three++;
  assert.equal(three, 0, '3 boots over 24 subjects claim nothing exact');
});
