/**
 * The longer check behind test/compare/precision-simulation.test.ts: duets
 * stopped by bench's own rule (src/bench/budget.ts budgetState, the
 * confidence sequence's width at a ±PCT % target) and judged by compare's
 * fixed-n paired t, for several targets and seeds; pairs scatter by 7.5 %
 * (normal, or heavy-tailed with 15 % of pairs five times wider), threshold
 * 0, one subject. Prints, per target and noise, the false claims between
 * identical sides, the coverage of a real +2 % and the pairs measured.
 * Seeded. Run: node --import tsx bench/precision-rates.ts [runs per case] [targets, e.g. 2,3,5,8]
 */
import { budgetState, stoppingRecord } from '../src/bench/budget.ts';
import type { PairedBudget } from '../src/bench/sides.ts';
import { compare } from '../src/compare/compare.ts';
import { isClaim } from '../src/compare/verdict.ts';
import { mulberry32 } from '../src/stats/random.ts';
import { logNoise, pairedRun } from '../test/compare/fixtures.ts';

const runs = Number(process.argv[2] ?? 2000);
const targets = (process.argv[3] ?? '2,3,5,8').split(',').map(Number);

function oneCase(seed: number, budget: PairedBudget, changePct: number, heavy: boolean) {
  const random = mulberry32(seed);
  let claims = 0;
  let covered = 0;
  let pairs = 0;
  for (let k = 0; k < runs; k++) {
    const d: number[] = [];
    let state = budgetState(new Map([['x', d]]), budget, 1, 0);
    while (state.stop === null) {
      d.push(Math.log1p(changePct / 100) + logNoise(random, 0.075, heavy));
      state = budgetState(new Map([['x', d]]), budget, 1, 0);
    }
    const stopping = stoppingRecord(budget, budget.precisionPct ?? 0, state);
    const s = compare({ a: pairedRun(1, d.map(() => 100), 'duet', { stopping }), b: pairedRun(2, d.map((x) => 100 * Math.exp(x)), 'duet', { stopping }) }, { thresholdPct: 0, correction: 'none' }).subjects[0]!;
    if (isClaim(s.verdict.verdict)) claims++;
    const ci = s.change.ciPct;
    if (ci.kind === 'ok' && ci.low <= changePct && changePct <= ci.high) covered++;
    pairs += d.length;
  }
  return { claims: claims / runs, covered: covered / runs, pairs: pairs / runs };
}

const pct = (x: number) => `${Math.round(1000 * x) / 10} %`;
for (const target of targets) {
  const budget: PairedBudget = { secondsPerProfile: Number.POSITIVE_INFINITY, precisionPct: target, blockRounds: 1, alpha: 0.05 };
  for (const heavy of [false, true]) {
    const none = oneCase(7000 + target, budget, 0, heavy);
    const real = oneCase(8000 + target, budget, 2, heavy);
    console.log(`±${target} %, ${heavy ? 'heavy tails' : 'normal'}: false claims ${pct(none.claims)}, coverage ${pct(none.covered)} (identical) ${pct(real.covered)} (+2 %), ${Math.round(none.pairs)} pairs on average (${runs} runs each)`);
  }
}
