/**
 * Multiple comparisons: when m hypotheses are each tested at alpha, the
 * chance that at least one true null is rejected (the family-wise error
 * rate) grows to 1 - (1 - alpha)^m for independent tests: 71 % for 24
 * stress-ng subjects at 0.05. Adjusted p-values bring it back to alpha.
 */

/**
 * Holm's step-down adjusted p-values (Holm 1979, "A simple sequentially
 * rejective multiple test procedure", Scand. J. Statist. 6:65-70).
 * With p sorted ascending as p(1) <= ... <= p(m):
 *   adjusted p(i) = max over j <= i of min(1, (m - j + 1) * p(j)).
 * Rejecting every hypothesis whose adjusted p is below alpha is exactly
 * Holm's procedure at level alpha, which controls the family-wise error rate
 * under any dependence between the tests and is uniformly more powerful than
 * Bonferroni (m * p). The running maximum keeps the adjusted values in the
 * order of the raw ones, and makes tied p-values get the same adjusted value.
 * Same as statsmodels.stats.multitest.multipletests(p, method='holm')[1].
 *
 * Returns the adjusted values in the order of `pValues`; throws RangeError on
 * a value outside [0, 1] (a caller bug: p-values come from tests).
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holmAdjust: ${p} is not a p-value in [0, 1]`);
  }
  const m = pValues.length;
  // Stable order: equal p-values keep their input order (the result does not depend on it).
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const adjusted = new Array<number>(m);
  let runningMax = 0;
  order.forEach(([p, index], rank) => {
    runningMax = Math.max(runningMax, Math.min(1, (m - rank) * p));
    adjusted[index] = runningMax;
  });
  return adjusted;
}
