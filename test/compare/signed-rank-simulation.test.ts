/**
 * Independent pairs are judged by Wilcoxon's signed-rank test with the
 * Hodges-Lehmann interval (src/compare/contrast.ts). Seeded alternations of
 * one process with a switch (blocks in random AB/BA order, adjacent blocks
 * a pair) through the real compare(), one subject, 100 pairs, the per-pair
 * log ratios scattering by about 7.5 % as measured here:
 *   - heavy tails: 15 % of blocks five times as noisy (robust spread about
 *     half the SD);
 *   - drift: the machine slows by 0.1 % per block over the run;
 *   - AR(1): the machine's state moves block to block with correlation 0.9
 *     (sd 5 %).
 * Each asserts at most alpha + 1.5 points of false claims (identical sides
 * at threshold 0; a change of exactly the threshold at 1 %), at least 93 %
 * coverage of a real +2 %, and that the printed claimable change, injected,
 * is claimed in 80 % of runs give or take binomial noise. 600 comparisons
 * per case (binomial SE 0.9 points at 5 %, 1.6 at 80 %); seeds fixed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { Comparison } from '../../src/compare/types.ts';
import { gaussian, mulberry32, type Random } from '../../src/stats/random.ts';
import { logNoise, pairedRun } from './fixtures.ts';

const N = 600;
const PAIRS = 100;
type Scenario = 'heavy' | 'drift' | 'ar1';

/** One comparison: PAIRS pairs of adjacent blocks in random order, B changed by `changePct`. */
function simulate(random: Random, scenario: Scenario, changePct: number, thresholdPct: number): Comparison {
  const a: number[] = [];
  const b: number[] = [];
  let state = 0;
  let block = 0;
  const next = () => {
    block++;
    if (scenario === 'drift') state = 0.001 * block;
    if (scenario === 'ar1') state = 0.9 * state + 0.05 * Math.sqrt(1 - 0.81) * gaussian(random);
    return state;
  };
  const delta = Math.log1p(changePct / 100);
  for (let k = 0; k < PAIRS; k++) {
    const first = next() + logNoise(random, 0.053, scenario === 'heavy');
    const second = next() + logNoise(random, 0.053, scenario === 'heavy');
    const [ta, tb] = random() < 0.5 ? [first, second] : [second, first];
    a.push(100 * Math.exp(ta));
    b.push(100 * Math.exp(tb + delta));
  }
  return compare({ a: pairedRun(1, a, 'alternation'), b: pairedRun(2, b, 'alternation') }, { thresholdPct, correction: 'none' });
}

interface CaseRates {
  claims: number;
  covered: number;
  meanClaimablePct: number;
}

function run(seed: number, scenario: Scenario, changePct: number, thresholdPct: number): CaseRates {
  const random = mulberry32(seed);
  let claims = 0;
  let covered = 0;
  let claimable = 0;
  for (let k = 0; k < N; k++) {
    const s = simulate(random, scenario, changePct, thresholdPct).subjects[0]!;
    assert.ok(s.change.test.kind === 'ok' && s.change.test.method === 'signed-rank');
    if (s.verdict.verdict === 'slower' || s.verdict.verdict === 'faster') claims++;
    if (s.change.ciPct.kind === 'ok' && s.change.ciPct.low <= changePct && changePct <= s.change.ciPct.high) covered++;
    if (s.power.kind === 'ok') claimable += s.power.claimablePct;
  }
  return { claims: claims / N, covered: covered / N, meanClaimablePct: claimable / N };
}

describe('the signed-rank test on independent pairs', () => {
  for (const [i, scenario] of (['heavy', 'drift', 'ar1'] as const).entries()) {
    it(`holds alpha, covers the true change and claims its printed detectable change in about 80 % of runs (${scenario})`, () => {
      const none = run(100 + i, scenario, 0, 0);
      const atThreshold = run(200 + i, scenario, 1, 1);
      const real = run(300 + i, scenario, 2, 1);
      const printed = run(400 + i, scenario, real.meanClaimablePct, 1);
      console.log(
        `# signed-rank, ${scenario}: false claims ${none.claims} (threshold 0), ${atThreshold.claims} (+1 % at threshold 1 %); coverage ${real.covered} (+2 %); ` +
          `claimable ${Math.round(100 * real.meanClaimablePct) / 100} % claimed in ${printed.claims} (${N} seeded comparisons each)`,
      );
      assert.ok(none.claims <= 0.065, `false claims ${none.claims}`);
      assert.ok(atThreshold.claims <= 0.065, `claims at the threshold ${atThreshold.claims}`);
      assert.ok(real.covered >= 0.93 && none.covered >= 0.93, `coverage ${real.covered}, ${none.covered}`);
      assert.ok(printed.claims >= 0.74 && printed.claims <= 0.88, `the printed detectable change was claimed in ${printed.claims}`);
    });
  }

  it('shows the paired t beside it and says which test decided', () => {
    const c = simulate(mulberry32(7), 'heavy', 5, 1);
    const s = c.subjects[0]!;
    assert.ok(s.change.rank.kind === 'ok' && s.change.rank.method === 'paired-t');
    assert.equal(s.verdict.verdict, 'slower');
    assert.match(s.verdict.reason, /\(the Hodges-Lehmann estimate of the per-pair ratios\).*signed-rank p = /);
  });

  it('leaves fewer than 20 pairs to the paired t', () => {
    const few = compare({ a: pairedRun(1, [100, 101, 99, 100.5, 99.8, 100.2], 'alternation'), b: pairedRun(2, [102, 103, 101, 102.4, 101.9, 102.1], 'alternation') });
    const t = few.subjects[0]!.change.test;
    assert.ok(t.kind === 'ok' && t.method === 'paired-t');
  });
});
