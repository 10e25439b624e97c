/** Minimum detectable effect and rounds needed, checked against the exact noncentral t power (scipy). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { minimumDetectableEffect, roundsNeeded } from '../../src/stats/power.ts';
import { assertClose } from './close.ts';

const options = { alpha: 0.05, power: 0.8 };

describe('minimum detectable effect', () => {
  it('is the exact noncentral-t figure: 15 rounds at sd 3 give 3.1794 (the textbook t + t gave 3.1801)', () => {
    // ncp with nct.sf(t.ppf(.975,28), 28, ncp) + nct.cdf(-.., 28, ncp) = 0.8: 2.902380692703361, x 3 sqrt(2/15)
    const r = minimumDetectableEffect({ stdev: 3, n: 15 }, { stdev: 3, n: 15 }, options);
    assert.equal(r.kind, 'ok');
    assertClose(r.effect, 3.179398751722201, 1e-6);
  });

  it('needs rounds in both runs and some noise', () => {
    assert.equal(minimumDetectableEffect({ stdev: 3, n: 1 }, { stdev: 3, n: 15 }, options).kind, 'insufficient-data');
    assert.equal(minimumDetectableEffect({ stdev: 0, n: 9 }, { stdev: 0, n: 9 }, options).kind, 'insufficient-data');
  });
});

describe('rounds needed', () => {
  it('finds the exact noncentral-t answer: 37 rounds per run for a change of 2 at sd 3', () => {
    // Smallest n with exact two-sided power >= 0.8 (scipy.stats.nct, df = 2n - 2): 37 (power 0.8076; 36 gives 0.7966).
    assert.deepEqual(roundsNeeded({ stdev: 3, n: 15 }, { stdev: 3, n: 15 }, 2, options), { kind: 'ok', rounds: 37 });
  });

  it('finds 64 rounds for half a standard deviation, the textbook d = 0.5 case', () => {
    // Cohen's d = 0.5 at alpha 0.05, power 0.8: 64 per group (exact noncentral t, scipy).
    assert.deepEqual(roundsNeeded({ stdev: 1, n: 10 }, { stdev: 1, n: 10 }, 0.5, options), { kind: 'ok', rounds: 64 });
  });

  it('refuses an effect of zero', () => {
    assert.equal(roundsNeeded({ stdev: 1, n: 10 }, { stdev: 1, n: 10 }, 0, options).kind, 'insufficient-data');
  });
});
