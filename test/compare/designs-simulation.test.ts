/**
 * Every design hintlab offers, on seeded synthetic runs whose units shift
 * far more than the noise inside them (the shared machine: load, frequency,
 * placement): the false-claim rate of identical sides must stay at alpha
 * within its binomial error, and the interval of a real +5 % change must
 * cover it in at least 95 % of comparisons with the fewest units hintlab
 * allows (3). The expected rates are alpha and 1 - alpha themselves, not
 * this code's output. Without threshold and correction, so the rates are
 * the tests' own.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { Comparison } from '../../src/compare/types.ts';
import type { RunWithRounds } from '../../src/model.ts';
import { gaussian, mulberry32, type Random } from '../../src/stats/random.ts';
import { makeRun } from './fixtures.ts';

const ALPHA = 0.05;
const EXPERIMENTS = 600;
const ROUNDS = 4;
const OPTIONS = { alpha: ALPHA, thresholdPct: 0, correction: 'none' as const };
/** Three binomial standard errors of EXPERIMENTS trials at rate p. */
const slack = (p: number) => 3 * Math.sqrt((p * (1 - p)) / EXPERIMENTS);

/** Rounds of one unit around `level`, 0.2 % noise between rounds. */
function unitRounds(random: Random, level: number): number[] {
  return Array.from({ length: ROUNDS }, () => level * (1 + 0.002 * gaussian(random)));
}

/** A run of `levels.length` units, each ROUNDS rounds around its level. */
function run(id: number, levels: number[], random: Random, extra: Partial<Parameters<typeof makeRun>[0]> = {}): RunWithRounds {
  return makeRun({ id, values: { x: levels.flatMap((l) => unitRounds(random, l)) }, units: levels.length, ...extra });
}

function withDesign(r: RunWithRounds, design: 'duet' | 'alternation'): RunWithRounds {
  const extra = r.params.extra;
  return { ...r, params: { ...r.params, extra: { ...extra, interleave: { ...extra.interleave!, design } } } };
}

type Maker = (random: Random, effect: number) => Comparison;

/** processes: A and B probe processes interleaved, each process shifted by 3 % (sd), 15x its round noise. */
const processes: Maker = (random, effect) => {
  const levels = (f: number) => Array.from({ length: 3 }, () => 100 * f * (1 + 0.03 * gaussian(random)));
  return compare({ a: run(1, levels(1), random), b: run(2, levels(1 + effect), random) }, OPTIONS);
};

/** duet: pair k of A and B shares a 5 % instant shift; each side adds 0.3 % of its own. */
const duet: Maker = (random, effect) => {
  const shifts = Array.from({ length: 3 }, () => 100 * (1 + 0.05 * gaussian(random)));
  const own = (f: number) => shifts.map((s) => s * f * (1 + 0.003 * gaussian(random)));
  return compare({ a: withDesign(run(1, own(1), random), 'duet'), b: withDesign(run(2, own(1 + effect), random), 'duet') }, OPTIONS);
};

/** A/B/A: three separate runs, each shifted by 2 % (sd) as a whole, units 0.3 % apart. */
const aba: Maker = (random, effect) => {
  const levels = (f: number) => {
    const shift = 1 + 0.02 * gaussian(random);
    return Array.from({ length: 3 }, () => 100 * f * shift * (1 + 0.003 * gaussian(random)));
  };
  const separate = { design: 'separate' as const };
  return compare({ a: run(1, levels(1), random, separate), b: run(2, levels(1 + effect), random, separate), a2: run(3, levels(1), random, separate) }, OPTIONS);
};

/** boots: every unit a boot of its own, boots 2 % apart (sd), rounds 0.2 %. */
const boots: Maker = (random, effect) => {
  const levels = (f: number) => Array.from({ length: 3 }, () => 100 * f * (1 + 0.02 * gaussian(random)));
  const vm = { kind: 'vm' as const, design: 'separate' as const };
  return compare({ a: run(1, levels(1), random, vm), b: run(2, levels(1 + effect), random, vm) }, OPTIONS);
};

const DESIGNS: [string, Maker, Comparison['design']['kind']][] = [
  ['processes', processes, 'processes'],
  ['duet (paired)', duet, 'duet'],
  ['A/B/A', aba, 'aba'],
  ['boots', boots, 'boots'],
];

function rates(make: Maker, seed: number): { falseClaims: number; coverage: number; kind: string } {
  const random = mulberry32(seed);
  let claims = 0;
  let covered = 0;
  let kind = '';
  for (let i = 0; i < EXPERIMENTS; i++) {
    const same = make(random, 0);
    kind = same.design.kind;
    const v = same.subjects[0]!.verdict.verdict;
    if (v === 'faster' || v === 'slower') claims++;
    const real = make(random, 0.05).subjects[0]!;
    const judged = real.judgedOn === 'B vs A+A2' && real.drift.kind === 'measured' ? real.drift.vsPooled : real.change;
    if (judged.ciPct.kind === 'ok' && judged.ciPct.low <= 5 && judged.ciPct.high >= 5) covered++;
  }
  return { falseClaims: claims / EXPERIMENTS, coverage: covered / EXPERIMENTS, kind };
}

describe('every design on runs that shift more than their noise', () => {
  DESIGNS.forEach(([name, make, kind], k) => {
    it(`${name}: claims in at most alpha of identical comparisons and its interval covers a +5 % change at 3 units`, (t) => {
      const r = rates(make, 100 + k);
      t.diagnostic(`${name}: false claims ${r.falseClaims}, coverage of +5 % ${r.coverage} (${EXPERIMENTS} seeded comparisons each)`);
      assert.equal(r.kind, kind);
      assert.ok(r.falseClaims <= ALPHA + slack(ALPHA), `false-claim rate ${r.falseClaims} above alpha ${ALPHA}`);
      assert.ok(r.coverage >= 1 - ALPHA - slack(ALPHA), `coverage ${r.coverage} below ${1 - ALPHA}`);
    });
  });
});
