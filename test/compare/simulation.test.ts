/**
 * The verdict rule on seeded synthetic runs: how often it claims a change
 * that is not there, and how often it sees one that is. Rates are compared
 * with alpha and with the exact power of the t-test (scipy.stats.nct), not
 * with this code's own output.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { Verdict } from '../../src/compare/types.ts';
import { gaussian, mulberry32 } from '../../src/stats/random.ts';
import { makeRun } from './fixtures.ts';

const EXPERIMENTS = 1000;

interface Scenario {
  shiftPct: number;
  noisePct: number;
  rounds: number;
  thresholdPct: number;
  seed: number;
}

/** Run EXPERIMENTS A/B comparisons of normal rounds around 100 and count verdicts. */
function simulate(s: Scenario): Record<Verdict, number> {
  const random = mulberry32(s.seed);
  const series = (mean: number) => Array.from({ length: s.rounds }, () => mean * (1 + (s.noisePct / 100) * gaussian(random)));
  const counts: Record<Verdict, number> = { faster: 0, slower: 0, 'no difference proven': 0, 'insufficient data': 0 };
  for (let i = 0; i < EXPERIMENTS; i++) {
    const a = makeRun({ id: 1, values: { getppid: series(100) } });
    const b = makeRun({ id: 2, values: { getppid: series(100 * (1 + s.shiftPct / 100)) } });
    const cmp = compare({ a, b }, { thresholdPct: s.thresholdPct, bootstrapResamples: 1000, bootstrapSeed: i });
    counts[cmp.subjects[0]!.verdict.verdict]++;
  }
  return counts;
}

/** Three binomial standard errors at rate p: the Monte Carlo slack of EXPERIMENTS trials. */
const slack = (p: number) => 3 * Math.sqrt((p * (1 - p)) / EXPERIMENTS);

describe('verdict rule on seeded synthetic data', () => {
  it('claims a change in A/A comparisons no more often than alpha (3 % noise, 15 rounds)', (t) => {
    const withThreshold = simulate({ shiftPct: 0, noisePct: 3, rounds: 15, thresholdPct: 1, seed: 11 });
    const noThreshold = simulate({ shiftPct: 0, noisePct: 3, rounds: 15, thresholdPct: 0, seed: 12 });
    const rate = (c: Record<Verdict, number>) => (c.faster + c.slower) / EXPERIMENTS;
    t.diagnostic(`A/A false positives: ${rate(withThreshold)} with the 1 % threshold, ${rate(noThreshold)} with none`);
    assert.ok(rate(withThreshold) <= 0.05, `false-positive rate ${rate(withThreshold)} above alpha`);
    // Without a threshold the rule is Welch at alpha plus the bootstrap CI: about alpha, within Monte Carlo slack.
    assert.ok(rate(noThreshold) <= 0.05 + slack(0.05), `false-positive rate ${rate(noThreshold)} above alpha`);
  });

  it('detects a 2 % slowdown at 3 % noise with 15 rounds as often as the t-test power allows, never as faster', (t) => {
    const bare = simulate({ shiftPct: 2, noisePct: 3, rounds: 15, thresholdPct: 0, seed: 21 });
    const ruled = simulate({ shiftPct: 2, noisePct: 3, rounds: 15, thresholdPct: 1, seed: 22 });
    t.diagnostic(`2 % at 3 % noise, 15 rounds: slower in ${bare.slower / EXPERIMENTS} without threshold, ${ruled.slower / EXPERIMENTS} with 1 %`);
    // Exact power of the two-sided t-test here: 0.4221 (scipy nct, df 28, nc = 2 / (3 sqrt(2/15))).
    assert.ok(Math.abs(bare.slower / EXPERIMENTS - 0.4221) <= slack(0.4221), `detection ${bare.slower / EXPERIMENTS}`);
    assert.equal(bare.faster + ruled.faster, 0);
    // Demanding the whole CI beyond 1 % costs power: fewer detections, never more.
    assert.ok(ruled.slower < bare.slower);
  });

  it('detects a 2 % slowdown at 3 % noise in at least 80 % of experiments with the 37 rounds power.ts asks for', (t) => {
    const c = simulate({ shiftPct: 2, noisePct: 3, rounds: 37, thresholdPct: 0, seed: 31 });
    t.diagnostic(`2 % at 3 % noise, 37 rounds: slower in ${c.slower / EXPERIMENTS}`);
    assert.ok(c.slower / EXPERIMENTS >= 0.8 - slack(0.8), `detection ${c.slower / EXPERIMENTS}`);
  });
});
