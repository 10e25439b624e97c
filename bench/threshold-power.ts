/**
 * What the family-wise noise threshold costs: 24 subjects of alternation
 * pairs (per-pair spread 7.5 %, 600 pairs, simulated as 20 means of 30),
 * one changed by +2 % and the rest by 0; how often that one is claimed under
 * the rule in use (Holm on the minimum-effect p) and under the rule it
 * replaced (Holm on the p of 0, unadjusted whole 95 % CI beyond ±1 %).
 * Seeded; prints one line. Run: node --import tsx bench/threshold-power.ts [comparisons]
 */
import { compare } from '../src/compare/compare.ts';
import { isClaim } from '../src/compare/verdict.ts';
import type { RunWithRounds } from '../src/model.ts';
import { gaussian, mulberry32 } from '../src/stats/random.ts';
import { makeRun } from '../test/compare/fixtures.ts';

const comparisons = Number(process.argv[2] ?? 300);
const random = mulberry32(2026);
const alternation = (r: RunWithRounds): RunWithRounds => ({ ...r, params: { ...r.params, extra: { interleave: { ...r.params.extra.interleave!, design: 'alternation' } } } });
let claimed = 0;
let claimedOld = 0;
for (let k = 0; k < comparisons; k++) {
  const a: Record<string, number[]> = {};
  const b: Record<string, number[]> = {};
  for (let i = 0; i < 24; i++) {
    const shifts = Array.from({ length: 20 }, () => 100 * Math.exp(0.05 * gaussian(random)));
    a[`s${i}`] = shifts;
    b[`s${i}`] = shifts.map((s) => s * (i === 0 ? 1.02 : 1) * Math.exp((0.075 / Math.sqrt(30)) * gaussian(random)));
  }
  const c = compare({ a: alternation(makeRun({ id: 1, values: a })), b: alternation(makeRun({ id: 2, values: b })) });
  const s = c.subjects[0]!;
  if (isClaim(s.verdict.verdict)) claimed++;
  const { adjusted, ciPct } = s.change;
  if (adjusted.kind === 'adjusted' && adjusted.pValue < 0.05 && ciPct.kind === 'ok' && ciPct.low > 1) claimedOld++;
}
console.log(`+2 % among 24 subjects, 600 pairs at 7.5 %: claimed in ${((100 * claimed) / comparisons).toFixed(1)} % (family-wise threshold), ${((100 * claimedOld) / comparisons).toFixed(1)} % (whole CI, unadjusted), ${comparisons} comparisons`);
