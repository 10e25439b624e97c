/** Descriptive statistics on samples small enough to check by hand. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cvPct, geometricMean, max, mean, median, min, stdev, variance } from '../../src/stats/descriptive.ts';
import { assertClose } from './close.ts';

describe('descriptive statistics', () => {
  const xs = [2, 4, 4, 4, 5, 5, 7, 9] as const; // mean 5, squared deviations sum to 32

  it('gives mean, unbiased variance and stdev of a textbook sample', () => {
    assert.equal(mean(xs), 5);
    assertClose(variance(xs), 32 / 7);
    assertClose(stdev(xs), Math.sqrt(32 / 7));
    assertClose(cvPct(xs), (100 * Math.sqrt(32 / 7)) / 5);
  });

  it('takes the median as the middle value or the mean of the two middle values', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median(xs), 4.5);
  });

  it('does not reorder the caller array', () => {
    const ys = [3, 1, 2] as [number, number, number];
    median(ys);
    assert.deepEqual(ys, [3, 1, 2]);
  });

  it('keeps precision for large values with tiny spread (two-pass variance)', () => {
    // 1e9 + {4, 7, 13, 16}: variance 30 exactly; the one-pass formula loses it entirely.
    assertClose(variance([1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16]), 30, 1e-9);
  });

  it('has variance 0 for one value, and min and max', () => {
    assert.equal(variance([42]), 0);
    assert.equal(min(xs), 2);
    assert.equal(max(xs), 9);
  });

  it('gives the geometric mean of ratios: gm(2, 8) = 4, gm(0.5, 2) = 1', () => {
    assertClose(geometricMean([2, 8]), 4);
    assertClose(geometricMean([0.5, 2]), 1);
    assert.throws(() => geometricMean([1, 0]), /not positive/);
  });
});
