import assert from 'node:assert/strict';

/** Assert |actual - expected| <= rel * |expected| (or <= rel when expected is 0). */
export function assertClose(actual: number, expected: number, rel = 1e-12, what = ''): void {
  const tol = rel * Math.max(Math.abs(expected), expected === 0 ? 1 : 0);
  assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} is not within ${rel} (relative) of ${expected}`);
}
