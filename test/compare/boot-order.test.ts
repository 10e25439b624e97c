/**
 * Boots as units, by their order in time (src/compare/boot-order.ts). A
 * session (one vm invocation, one evening on a box) can shift all its boots
 * alike. Seeded simulations through the real compare(), threshold 0 and one
 * subject (no correction), 1000 comparisons each (binomial SE 0.7 points at
 * 5 %); each asserts at most alpha + 1.5 points of false claims and, where a
 * claim can be made, at least 93 % coverage of the true change.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bootOrderOf } from '../../src/compare/boot-order.ts';
import { compare } from '../../src/compare/compare.ts';
import type { Comparison } from '../../src/compare/types.ts';
import type { RunWithRounds } from '../../src/model.ts';
import { gaussian, mulberry32, type Random } from '../../src/stats/random.ts';
import { makeRun } from './fixtures.ts';

const N = 1000;
const BOOT_SD = 0.01;
const T0 = Date.parse('2026-12-04T10:00:00.000Z');

/** One side's boots as a vm run: boot k's two rounds recorded at minute `slots[k]`. */
function bootsRun(id: number, levels: readonly number[], slots: readonly number[]): RunWithRounds {
  const run = makeRun({ id, kind: 'vm', design: 'separate', values: { x: levels.flatMap((v) => [v, v * 1.002]) }, units: levels.length });
  const rounds = run.rounds.map((r) => ({ ...r, recordedAt: new Date(T0 + 60_000 * slots[r.replicate]!).toISOString() }));
  return { ...run, rounds };
}

/**
 * A comparison of boots run in `order` (e.g. 'AAABBB', 'ABABAB', 'AAABBBCCC'
 * with C for A2), where `session(i)` names the session of the i-th boot:
 * every session shifts its boots by one boot SD, and B is `effect` x A.
 */
function simulate(random: Random, order: string, session: (i: number) => number, effect: number): Comparison {
  const shifts = new Map<number, number>();
  const levels: Record<string, number[]> = { A: [], B: [], C: [] };
  const slots: Record<string, number[]> = { A: [], B: [], C: [] };
  order.split('').forEach((side, i) => {
    const s = session(i);
    if (!shifts.has(s)) shifts.set(s, BOOT_SD * gaussian(random));
    levels[side]!.push(100 * (side === 'B' ? effect : 1) * Math.exp(shifts.get(s)! + BOOT_SD * gaussian(random)));
    slots[side]!.push(i);
  });
  const run = (id: number, side: string) => bootsRun(id, levels[side]!, slots[side]!);
  const a2 = order.includes('C') ? { a2: run(3, 'C') } : {};
  return compare({ a: run(1, 'A'), b: run(2, 'B'), ...a2 }, { thresholdPct: 0, correction: 'none' });
}

interface Rates {
  claims: number;
  covered: number;
  blockedWouldClaim: number;
}

function rates(seed: number, order: string, session: (i: number) => number, effect: number): Rates {
  const random = mulberry32(seed);
  let claims = 0;
  let covered = 0;
  let blockedWouldClaim = 0;
  const truePct = 100 * (effect - 1);
  for (let k = 0; k < N; k++) {
    const c = simulate(random, order, session, effect);
    const s = c.subjects[0]!;
    const judged = s.judgedOn === 'B vs A+A2' && s.drift.kind === 'measured' ? s.drift.vsPooled : s.change;
    if (s.verdict.verdict === 'slower' || s.verdict.verdict === 'faster') claims++;
    if (s.verdict.caveats.includes('boots-in-blocks')) blockedWouldClaim++;
    if (judged.ciPct.kind === 'ok' && judged.ciPct.low <= truePct && truePct <= judged.ciPct.high) covered++;
  }
  return { claims: claims / N, covered: covered / N, blockedWouldClaim: blockedWouldClaim / N };
}

describe('the order of boots in time', () => {
  it('is read from the rounds: interleaved, three blocks A B A2, other blocks, or unknown when times tie', () => {
    const roles = (order: string) => {
      const side = (c: string) => order.split('').flatMap((x, i) => (x === c ? [i] : []));
      const run = (id: number, c: string) => bootsRun(id, side(c).map(() => 100), side(c));
      const runs = [{ role: 'A' as const, run: run(1, 'A') }, { role: 'B' as const, run: run(2, 'B') }];
      return order.includes('C') ? [...runs, { role: 'A2' as const, run: run(3, 'C') }] : runs;
    };
    assert.equal(bootOrderOf(roles('ABABAB')).kind, 'interleaved');
    assert.equal(bootOrderOf(roles('ABBAAB')).kind, 'interleaved');
    assert.equal(bootOrderOf(roles('AAABBB')).kind, 'blocks');
    assert.equal(bootOrderOf(roles('ABBBAA')).kind, 'blocks');
    assert.equal(bootOrderOf(roles('AAABBBCCC')).kind, 'aba-blocks');
    assert.equal(bootOrderOf(roles('ABCABCABC')).kind, 'interleaved');
    const tied = [{ role: 'A' as const, run: makeRun({ id: 1, kind: 'vm', values: { x: [1, 2, 3] } }) }, { role: 'B' as const, run: makeRun({ id: 2, kind: 'vm', values: { x: [1, 2, 3] } }) }];
    const unknown = bootOrderOf(tied);
    assert.equal(unknown.kind, 'unknown');
    assert.match(unknown.reason, /boots of both sides share the start time 2026-11-29T12:00:00.000Z/);
  });

  it('in blocks A A A B B B claim nothing, where Welch on the boots claimed in about 20 % under a session shift of one boot SD', () => {
    const r = rates(41, 'AAABBB', (i) => (i < 3 ? 0 : 1), 1);
    console.log(`# boots AAA BBB, session shift 1 boot SD: claims ${r.claims}, Welch alone would claim ${r.blockedWouldClaim} (${N} seeded comparisons)`);
    assert.equal(r.claims, 0);
    assert.ok(r.blockedWouldClaim >= 0.12, `Welch alone claimed in ${r.blockedWouldClaim}: the scenario does not show the problem`);
    const c = simulate(mulberry32(3), 'AAABBB', (i) => (i < 3 ? 0 : 1), 1.1);
    assert.equal(c.subjects[0]!.verdict.verdict, 'no difference proven');
    assert.match(c.subjects[0]!.verdict.reason, /boots ran in blocks \(A A A B B B\).*interleave ABAB \(hintlab vm --order A,B,A,B,A,B/);
    assert.match(c.design.text, /in blocks \(A A A B B B\): no claim/);
    assert.equal(c.subjects[0]!.power.kind === 'ok' ? c.subjects[0]!.power.advice : 'none', null);
  });

  it('interleaved A B A B A B hold alpha and cover the true change with a shift per session of two boots', () => {
    const session = (i: number) => Math.floor(i / 2);
    const none = rates(42, 'ABABAB', session, 1);
    const real = rates(43, 'ABABAB', session, 1.05);
    console.log(`# boots ABABAB, a session per A B: false claims ${none.claims}, coverage ${none.covered} (identical), ${real.covered} (+5 %)`);
    assert.ok(none.claims <= 0.065, `false claims ${none.claims}`);
    assert.ok(none.covered >= 0.93 && real.covered >= 0.93, `coverage ${none.covered}, ${real.covered}`);
    assert.match(simulate(mulberry32(4), 'ABABAB', session, 1).design.text, /interleaved in time \(A B A B A B\)/);
  });

  it('in three blocks A B A2 are judged on the blocks, holding alpha and covering the true change under session shifts', () => {
    const session = (i: number) => Math.floor(i / 3);
    const none = rates(44, 'AAABBBCCC', session, 1);
    const real = rates(45, 'AAABBBCCC', session, 1.05);
    console.log(`# boots AAA BBB A2A2A2, session shift 1 boot SD: false claims ${none.claims}, coverage ${none.covered} (identical), ${real.covered} (+5 %)`);
    assert.ok(none.claims <= 0.065, `false claims ${none.claims}`);
    assert.ok(none.covered >= 0.93 && real.covered >= 0.93, `coverage ${none.covered}, ${real.covered}`);
    const s = simulate(mulberry32(5), 'AAABBBCCC', session, 1).subjects[0]!;
    assert.ok(s.drift.kind === 'measured' && s.drift.vsPooled.test.kind === 'ok' && s.drift.vsPooled.test.method === 'run-level-t');
  });

  it('with A2 in another blocked order (A, A2, then B) claim nothing', () => {
    const c = simulate(mulberry32(6), 'AAACCCBBB', (i) => Math.floor(i / 3), 1.1);
    const s = c.subjects[0]!;
    assert.equal(s.judgedOn, 'B vs A+A2');
    assert.equal(s.verdict.verdict, 'no difference proven');
    assert.ok(s.verdict.caveats.includes('boots-in-blocks'));
    assert.match(c.design.text, /in blocks \(A A A A2 A2 A2 B B B\): no claim/);
  });
});
