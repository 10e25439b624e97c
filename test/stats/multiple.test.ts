/** Holm's step-down adjusted p-values against values worked out by hand from Holm (1979). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { holmAdjust } from '../../src/stats/multiple.ts';
import { assertClose } from './close.ts';

function assertAllClose(actual: number[], expected: number[]): void {
  assert.equal(actual.length, expected.length);
  expected.forEach((e, i) => assertClose(actual[i]!, e, 1e-12, `adjusted p #${i}`));
}

describe("Holm's step-down correction", () => {
  it('adjusts four p-values in their input order (the textbook example: H4 and H1 rejected at 0.05)', () => {
    // Sorted: 0.005 (x4), 0.01 (x3), 0.03 (x2), 0.04 (x1) -> 0.02, 0.03, 0.06, 0.04;
    // running maximum -> 0.02, 0.03, 0.06, 0.06; back in input order:
    assertAllClose(holmAdjust([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02]);
  });

  it('keeps the running maximum so a larger raw p never gets a smaller adjusted p', () => {
    // Sorted 0.01 (x3) = 0.03, 0.012 (x2) = 0.024 -> max 0.03, 0.02 (x1) = 0.02 -> max 0.03.
    assertAllClose(holmAdjust([0.02, 0.012, 0.01]), [0.03, 0.03, 0.03]);
  });

  it('caps adjusted values at 1', () => {
    // 0.5 x 2 = 1.0, 0.6 x 1 = 0.6 -> max 1.0; 0.7 x 3 = 2.1 -> 1.
    assertAllClose(holmAdjust([0.5, 0.6]), [1, 1]);
    assertAllClose(holmAdjust([0.7, 0.9, 0.8]), [1, 1, 1]);
  });

  it('gives tied p-values the same adjusted value whatever their order', () => {
    // 0.01 x 3 = 0.03, 0.01 x 2 = 0.02 -> max 0.03, 0.04 x 1 = 0.04.
    assertAllClose(holmAdjust([0.01, 0.04, 0.01]), [0.03, 0.04, 0.03]);
    assertAllClose(holmAdjust([0.04, 0.01, 0.01]), [0.04, 0.03, 0.03]);
  });

  it('leaves a single p-value and an empty family as they are', () => {
    assert.deepEqual(holmAdjust([0.028]), [0.028]);
    assert.deepEqual(holmAdjust([]), []);
  });

  it('turns the smallest of 24 A/A p-values from docs/macro.md (0.028) into 24 x 0.028 = 0.672', () => {
    const p = [0.028, 0.045, ...Array.from({ length: 22 }, (_, i) => 0.1 + i * 0.04)];
    const adjusted = holmAdjust(p);
    assertClose(adjusted[0]!, 0.672);
    // Second smallest: max(0.672, 23 x 0.045 = 1.035 -> 1) = 1.
    assert.equal(adjusted[1], 1);
  });

  it('rejects a value that is not a p-value', () => {
    assert.throws(() => holmAdjust([0.1, Number.NaN]), /NaN is not a p-value/);
    assert.throws(() => holmAdjust([1.5]), /1.5 is not a p-value/);
  });
});
