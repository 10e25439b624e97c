/**
 * Confidence sequence: its interval against an independent numerical
 * integration of the invariant likelihood ratio, and its false-claim rate
 * under optional stopping against a fixed-n t interval peeked the same way.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { confidenceSequence } from '../../src/stats/sequential.ts';
import { studentTQuantile } from '../../src/stats/distributions.ts';
import { gaussian, mulberry32 } from '../../src/stats/random.ts';
import { assertClose } from './close.ts';

const ALPHA = 0.05;

describe('confidence sequence', () => {
  it('matches the crossing of 1/alpha by the mixture martingale, integrated numerically', () => {
    // scipy.integrate.quad of Wijsman's ratio (over scale c and the N(0, 1/lambda) effect prior,
    // lambda = 50/(2 ln 20 + ln(1 + 2 ln 20)) = 6.30028), brentq for M_n(mu) = 20:
    // mu = -0.3220658320708485 and 0.6920658320708488 (mean 0.185, n = 10).
    const xs = [0.3, -0.1, 0.45, 0.2, 0.05, -0.25, 0.6, 0.15, 0.1, 0.35];
    const cs = confidenceSequence(xs, ALPHA);
    assert.ok(cs);
    assertClose(cs.centre, 0.185, 1e-12, 'centre');
    assertClose(cs.lo, -0.3220658320708485, 1e-9, 'lo');
    assertClose(cs.hi, 0.6920658320708488, 1e-9, 'hi');
    assert.equal(cs.n, 10);
    // Wider than the fixed-n 95 % t interval (half-width 0.1816 = t(0.975, 9) * s/sqrt(10)), the price of looking at every n.
    assert.ok(cs.hi - cs.centre > 0.1816);
  });

  it('needs three values and says the whole line while too few to bound the mean', () => {
    assert.equal(confidenceSequence([1, 2], ALPHA), null);
    const early = confidenceSequence([1, 2, 3], ALPHA);
    assert.deepEqual(early, { centre: 2, lo: -Infinity, hi: Infinity, n: 3 });
    assert.throws(() => confidenceSequence([1, 2, 3], 1.5), /alpha/);
  });

  it('keeps the false-claim rate at alpha when stopping at the first n that excludes 0, and a peeked t interval does not', () => {
    const replicates = 2000;
    const maxN = 200;
    const random = mulberry32(2025);
    const tq = Array.from({ length: maxN + 1 }, (_, n) => (n >= 3 ? studentTQuantile(1 - ALPHA / 2, n - 1) : 0));
    let sequenceClaims = 0;
    let peekedTClaims = 0;
    for (let r = 0; r < replicates; r++) {
      const xs: number[] = [];
      let sum = 0;
      let sumSq = 0;
      let sequenceClaimed = false;
      let tClaimed = false;
      for (let n = 1; n <= maxN; n++) {
        const x = 0.03 * gaussian(random); // identical sides: true mean 0
        xs.push(x);
        sum += x;
        sumSq += x * x;
        if (n < 3) continue;
        if (!sequenceClaimed) {
          const cs = confidenceSequence(xs, ALPHA);
          if (cs && (cs.lo > 0 || cs.hi < 0)) sequenceClaimed = true;
        }
        const m = sum / n;
        const se = Math.sqrt((sumSq - n * m * m) / (n - 1) / n);
        if (Math.abs(m) > tq[n]! * se) tClaimed = true;
      }
      if (sequenceClaimed) sequenceClaims++;
      if (tClaimed) peekedTClaims++;
    }
    const binomialSe = Math.sqrt((ALPHA * (1 - ALPHA)) / replicates);
    const sequenceRate = sequenceClaims / replicates;
    const tRate = peekedTClaims / replicates;
    assert.ok(sequenceRate <= ALPHA + 3 * binomialSe, `confidence sequence claimed in ${sequenceRate}`);
    // Peeking 198 times at a 95 % t interval claims in roughly a third of identical cases.
    assert.ok(tRate > ALPHA + 10 * binomialSe, `peeked t interval claimed in only ${tRate}`);
  });

  it('covers the true mean at the stopping time of a precision target, and reaches it', () => {
    // Stop when the half-width is below 1 % (true mean +2 %, spread 5 % per pair): coverage at that n.
    const random = mulberry32(7);
    const replicates = 400;
    let covered = 0;
    let reached = 0;
    for (let r = 0; r < replicates; r++) {
      const xs: number[] = [];
      for (let n = 1; n <= 2000; n++) {
        xs.push(0.02 + 0.05 * gaussian(random));
        if (n < 3 || n % 5 !== 0) continue;
        const cs = confidenceSequence(xs, ALPHA);
        if (cs && (cs.hi - cs.lo) / 2 <= 0.01) {
          reached++;
          if (cs.lo <= 0.02 && cs.hi >= 0.02) covered++;
          break;
        }
      }
    }
    assert.equal(reached, replicates);
    const binomialSe = Math.sqrt((ALPHA * (1 - ALPHA)) / replicates);
    assert.ok(covered / replicates >= 1 - ALPHA - 3 * binomialSe, `covered ${covered}/${replicates}`);
  });
});
