/**
 * Instruction counts that repeat exactly. Under qemu -icount with a fixed
 * guest clock (`vm --icount`, `vm --cost`) a boot's count per call is a
 * property of the kernel, the probe and the emulator, not a sample: when
 * every boot of A (and A2) gives the same count, and every boot of B does,
 * the tests have no spread to work with (t is undefined) and none is
 * needed. The exact rule then decides:
 *   - B equals A (and A2): 'identical';
 *   - B differs by at least EXACT_MIN_PER_CALL per call: 'fewer/more
 *     instructions' whatever the share (there is no noise for a threshold
 *     to guard against), the reason saying exact;
 *   - B differs by less: a few events per round (a timer tick landing
 *     elsewhere once the loop got shorter), not per call: 'no difference
 *     proven', with the exact difference said;
 *   - A2 differs from A: the count did not repeat across runs, so nothing
 *     is exact and the statistical verdict stands, with that said.
 * It needs at least `minUnits` units in every run, as any claim does: one
 * boot cannot show that a count repeats. And a claim needs enough boots
 * for the family: a count that secretly takes two values equally often
 * repeats in all 3 boots of A and, with the other value, in all 3 of B in
 * 2 (1/2)^3 (1/2)^3 = 3.1 % of comparisons, and exact claims skip Holm, so
 * over 24 subjects some subject would be claimed in 53 %. An exact claim is
 * made only when m x falseExactBound(boots of A, boots of B) <= alpha for
 * the m subjects compared (Bonferroni): 3 boots per side for one subject,
 * 4 for 2 to 6, 5 for up to 25. Otherwise the tests decide (zero spread:
 * insufficient data) and the reason says how many boots would do.
 *
 * stress-ng's bogo-ops per guest second under icount (a trial's stressors,
 * 'icount-bogo-ops/s') repeat the same way (`withExactRates`): equal in
 * every boot of A and of B and equal between them is 'identical'; a
 * difference every boot repeats is a claim (slower/faster) only beyond the
 * noise threshold, since a bogo-op count is quantized over its budget,
 * and 'no difference proven' within it, the exact change said.
 *
 * The events-per-call rule (`withEventsPerCall`) judges a cost counter the
 * plugin counts exactly (taken branches, line fetches: src/cost-counters.ts)
 * in events per call whether or not its boots repeated: a hint's whole
 * effect is often one event per call, a fraction of a percent of the count,
 * which a percentage threshold would hide.
 */
import { fixed, pClause, readableDecimals, signed } from '../format/numbers.ts';
import { formatChangePct, formatSpreadPct } from '../format/percent.ts';
import { significant } from '../format/numbers.ts';
import type { Direction } from '../model.ts';
import type { Contrast, RunSummary, VerdictResult } from './types.ts';
import type { ComparisonOptions } from './options.ts';
import { claimOf, isClaim } from './verdict.ts';

/**
 * The largest chance, over how often a count that takes two values gives
 * each, that `na` baseline boots all give one value and `nb` candidate
 * boots all give the other: max over p of p^na (1-p)^nb + (1-p)^na p^nb.
 * Two values is the worst case (more values only split the mass).
 */
export function falseExactBound(na: number, nb: number): number {
  let worst = 0;
  for (let i = 0; i <= 1000; i++) {
    const p = i / 1000;
    worst = Math.max(worst, p ** na * (1 - p) ** nb + (1 - p) ** na * p ** nb);
  }
  return worst;
}

/** Boots per side (equal) at which an exact claim holds alpha over `subjects`. */
export function exactBootsNeeded(subjects: number, alpha: number): number {
  let n = 2;
  while (subjects * falseExactBound(n, n) > alpha) n++;
  return n;
}

/**
 * An exact claim of the runs' boots, or the statistical verdict with why it
 * is not exact: too few boots for the number of subjects compared.
 */
function guardedClaim(claim: VerdictResult, statistical: VerdictResult, runs: readonly RunSummary[], options: ComparisonOptions, subjects: number): VerdictResult {
  const na = runs.filter((r) => r.role !== 'B').reduce((n, r) => n + r.units, 0);
  const nb = runs.find((r) => r.role === 'B')?.units ?? 0;
  const rate = subjects * falseExactBound(na, nb);
  if (rate <= options.alpha) return claim;
  const boots = runs.map((r) => `${r.role} ${r.units}`).join(', ');
  return {
    ...statistical,
    reason:
      `${statistical.reason}; every boot repeated its value (boots: ${boots}), but over ${subjects} subject${subjects === 1 ? '' : 's'} a count that took two values ` +
      `would repeat like this in up to ${formatSpreadPct(100 * rate)} of comparisons: an exact claim needs ${exactBootsNeeded(subjects, options.alpha)} boots per side`,
  };
}

/** The one value every unit of the run gave, or null when they differ (or there are too few). */
function repeatedValue(run: RunSummary, minUnits: number): number | null {
  const xs = run.unitMeansInUnit;
  return xs.length >= Math.max(2, minUnits) && xs.every((x) => x === xs[0]) ? xs[0]! : null;
}

const count = (x: number) => String(Number(significant(x, 10)));

/** The rate every boot of A and of B repeated, or null. */
function repeatedPair(runs: readonly RunSummary[], minUnits: number): { a: number; b: number; boots: string } | null {
  const values = new Map(runs.map((r) => [r.role, repeatedValue(r, minUnits)]));
  const a = values.get('A');
  const b = values.get('B');
  if (a == null || b == null || [...values.values()].some((v) => v === null) || (values.has('A2') && values.get('A2') !== a)) return null;
  return { a, b, boots: runs.map((r) => `${r.role} ${r.units}`).join(', ') };
}

/** The exact verdict of icount rates whose boots all repeated, or `verdict` unchanged. */
export function withExactRates(verdict: VerdictResult, runs: readonly RunSummary[], direction: Direction, options: ComparisonOptions, subjects = 1): VerdictResult {
  const r = repeatedPair(runs, options.minUnits);
  if (!r) return verdict;
  const every = `every boot gave the same value (boots: ${r.boots})`;
  if (r.a === r.b) return { verdict: 'identical', reason: `exact: ${every}, ${count(r.a)} in A and B alike`, caveats: [], exact: true };
  const pct = (100 * (r.b - r.a)) / r.a;
  const said = `exact: ${every}: ${count(r.a)} in A, ${count(r.b)} in B (${formatChangePct(pct)})`;
  if (Math.abs(pct) <= options.thresholdPct) return { verdict: 'no difference proven', reason: `${said}, within the ±${options.thresholdPct} % threshold`, caveats: [], exact: true };
  const worse = direction === 'lower-is-better' ? r.b > r.a : r.b < r.a;
  const claim: VerdictResult = { verdict: claimOf(worse, 'time'), reason: `${said}, beyond the ±${options.thresholdPct} % threshold; deterministic for the emulated execution, not a sample`, caveats: [], exact: true };
  return guardedClaim(claim, verdict, runs, options, subjects);
}

/** The smallest exact change per call that is claimed: one event in 100 calls. */
export const EXACT_MIN_PER_CALL = 0.01;

/**
 * The exact verdict of instruction counts whose units all repeated, or the
 * statistical `verdict` unchanged when they did not.
 */
export function withExactCounts(verdict: VerdictResult, runs: readonly RunSummary[], direction: Direction, options: ComparisonOptions, subjects = 1): VerdictResult {
  const values = new Map(runs.map((r) => [r.role, repeatedValue(r, options.minUnits)]));
  if ([...values.values()].some((v) => v === null) || !values.has('A') || !values.has('B')) return verdict;
  const a = values.get('A')!;
  const b = values.get('B')!;
  const a2 = values.get('A2') ?? undefined;
  const boots = runs.map((r) => `${r.role} ${r.units}`).join(', ');
  if (a2 !== undefined && a2 !== a) {
    return { ...verdict, reason: `${verdict.reason}; every boot repeated its run's count, but A gave ${count(a)} and A2 ${count(a2)}: the count did not repeat across runs, so the change is not exact` };
  }
  const every = `every boot gave the same value (boots: ${boots})`;
  if (a === b) return { verdict: 'identical', reason: `exact: ${every}, ${count(a)} in A and B alike`, caveats: [], exact: true };
  const change = b - a;
  const pct = (100 * change) / a;
  if (Math.abs(change) < EXACT_MIN_PER_CALL) {
    const ops = Math.max(...runs.flatMap((r) => r.opsPerRound));
    return {
      verdict: 'no difference proven',
      reason: `exact: ${every}: ${count(a)} in A, ${count(b)} in B, ${change > 0 ? '+' : ''}${count(change)} per call, ${count(Number(significant(Math.abs(change) * ops, 3)))} per round of ${ops} calls: ` +
        `less than one in ${Math.round(1 / EXACT_MIN_PER_CALL)} calls, an event of the round, not a change per call`,
      caveats: [],
      exact: true,
    };
  }
  const worse = direction === 'lower-is-better' ? change > 0 : change < 0;
  const claim: VerdictResult = {
    verdict: claimOf(worse, 'instructions'),
    reason: `exact: ${every}: ${count(a)} in A, ${count(b)} in B, ${change > 0 ? '+' : ''}${count(change)} (${formatChangePct(pct)}), deterministic for the emulated execution, not a sample`,
    caveats: [],
    exact: true,
  };
  return guardedClaim(claim, verdict, runs, options, subjects);
}

/** The judged contrast's interval of the change in the run's unit (events per call for a counter), or null without one. */
export function intervalInUnit(judged: Contrast): { low: number; high: number; level: number } | null {
  if (judged.ciPct.kind !== 'ok') return null;
  const base = judged.baselineMeanInUnit / 100;
  return { low: judged.ciPct.low * base, high: judged.ciPct.high * base, level: judged.ciPct.level };
}

/**
 * The events-per-call rule, for a counter the plugin counts exactly. When
 * every boot repeated its value the exact rule above has judged it already
 * (a change of EXACT_MIN_PER_CALL or more is a claim) and its verdict
 * stands. When the boots vary (timer ticks landing in some windows), the
 * change is claimed when the deciding test's Holm-adjusted p is below
 * alpha and its whole interval, in events per call, lies beyond
 * EXACT_MIN_PER_CALL on one side; no percentage threshold applies. Runs
 * that cannot claim anything (separate runs), and verdicts that are no
 * judgement (insufficient data or units), are left as they are. `per` is
 * what the counter is counted per ('call', or 'kernel entry').
 */
export function withEventsPerCall(verdict: VerdictResult, judged: Contrast, direction: Direction, options: ComparisonOptions, per = 'call'): VerdictResult {
  if (verdict.exact || verdict.caveats.includes('separate-runs')) return verdict;
  if (verdict.verdict !== 'no difference proven' && !isClaim(verdict.verdict)) return verdict;
  const ci = intervalInUnit(judged);
  const p = judged.adjusted.kind === 'adjusted' ? judged.adjusted.pValue : null;
  if (!ci || p === null) return verdict;
  const change = judged.changeInUnit;
  const d = readableDecimals(2, [ci.low, ci.high], [[ci.low, ci.high]]);
  const holm = judged.adjusted.kind === 'adjusted' && judged.adjusted.familySize > 1 ? ` (Holm-adjusted over ${judged.adjusted.familySize} subjects)` : '';
  const said = `events per ${per}: ${signed(change, readableDecimals(2, [change]))} per ${per} (${Math.round(ci.level * 100)} % CI ${signed(ci.low, d)} to ${signed(ci.high, d)}), ${pClause(p)}${holm}`;
  const caveats = verdict.caveats.filter((c) => c !== 'inside-threshold');
  const beyond = ci.low >= EXACT_MIN_PER_CALL || ci.high <= -EXACT_MIN_PER_CALL;
  if (p < options.alpha && beyond) {
    const worse = direction === 'lower-is-better' ? change > 0 : change < 0;
    return { verdict: claimOf(worse, 'instructions'), reason: `${said}: beyond ${fixed(EXACT_MIN_PER_CALL, 2)} per ${per}, the events-per-call rule for a count of the emulated execution`, caveats };
  }
  return { verdict: 'no difference proven', reason: `${said}: not shown beyond ${fixed(EXACT_MIN_PER_CALL, 2)} per ${per} (the events-per-call rule for a count of the emulated execution)`, caveats };
}
