/**
 * Runs stopped by --precision are judged with the fixed-n paired t: bench's
 * stopping rule (src/bench/budget.ts budgetState) looks at the width of the
 * confidence sequence alone, never at where it lies, so the estimate at the
 * stop is not chosen for its position. Seeded duets stopped by the real
 * rule at a ±3 % target (pairs scattering by 7.5 %, normal or with heavy
 * tails), then judged by the real compare(), one subject, threshold 0:
 * at most alpha + 1.5 points of false claims, at least 93 % coverage.
 * 600 runs per case (binomial SE 0.9 points at 5 %); seeds fixed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { budgetState, stoppingRecord } from '../../src/bench/budget.ts';
import type { PairedBudget } from '../../src/bench/sides.ts';
import { compare } from '../../src/compare/compare.ts';
import { mulberry32, type Random } from '../../src/stats/random.ts';
import { logNoise, pairedRun } from './fixtures.ts';

const N = 600;
const BUDGET: PairedBudget = { secondsPerProfile: 2000, precisionPct: 3, blockRounds: 1, alpha: 0.05 };

/** One run measured pair by pair until budgetState stops it (one second per pair), then compared. */
function stoppedRun(random: Random, changePct: number, heavy: boolean) {
  const d: number[] = [];
  let state = budgetState(new Map([['x', d]]), BUDGET, 1, 0);
  while (state.stop === null) {
    d.push(Math.log1p(changePct / 100) + logNoise(random, 0.075, heavy));
    state = budgetState(new Map([['x', d]]), BUDGET, 1, d.length);
  }
  const stopping = stoppingRecord(BUDGET, 3, state);
  const a = d.map(() => 100);
  const b = d.map((x) => 100 * Math.exp(x));
  const s = compare({ a: pairedRun(1, a, 'duet', { stopping }), b: pairedRun(2, b, 'duet', { stopping }) }, { thresholdPct: 0, correction: 'none' }).subjects[0]!;
  return { s, pairs: d.length, reached: state.stop === 'precision' };
}

function rates(seed: number, changePct: number, heavy: boolean) {
  const random = mulberry32(seed);
  let claims = 0;
  let covered = 0;
  let pairs = 0;
  let reached = 0;
  for (let k = 0; k < N; k++) {
    const r = stoppedRun(random, changePct, heavy);
    assert.ok(r.s.change.test.kind === 'ok' && r.s.change.test.method === 'paired-t');
    if (r.s.verdict.verdict === 'slower' || r.s.verdict.verdict === 'faster') claims++;
    const ci = r.s.change.ciPct;
    if (ci.kind === 'ok' && ci.low <= changePct && changePct <= ci.high) covered++;
    pairs += r.pairs;
    if (r.reached) reached++;
  }
  return { claims: claims / N, covered: covered / N, meanPairs: pairs / N, reached: reached / N };
}

describe('a run stopped by --precision', () => {
  for (const heavy of [false, true]) {
    it(`is judged with the fixed-n t at its stated rates (${heavy ? 'heavy tails' : 'normal pairs'})`, () => {
      const none = rates(heavy ? 61 : 51, 0, heavy);
      const real = rates(heavy ? 62 : 52, 2, heavy);
      console.log(`# --precision 3 %, ${heavy ? 'heavy tails' : 'normal'}: false claims ${none.claims}, coverage ${none.covered} (identical), ${real.covered} (+2 %), ${none.meanPairs} pairs on average, target reached in ${none.reached}`);
      assert.ok(none.reached === 1 && real.reached === 1, 'every run stopped on its precision target');
      assert.ok(none.claims <= 0.065, `false claims ${none.claims}`);
      assert.ok(none.covered >= 0.93 && real.covered >= 0.93, `coverage ${none.covered}, ${real.covered}`);
    });
  }
});
