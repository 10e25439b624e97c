/**
 * Alternation in two processes taking turns (bench's default for a
 * per-process difference): the pairs of one generation share its two
 * processes, replaced every `pairsPerProcess` pairs, so compare judges the
 * generation means. On seeded runs whose processes carry an effect of 2 %
 * (sd) of their own, the pair-level t claimed a change between identical
 * sides in about a quarter of comparisons (issue 32's audit: 24 %); the
 * generation-level t holds alpha. Margins: at most alpha + 1.5 points on
 * 2000 comparisons (binomial SE 0.49 points at 5 %); seeds fixed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import type { RunWithRounds } from '../../src/model.ts';
import { gaussian, mulberry32, type Random } from '../../src/stats/random.ts';
import { makeRun } from './fixtures.ts';

const GENERATION = 25;

function turns(r: RunWithRounds, pairsPerProcess: number | null): RunWithRounds {
  const extra = r.params.extra;
  const record = { ...extra.interleave!, design: 'alternation' as const, processes: 2, ...(pairsPerProcess === null ? {} : { pairsPerProcess }) };
  return { ...r, params: { ...r.params, extra: { ...extra, interleave: record } } };
}

/** 150 pairs in 6 generations; each process shifts its side by `processSd`, each pair by 7.5 %. */
function identical(random: Random, processSd: number, pairsPerProcess: number | null = GENERATION) {
  const a: number[] = [];
  const b: number[] = [];
  for (let g = 0; g < 6; g++) {
    const pa = Math.exp(processSd * gaussian(random));
    const pb = Math.exp(processSd * gaussian(random));
    for (let k = 0; k < GENERATION; k++) {
      const shift = 100 * Math.exp(0.05 * gaussian(random));
      a.push(shift * pa);
      b.push(shift * pb * Math.exp(0.075 * gaussian(random)));
    }
  }
  const options = { thresholdPct: 0, correction: 'none' as const };
  return compare({ a: turns(makeRun({ id: 1, values: { x: a } }), pairsPerProcess), b: turns(makeRun({ id: 2, values: { x: b } }), pairsPerProcess) }, options);
}

describe('two processes taking turns', () => {
  it('are judged on generation means, which hold alpha when each process carries a 2 % effect of its own', () => {
    const random = mulberry32(25);
    const N = 2000;
    let claims = 0;
    let pairLevel = 0;
    for (let k = 0; k < N; k++) {
      const c = identical(random, 0.02);
      const s = c.subjects[0]!;
      if (s.verdict.verdict === 'faster' || s.verdict.verdict === 'slower') claims++;
      // what the pair-level t of schema 6 would have said: the pair mean log ratio over its own standard error
      const p = s.change.pairs!;
      if (Math.abs(p.meanLogRatio) / (p.sdLogRatio / Math.sqrt(p.pairs)) > 1.976) pairLevel++;
    }
    console.log(`# turns, process effect 2 %: generation-level claims ${claims / N}, pair-level ${pairLevel / N} (${N} seeded comparisons)`);
    assert.ok(claims / N <= 0.065, `claims in ${claims / N}`);
    assert.ok(pairLevel / N >= 0.15, `the pair-level test claimed in ${pairLevel / N}: the scenario does not separate them`);
  });

  it('say what the verdict rests on: pairs, generations, and how many pairs a claim needs', () => {
    const c = identical(mulberry32(1), 0);
    assert.equal(c.subjects[0]!.change.units.candidate, 6);
    assert.match(c.design.text, /taking turns on one CPU, \d+ generations of processes \(up to 25 pairs of adjacent blocks each\), judged on each generation.s mean/);
    const short = compare({ a: turns(makeRun({ id: 1, values: { x: Array.from({ length: 40 }, (_, i) => 100 + (i % 3)) } }), 25), b: turns(makeRun({ id: 2, values: { x: Array.from({ length: 40 }, (_, i) => 101 + (i % 5)) } }), 25) });
    const v = short.subjects[0]!.verdict;
    assert.equal(v.verdict, 'insufficient units');
    assert.match(v.reason, /40 pairs of A and B in 2 generations of processes \(25 pairs each\).*measure at least 75 pairs/);
  });

  it('refuse a claim when the run does not record how many pairs a generation measured', () => {
    const v = identical(mulberry32(2), 0, null).subjects[0]!.verdict;
    assert.equal(v.verdict, 'insufficient data');
    assert.match(v.reason, /does not record how many pairs each generation of processes measured/);
  });
});
