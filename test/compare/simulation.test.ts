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
import type { Correction } from '../../src/compare/options.ts';
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
  const counts: Record<Verdict, number> = { faster: 0, slower: 0, 'fewer instructions': 0, 'more instructions': 0, 'no difference proven': 0, identical: 0, 'insufficient data': 0, 'insufficient units': 0 };
  for (let i = 0; i < EXPERIMENTS; i++) {
    const a = makeRun({ id: 1, values: { getppid: series(100) } });
    const b = makeRun({ id: 2, values: { getppid: series(100 * (1 + s.shiftPct / 100)) } });
    const cmp = compare({ a, b }, { thresholdPct: s.thresholdPct, bootstrapResamples: 1000, bootstrapSeed: i });
    counts[cmp.subjects[0]!.verdict.verdict]++;
  }
  return counts;
}

/**
 * Run `experiments` A/A comparisons of `subjects` independent subjects each
 * and count the comparisons that flag at least one subject faster or slower.
 */
function familyFlags(subjects: number, experiments: number, correction: Correction, thresholdPct: number, seed: number): number {
  const random = mulberry32(seed);
  const series = () => Array.from({ length: 15 }, () => 100 * (1 + 0.03 * gaussian(random)));
  const names = Array.from({ length: subjects }, (_, k) => `s${k}`);
  let flagged = 0;
  for (let i = 0; i < experiments; i++) {
    const a = makeRun({ id: 1, values: Object.fromEntries(names.map((n) => [n, series()])) });
    const b = makeRun({ id: 2, values: Object.fromEntries(names.map((n) => [n, series()])) });
    const cmp = compare({ a, b }, { correction, thresholdPct, bootstrapResamples: 200, bootstrapSeed: i });
    if (cmp.subjects.some((s) => s.verdict.verdict === 'faster' || s.verdict.verdict === 'slower')) flagged++;
  }
  return flagged / experiments;
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

  it('flags a subject in at most alpha of A/A comparisons of 24 subjects with Holm, in about 1 - 0.95^24 without', (t) => {
    const n = 400;
    const holm = familyFlags(24, n, 'holm', 0, 41);
    const none = familyFlags(24, n, 'none', 0, 41);
    const holmDefault = familyFlags(24, n, 'holm', 1, 42);
    t.diagnostic(`24-subject A/A, threshold 0: a comparison flags something in ${holm} with Holm, ${none} without; ${holmDefault} with Holm and the 1 % threshold`);
    const slackN = (p: number) => 3 * Math.sqrt((p * (1 - p)) / n);
    // Holm controls the family-wise error rate at alpha for independent (indeed any) tests.
    assert.ok(holm <= 0.05 + slackN(0.05), `family-wise rate ${holm} above alpha`);
    assert.ok(holmDefault <= holm);
    // Uncorrected, 24 independent tests at 0.05 flag at least one subject with probability 1 - 0.95^24 = 0.708.
    assert.ok(Math.abs(none - (1 - 0.95 ** 24)) <= slackN(0.708), `uncorrected family-wise rate ${none}`);
  });
});
