/**
 * Six runs in A B B A A B order (`bench --design abbaab`), judged on the
 * runs' log levels with a linear drift fitted beside the change
 * (src/compare/abbaab.ts), through the real compare() on seeded synthetic
 * runs. Every run shifts as a whole by 2 % (sd) on top of its rounds' 0.2 %
 * (one process of 4 rounds per run), and the machine moves between runs:
 *   - heavy tails: run shifts a normal contaminated by 15 % of draws five
 *     times wider;
 *   - drift: the machine slows by one run SD (2 %) per run;
 *   - AR(1): the machine's state moves run to run with correlation 0.9
 *     (sd 2 %), beside the runs' own 2 %;
 *   - session shift: from a random run on, every run is 2 % slower.
 * Each asserts at most alpha + 1.5 points of false claims (identical sides,
 * threshold 0, no correction) and at least 93 % coverage of a real +5 %.
 * Power: at the change the design detects with 80 % power in theory
 * (noncentral t, 3 df: 4.26 standard errors of 0.820 run SDs, 3.5 run SDs),
 * it claims in about 80 % of runs, and three separate runs A, B, A2 (the
 * run-level t, 1 df) in few. 600 comparisons per case (binomial SE 0.9
 * points at 5 %, 1.6 at 80 %); seeds fixed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { SubjectComparison } from '../../src/compare/types.ts';
import { detectableNcp } from '../../src/stats/noncentral.ts';
import { gaussian, mulberry32, type Random } from '../../src/stats/random.ts';
import { type AbbaabScenario, abbaabLevels, abbaabRun, makeRun } from './fixtures.ts';

const N = 600;
const RUN_SD = 0.02;
const ROUND_SD = 0.002;
const ROUNDS = 4;

const round = (random: Random) => (level: number) => level * (1 + ROUND_SD * gaussian(random));

function abbaab(random: Random, scenario: AbbaabScenario, changePct: number): SubjectComparison {
  const { a, b } = abbaabLevels(random, scenario, changePct, RUN_SD);
  return compare({ a: abbaabRun(1, a, 1, round(random), ROUNDS), b: abbaabRun(2, b, 1, round(random), ROUNDS) }, { thresholdPct: 0, correction: 'none' }).subjects[0]!;
}

/** Three separate runs A, B, A2 with the same run shifts: the A/B/A of src/compare/aba.ts. */
function aba(random: Random, changePct: number): SubjectComparison {
  const one = (id: number, f: number) => {
    const level = 100 * f * Math.exp(RUN_SD * gaussian(random));
    return makeRun({ id, values: { x: Array.from({ length: 3 * ROUNDS }, () => round(random)(level)) }, units: 3, design: 'separate' });
  };
  return compare({ a: one(1, 1), b: one(2, 1 + changePct / 100), a2: one(3, 1) }, { thresholdPct: 0, correction: 'none' }).subjects[0]!;
}

const claimed = (s: SubjectComparison) => s.verdict.verdict === 'slower' || s.verdict.verdict === 'faster';

function rates(seed: number, make: (random: Random) => SubjectComparison, truthPct: number): { claims: number; covered: number; mdePct: number } {
  const random = mulberry32(seed);
  let claims = 0;
  let covered = 0;
  let mde = 0;
  for (let k = 0; k < N; k++) {
    const s = make(random);
    const judged = s.judgedOn === 'B vs A+A2' && s.drift.kind === 'measured' ? s.drift.vsPooled : s.change;
    if (claimed(s)) claims++;
    if (judged.ciPct.kind === 'ok' && judged.ciPct.low <= truthPct && truthPct <= judged.ciPct.high) covered++;
    if (s.power.kind === 'ok') mde += s.power.mdePct;
  }
  return { claims: claims / N, covered: covered / N, mdePct: mde / N };
}

describe('six runs in ABBAAB order', () => {
  for (const [i, scenario] of (['heavy', 'drift', 'ar1', 'shift'] as const).entries()) {
    it(`holds alpha and covers a real change (${scenario})`, () => {
      const none = rates(500 + i, (r) => abbaab(r, scenario, 0), 0);
      const real = rates(600 + i, (r) => abbaab(r, scenario, 5), 5);
      console.log(`# abbaab, ${scenario}: false claims ${none.claims}, coverage ${none.covered} (identical) and ${real.covered} (+5 %) of ${N} seeded comparisons`);
      assert.ok(none.claims <= 0.065, `false claims ${none.claims}`);
      assert.ok(none.covered >= 0.93 && real.covered >= 0.93, `coverage ${none.covered}, ${real.covered}`);
    });
  }

  it('detects a change of about 3.5 run SDs in 80 % of runs, where one A/B/A triple rarely does', () => {
    const runSd = Math.sqrt(RUN_SD ** 2 + ROUND_SD ** 2 / ROUNDS);
    const se = 0.820412654142367 * runSd;
    const changePct = 100 * Math.expm1(detectableNcp(3, 0.05, 0.8, 2) * se);
    const six = rates(700, (r) => abbaab(r, 'normal', changePct), changePct);
    const triple = rates(701, (r) => aba(r, changePct), changePct);
    const r2 = (x: number) => Math.round(100 * x) / 100;
    console.log(`# abbaab at +${r2(changePct)} % (${r2(Math.log1p(changePct / 100) / runSd)} run SDs): claimed in ${six.claims}, printed detectable change ${r2(six.mdePct)} %; A/B/A: ${triple.claims}, printed ${r2(triple.mdePct)} %`);
    assert.ok(six.claims >= 0.74 && six.claims <= 0.86, `abbaab claimed ${six.claims}`);
    assert.ok(triple.claims <= 0.2, `A/B/A claimed ${triple.claims}`);
    assert.ok(six.mdePct < triple.mdePct / 4, `printed detectable changes ${six.mdePct} against ${triple.mdePct}`);
  });
});
