/**
 * How often `compare` flags anything in an A/A comparison of many subjects,
 * with and without Holm's correction, and what the correction costs in
 * detecting one real change among them. Seeded synthetic rounds (normal,
 * 3 % noise, 15 rounds per subject) through the real compare(); the numbers
 * are quoted in docs/compare-family.md.
 *
 *   node --import tsx bench/compare-family-rate.ts [experiments=1000] [subjects=24]
 */
import { compare } from '../src/compare/compare.ts';
import type { Correction } from '../src/compare/options.ts';
import { gaussian, mulberry32 } from '../src/stats/random.ts';
import { makeRun } from '../test/compare/fixtures.ts';

const experiments = Number(process.argv[2] ?? 1000);
const subjects = Number(process.argv[3] ?? 24);

interface Scenario {
  correction: Correction;
  thresholdPct: number;
  /** % slowdown of the first subject in B; 0 for A/A. */
  shiftPct: number;
  seed: number;
}

/** Share of comparisons flagging any null subject, and share calling the shifted one slower. */
function run(s: Scenario): { familyRate: number; detected: number } {
  const random = mulberry32(s.seed);
  const series = (factor: number) => Array.from({ length: 15 }, () => 100 * factor * (1 + 0.03 * gaussian(random)));
  const names = Array.from({ length: subjects }, (_, k) => `s${k}`);
  let flagged = 0;
  let detected = 0;
  for (let i = 0; i < experiments; i++) {
    const a = makeRun({ id: 1, values: Object.fromEntries(names.map((n) => [n, series(1)])) });
    const b = makeRun({ id: 2, values: Object.fromEntries(names.map((n, k) => [n, series(k === 0 ? 1 + s.shiftPct / 100 : 1)])) });
    const cmp = compare({ a, b }, { correction: s.correction, thresholdPct: s.thresholdPct, bootstrapResamples: 1000, bootstrapSeed: i });
    const nulls = s.shiftPct === 0 ? cmp.subjects : cmp.subjects.slice(1);
    if (nulls.some((x) => x.verdict.verdict === 'faster' || x.verdict.verdict === 'slower')) flagged++;
    if (s.shiftPct !== 0 && cmp.subjects[0]!.verdict.verdict === 'slower') detected++;
  }
  return { familyRate: flagged / experiments, detected: detected / experiments };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
console.log(`${experiments} experiments of ${subjects} subjects, 3 % noise, 15 rounds`);
for (const shiftPct of [0, 5]) {
  for (const thresholdPct of [0, 1]) {
    for (const correction of ['holm', 'none'] as const) {
      const t0 = Date.now();
      const r = run({ correction, thresholdPct, shiftPct, seed: 100 + shiftPct * 10 + thresholdPct });
      const what = shiftPct === 0 ? 'A/A' : `subject 1 ${shiftPct} % slower`;
      const detect = shiftPct === 0 ? '' : `, detected ${pct(r.detected)}`;
      console.log(`${what}, threshold ${thresholdPct} %, ${correction}: any null subject flagged in ${pct(r.familyRate)}${detect} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    }
  }
}
