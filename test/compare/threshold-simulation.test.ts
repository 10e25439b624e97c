/**
 * The noise threshold held family-wise, on seeded alternation runs whose
 * per-pair log ratios scatter by 7.5 % (as measured on this machine's
 * 2-vCPU guest, docs/bench-power.md): with every subject changed by exactly the
 * threshold, no claim may be made in more than alpha of comparisons, for
 * one subject or 24. The rule before (whole 95 % CI beyond the threshold,
 * Holm only on the p of 0) claimed in about half the comparisons of 24
 * subjects; it is computed beside, from the same contrasts, to show the
 * scenario is one where the difference matters. Coverage is of the deciding
 * interval (Hodges-Lehmann, 20 pairs or more); the paired t interval that
 * compare shows beside it is checked on the same draws, since the docs quote
 * both (docs/compare-family.md).
 *
 * Margins: a rate at most alpha + 1.5 points is asserted on N comparisons;
 * at alpha 0.05 its binomial standard error is sqrt(0.05 x 0.95 / N), 0.97
 * points for 500. The seeds are fixed, so the outcome is too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { Comparison, SubjectComparison } from '../../src/compare/types.ts';
import { isClaim } from '../../src/compare/verdict.ts';
import type { RunWithRounds } from '../../src/model.ts';
import { pairedTTest, tInterval } from '../../src/stats/paired.ts';
import { gaussian, mulberry32, type Random } from '../../src/stats/random.ts';
import { makeRun } from './fixtures.ts';

const ALPHA = 0.05;
const PAIR_SD = 0.075;

function alternation(r: RunWithRounds): RunWithRounds {
  const extra = r.params.extra;
  return { ...r, params: { ...r.params, extra: { ...extra, interleave: { ...extra.interleave!, design: 'alternation' } } } };
}

/** One alternation comparison: `changes[i]` is subject i's true ratio B/A; each pair shares a 5 % shift. Also the per-pair log ratios of each subject. */
function simulate(random: Random, changes: readonly number[], pairs: number, pairSd: number): { c: Comparison; d: number[][] } {
  const a: Record<string, number[]> = {};
  const b: Record<string, number[]> = {};
  changes.forEach((ratio, i) => {
    const shifts = Array.from({ length: pairs }, () => 100 * Math.exp(0.05 * gaussian(random)));
    a[`s${i}`] = shifts;
    b[`s${i}`] = shifts.map((s) => s * ratio * Math.exp(pairSd * gaussian(random)));
  });
  const d = changes.map((_, i) => a[`s${i}`]!.map((x, k) => Math.log(b[`s${i}`]![k]! / x)));
  return { c: compare({ a: alternation(makeRun({ id: 1, values: a })), b: alternation(makeRun({ id: 2, values: b })) }, { alpha: ALPHA, thresholdPct: 1 }), d };
}

/** The paired t's 95 % interval of the per-pair log ratios covers ln(truth): compare shows this test beside the deciding rank test. */
function tCovers(d: readonly number[], truth: number): boolean {
  const t = pairedTTest(d);
  if (t.kind !== 'ok') return false;
  const ci = tInterval(t, 0.95);
  return ci.low <= Math.log(truth) && Math.log(truth) <= ci.high;
}

/** The rule replaced: Holm-adjusted p of 0 below alpha and the unadjusted 95 % CI wholly beyond ±1 %. */
function oldRuleClaims(s: SubjectComparison): boolean {
  const { adjusted, ciPct } = s.change;
  return adjusted.kind === 'adjusted' && adjusted.pValue < ALPHA && ciPct.kind === 'ok' && (ciPct.low > 1 || ciPct.high < -1);
}

function rates(seed: number, comparisons: number, changes: readonly number[], pairs: number, pairSd = PAIR_SD) {
  const random = mulberry32(seed);
  let any = 0;
  let anyOld = 0;
  let covered = 0;
  let intervals = 0;
  let tCovered = 0;
  for (let k = 0; k < comparisons; k++) {
    const { c, d } = simulate(random, changes, pairs, pairSd);
    tCovered += d.filter((x, i) => tCovers(x, changes[i]!)).length;
    if (c.subjects.some((s) => isClaim(s.verdict.verdict))) any++;
    if (c.subjects.some(oldRuleClaims)) anyOld++;
    c.subjects.forEach((s, i) => {
      if (s.change.ciPct.kind !== 'ok') return;
      intervals++;
      const truth = 100 * (changes[i]! - 1);
      if (s.change.ciPct.low <= truth && truth <= s.change.ciPct.high) covered++;
    });
  }
  return { claims: any / comparisons, oldClaims: anyOld / comparisons, coverage: covered / intervals, tCoverage: tCovered / (comparisons * changes.length) };
}

describe('the noise threshold, family-wise', () => {
  it('24 subjects each changed by exactly +1 % claim a change beyond ±1 % in at most alpha of comparisons', () => {
    // 600 pairs per subject, as a 20 s run here: simulated as 20 values each the mean of 30 pairs (spread 7.5 % / sqrt(30))
    const r = rates(32, 150, Array.from({ length: 24 }, () => 1.01), 20, PAIR_SD / Math.sqrt(30));
    console.log(`# 24 subjects at +1 %: claims ${r.claims}, old rule ${r.oldClaims}, coverage ${r.coverage}, paired t beside ${r.tCoverage} (150 seeded comparisons, 600 pairs each)`);
    // 150 comparisons: binomial SE 1.8 points at 5 %; the asserted 6.5 % is what the issue allows
    assert.ok(r.claims <= ALPHA + 0.015, `claims in ${r.claims}`);
    assert.ok(r.oldClaims >= 0.2, `the old rule claimed in ${r.oldClaims}: the scenario does not separate the rules`);
    assert.ok(r.coverage >= 0.93, `coverage ${r.coverage}`);
    assert.ok(r.tCoverage >= 0.93, `paired t coverage ${r.tCoverage}`);
  });

  it('one subject changed by exactly +1 % is claimed at alpha, not at half of it', () => {
    const r = rates(33, 1500, [1.01], 20);
    console.log(`# 1 subject at +1 %: claims ${r.claims}, old rule ${r.oldClaims}, coverage ${r.coverage}, paired t beside ${r.tCoverage} (1500 seeded comparisons, 20 pairs)`);
    // 1500 comparisons: binomial SE 0.56 points at 5 %, 0.40 at 2.5 %
    assert.ok(r.claims <= ALPHA + 0.015 && r.claims >= 0.035, `claims in ${r.claims}`);
    assert.ok(r.oldClaims <= 0.035, `the old rule claimed in ${r.oldClaims}`);
    assert.ok(r.coverage >= 0.93, `coverage ${r.coverage}`);
    assert.ok(r.tCoverage >= 0.93, `paired t coverage ${r.tCoverage}`);
  });
});
