import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootsForGroups, pooledBootSpread } from '../../src/vm/boots-needed.ts';
import { bootsNeededText } from '../../src/report/vm.ts';

test('the spread between boots is pooled within kernels, so a difference between kernels does not count as noise', () => {
  // A: 99, 101 (squares 1 + 1); B: 198, 200, 202 (4 + 0 + 4); df 1 + 2
  const s = pooledBootSpread([[99, 101], [198, 200, 202]])!;
  assert.equal(s.df, 3);
  assert.ok(Math.abs(s.stdev - Math.sqrt(10 / 3)) < 1e-12);
});

test('a change of one between-boot standard deviation needs 17 boots per kernel at alpha 0.05 and power 80 % (Cohen 1988, table 2.4.1, d = 1.0)', () => {
  // pooled sd = sqrt((2 + 2) / 2) = sqrt(2) at a grand mean of 100: d = 1 is a change of sqrt(2) %
  const r = bootsForGroups([[99, 101], [99, 101]], Math.SQRT2);
  assert.deepEqual(r.needed, { kind: 'ok', boots: 17 });
  assert.ok(Math.abs(r.spreadPct! - Math.SQRT2) < 1e-12);
});

test('one boot per kernel cannot show the spread between boots, and says what it needs', () => {
  const r = bootsForGroups([[100], [120]], 1);
  assert.deepEqual(r.needed, { kind: 'unknown', reason: 'needs two boots of one kernel to measure the spread between boots' });
  assert.equal(r.spreadPct, null);
});

test('the printed spread has two decimals, or two significant digits for a spread below 0.01 % (icount boots agree to about 0.001 %)', () => {
  const text = bootsNeededText(
    [
      { subject: 'getppid', boots: 6, spreadPct: 0.000028, needed: { kind: 'ok', boots: 2 } },
      { subject: 'sched_getparam', boots: 6, spreadPct: 0.0412, needed: { kind: 'ok', boots: 2 } },
      { subject: 'select-1000', boots: 2, spreadPct: null, needed: { kind: 'unknown', reason: 'needs two boots of one kernel to measure the spread between boots' } },
    ],
    1,
  );
  assert.equal(
    text,
    'boots per kernel to detect a 1 % change (alpha 0.05, power 80 %, from 6 boots; --detect sets the size):\n' +
      '  getppid         2 (spread between boots 0.000028 %)\n' +
      '  sched_getparam  2 (spread between boots 0.04 %)\n' +
      '  select-1000     unknown: needs two boots of one kernel to measure the spread between boots\n',
  );
});
