/**
 * The longer check behind test/compare/abbaab-simulation.test.ts: six runs
 * in A B B A A B order, run shifts of 2 % (sd) and the machine moving
 * between runs as in test/compare/fixtures.ts abbaabLevels, judged three
 * ways on the same data:
 *   - the drift model compare uses (src/compare/abbaab.ts, through compare());
 *   - the three blocks A B, B A, A B paired by position (paired t, 2 df);
 *   - Welch on the run levels, blind to their order;
 * and one A/B/A triple of three separate runs (run-level t, 1 df) with the
 * same run shifts, for the detectable change. Prints per scenario the false
 * claims between identical sides (threshold 0, no correction), the drift
 * model's coverage of a real +5 %, and each method's power at 3.5 run SDs.
 * The drift scenario is run at 0.5, 1 and 2 run SDs per run.
 * Seeded. Run: node --import tsx bench/aba-rates.ts [runs per case]
 */
import { compare } from '../src/compare/compare.ts';
import { isClaim } from '../src/compare/verdict.ts';
import { pairedTTest } from '../src/stats/paired.ts';
import { mulberry32, gaussian, type Random } from '../src/stats/random.ts';
import { welchTTest } from '../src/stats/tests.ts';
import { type AbbaabScenario, abbaabLevels, abbaabRun, makeRun } from '../test/compare/fixtures.ts';

const runs = Number(process.argv[2] ?? 4000);
const RUN_SD = 0.02;
const ALPHA = 0.05;
const OPTIONS = { thresholdPct: 0, correction: 'none' as const };

/** The levels, with a drift of `driftSds` run SDs per run in place of the scenario's one. */
function levels(random: Random, scenario: AbbaabScenario, changePct: number, driftSds: number): { a: number[]; b: number[] } {
  const { a, b } = abbaabLevels(random, scenario === 'drift' ? 'normal' : scenario, changePct, RUN_SD);
  if (scenario !== 'drift') return { a, b };
  const at = (i: number) => Math.exp(RUN_SD * driftSds * i);
  return { a: a.map((x, k) => x * at([0, 3, 4][k]!)), b: b.map((x, k) => x * at([1, 2, 5][k]!)) };
}

function methods(a: number[], b: number[]): { model: boolean; modelCovers5: boolean; blocks: boolean; welch: boolean } {
  const s = compare({ a: abbaabRun(1, a, 1), b: abbaabRun(2, b, 1) }, OPTIONS).subjects[0]!;
  const ci = s.change.ciPct;
  // blocks A B, B A, A B: the k-th A and the k-th B of each side are block k
  const d = a.map((x, k) => Math.log(b[k]! / x));
  const paired = pairedTTest(d);
  const welch = welchTTest(a.map(Math.log), b.map(Math.log));
  return {
    model: isClaim(s.verdict.verdict),
    modelCovers5: ci.kind === 'ok' && ci.low <= 5 && 5 <= ci.high,
    blocks: paired.kind === 'ok' && paired.pValue < ALPHA,
    welch: welch.kind === 'ok' && welch.pValue < ALPHA,
  };
}

function rate(seed: number, scenario: AbbaabScenario, changePct: number, driftSds: number) {
  const random = mulberry32(seed);
  const n = { model: 0, modelCovers5: 0, blocks: 0, welch: 0 };
  for (let k = 0; k < runs; k++) {
    const { a, b } = levels(random, scenario, changePct, driftSds);
    const m = methods(a, b);
    for (const key of Object.keys(n) as (keyof typeof n)[]) if (m[key]) n[key]++;
  }
  return { model: n.model / runs, covers: n.modelCovers5 / runs, blocks: n.blocks / runs, welch: n.welch / runs };
}

/** One A/B/A triple of separate runs, each shifted by RUN_SD as a whole. */
function abaPower(seed: number, changePct: number): number {
  const random = mulberry32(seed);
  let claims = 0;
  for (let k = 0; k < runs; k++) {
    const one = (id: number, f: number) => {
      const level = 100 * f * Math.exp(RUN_SD * gaussian(random));
      return makeRun({ id, values: { x: Array.from({ length: 12 }, (_, j) => level * (1 + 0.001 * ((j % 3) - 1))) }, units: 3, design: 'separate' });
    };
    const s = compare({ a: one(1, 1), b: one(2, 1 + changePct / 100), a2: one(3, 1) }, OPTIONS).subjects[0]!;
    if (isClaim(s.verdict.verdict)) claims++;
  }
  return claims / runs;
}

const pct = (x: number) => `${Math.round(1000 * x) / 10} %`;
const power = 100 * Math.expm1(3.5 * RUN_SD);
const cases: [AbbaabScenario, number][] = [['normal', 0], ['heavy', 0], ['drift', 0.5], ['drift', 1], ['drift', 2], ['ar1', 0], ['shift', 0]];
console.log(`| scenario | false claims: drift model (used) | blocks paired by position | Welch on runs | drift model: coverage of +5 % | power at +3.5 run SDs: drift model / blocks |`);
console.log('|---|---|---|---|---|---|');
cases.forEach(([scenario, driftSds], i) => {
  const none = rate(9000 + i, scenario, 0, driftSds);
  const real = rate(9100 + i, scenario, 5, driftSds);
  const found = rate(9200 + i, scenario, power, driftSds);
  const name = scenario === 'drift' ? `drift ${driftSds} run SD per run` : scenario;
  console.log(`| ${name} | ${pct(none.model)} | ${pct(none.blocks)} | ${pct(none.welch)} | ${pct(real.covers)} | ${pct(found.model)} / ${pct(found.blocks)} |`);
});
console.log(`One A/B/A triple (run-level t, 1 df) at +3.5 run SDs: ${pct(abaPower(9300, power))} (${runs} runs per case)`);
