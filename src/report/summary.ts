/**
 * The per-subject sentence and the drift line shared by the lkml and
 * Markdown reports: "sched_getattr: 182.4 -> 170.6 ns/call, -11.8 ns
 * (-6.5 %, 95 % CI -6.9 to -6.1 %), CV 0.3 %, 15 x 20000 calls: faster."
 */
import type { Caveat, Comparison, SubjectComparison } from '../compare/types.ts';
import { isClaim, judgedContrast, testName } from '../compare/verdict.ts';
import { ciPctText, contrastDecimals, countOf, cvText, designOf, roundsText } from './comparison-words.ts';
import { fixed, readableDecimals, signed } from '../format/numbers.ts';
import { pctDecimals, pctFixed } from '../format/percent.ts';
import { unitNounOf, unitWords } from '../format/units.ts';

export const CAVEAT_TEXT: Record<Caveat, string> = {
  'drift-as-large-as-change': 'but the A/B/A drift is as large as the change',
  'tests-disagree': 'the t-test and the rank test disagree',
  'separate-runs': 'but A and B are separate runs, so a shift between runs cannot be told from a change',
  'incomplete-run': 'a run is incomplete',
  'inside-threshold': 'significant but inside the noise threshold',
  'boots-in-blocks': 'but the boots ran in blocks, so a session shift cannot be told from a change',
};

/** The verdict with its caveats, and the smallest detectable change when nothing was proven. */
export function verdictText(s: SubjectComparison): string {
  const parts: string[] = [s.verdict.verdict];
  if (s.verdict.verdict === 'insufficient data' || s.verdict.verdict === 'insufficient units') {
    parts[0] = `${s.verdict.verdict} (${s.verdict.reason.replace(/\.$/, '')})`;
  }
  if (s.verdict.verdict === 'no difference proven' && s.power.kind === 'ok') {
    parts[0] = `no difference proven (detectable: ${pctFixed(s.power.claimablePct)} %)`;
  }
  const control = s.control ? ['control'] : [];
  return [parts[0], ...s.verdict.caveats.map((c) => CAVEAT_TEXT[c]), ...control].join(', ');
}

/** "-11.8 ns (-6.5 %, 95 % CI -6.9 to -6.1 %)" for the contrast the verdict used (", B vs A+A2" added for A/B/A). */
export function changeText(c: Comparison, s: SubjectComparison): string {
  const ch = judgedContrast(s);
  const d = contrastDecimals(ch);
  const vs = s.judgedOn === 'B vs A+A2' ? ', B vs A+A2' : '';
  return `${signed(ch.changeInUnit, d.unit)} ${unitWords(c.unit).change} (${signed(ch.changePct, d.pct)} %${vs}, ${s.verdict.exact ? 'exact' : ciPctText(ch.ciPct, d.ci)})`;
}

/** The one-sentence summary of a subject. */
export function subjectSentence(c: Comparison, s: SubjectComparison): string {
  // Before, after and the change share one rule (contrastDecimals), as changeText prints them.
  const judged = judgedContrast(s);
  const d = contrastDecimals(judged).unit;
  const before = fixed(judged.baselineMeanInUnit, d);
  const after = fixed(judged.candidateMeanInUnit, d);
  return (
    `${s.subject}: ${before} -> ${after} ${unitWords(c.unit).perOp}, ${changeText(c, s)}, ` +
    `${cvText(s.runs)}, ${roundsText(s.runs, c.unit, designOf(c))}: ${verdictText(s)}.`
  );
}

/** Subjects with regressions first (maintainers read those first), then the rest in order. */
export function subjectsRegressionsFirst(c: Comparison): SubjectComparison[] {
  const slower = new Set(c.regressions);
  return [...c.subjects.filter((s) => slower.has(s.subject)), ...c.subjects.filter((s) => !slower.has(s.subject))];
}

/** "sched_getattr +0.1 % (95 % CI -0.2 to +0.4 %)" for A2 vs A, or undefined without A2. */
export function driftText(s: SubjectComparison): string | undefined {
  if (s.drift.kind === 'no-a2') return undefined;
  if (s.drift.kind === 'insufficient-data') return `${s.subject} not measurable (${s.drift.reason})`;
  const dr = s.drift.drift;
  const pd = contrastDecimals(dr);
  // A drift the tests call real means the machine changed while measuring.
  const moved = isClaim(s.drift.driftVerdict.verdict) ? ', baseline moved' : '';
  return `${s.subject} ${signed(dr.changePct, pd.pct)} % (${ciPctText(dr.ciPct, pd.ci)}${moved})`;
}

/** "Geometric mean of B/A over 3 subjects: -4.1 % (better)." */
export function geometricMeanText(c: Comparison): string | undefined {
  const g = c.geometricMean;
  if (c.subjects.length < 2) return undefined;
  if (g.kind !== 'ok') return `Geometric mean: not computed (${g.reason}).`;
  return `Geometric mean of B/A over ${countOf(g.subjects, 'subject')}: ${signed(g.changePct, readableDecimals(pctDecimals(g.changePct), [g.changePct]))} % (${g.claims === 0 ? 'no change claimed for any subject' : g.improved ? 'better' : 'not better'}).`;
}

/** "Slower (regressions): getppid, read." when anything regressed; for instruction counts "More instructions: ...". */
export function regressionsText(c: Comparison): string | undefined {
  if (c.regressions.length === 0) return undefined;
  return `${c.measures === 'instructions' ? 'More instructions' : 'Slower (regressions)'}: ${c.regressions.join(', ')}.`;
}

/** Said once in every report of instruction counts: what they leave out. */
export function measuresText(c: Comparison): string | undefined {
  if (c.measures !== 'instructions') return undefined;
  return 'Instruction counts (qemu -icount) ignore cycles, caches and stalls: a change in instructions is not a measured change in time.';
}

/** "Controls (shown, left out of the geometric mean and the regressions): getppid." */
export function controlsText(c: Comparison): string | undefined {
  if (c.controls.length === 0) return undefined;
  return `Controls (shown, left out of the geometric mean and the regressions): ${c.controls.join(', ')}.`;
}

/** "Design: duet: A and B at once on CPUs 0 and 1, 40 pairs, CPUs swapped every block." */
export function designLine(c: Comparison): string {
  return `Design: ${c.design.text}.`;
}

/** The deciding test's name in this comparison ('Welch', 'paired t', 'signed-rank', 'run-level t', 'drift-model t', 'anytime' in documents before schema 8). */
export function testNameOf(c: Comparison): string {
  for (const s of c.subjects) {
    const t = judgedContrast(s).test;
    if (t.kind === 'ok') return testName(t.method);
  }
  if (c.design.kind === 'duet' || c.design.kind === 'alternation') return 'paired t';
  if (c.design.kind === 'abbaab') return 'drift-model t';
  return c.design.kind === 'aba' ? 'run-level t' : 'Welch';
}

/** The second test shown beside it: the rank test, or where the signed-rank test decides, the paired t. */
export function rankNameOf(c: Comparison): string {
  if (c.design.kind !== 'duet' && c.design.kind !== 'alternation') return 'Mann-Whitney';
  return testNameOf(c) === 'signed-rank' ? 'paired t' : 'Wilcoxon';
}

/**
 * How the evidence was weighed: "Units: processes (Welch's t on unit means;
 * Mann-Whitney shown).", or for A/B/A "Units: processes for A2 vs A; B vs
 * A+A2 on run levels."
 */
export function unitsMethodText(c: Comparison): string {
  if (c.options.roundsAsUnits) return 'Every round taken as its own unit (round-level statistics: they leave run-to-run variation out).';
  if (c.design.kind === 'duet' || c.design.kind === 'alternation') {
    const test = testNameOf(c);
    const stopped = c.design.text.includes('precision target');
    const anytime =
      test === 'anytime'
        ? '; stopped by a precision target, so judged on the confidence sequence (valid at any stopping time)'
        : stopped
          ? '; stopped by a precision target on the width of its interval alone, so judged by the fixed-n paired t'
          : '';
    const gen = c.design.pairsPerGeneration;
    if (gen !== undefined) {
      return `Pairs: unit k of A with unit k of B, grouped by the generation of processes that measured them (${gen} pairs each); paired t on each generation's mean log ratio ln(B/A); Wilcoxon signed-rank shown${anytime}.`;
    }
    if (test === 'signed-rank') return 'Pairs: unit k of A with unit k of B (Wilcoxon signed-rank test on the log ratios ln(B/A), with the Hodges-Lehmann estimate and interval; paired t shown).';
    return `Pairs: unit k of A with unit k of B (paired t on the log ratios ln(B/A); Wilcoxon signed-rank shown)${anytime}.`;
  }
  const u = c.subjects[0]?.runs[0]?.replicateUnit;
  const units = u === undefined ? 'units of replication' : u.known ? unitNounOf(u.value, true) : 'runs (units not recorded: one unit per run)';
  const aba = c.subjects.some((s) => s.judgedOn === 'B vs A+A2' && s.drift.kind === 'measured' && s.drift.vsPooled.runToRun.kind === 'from-a2');
  if (aba) return `Units: ${units} for A2 vs A; B vs A+A2 on run levels.`;
  if (c.design.kind === 'abbaab') return 'Units: runs (each run\'s level the mean of its processes; B vs A on the log run levels with a linear drift fitted beside the change; Mann-Whitney on the run levels shown).';
  return `Units: ${units} (Welch's t on unit means; Mann-Whitney shown).`;
}

/** "Not compared (missing from a run): foo (only in A, B)." */
export function notComparedText(c: Comparison): string | undefined {
  if (c.notCompared.length === 0) return undefined;
  return `Not compared (missing from a run): ${c.notCompared.map((n) => `${n.subject} (only in ${n.presentIn.join(', ') || 'none'})`).join(', ')}.`;
}

/**
 * "cpu-sched, flipflop, mtx (not in stress-ng 0.15.06)": the stressors a
 * macro run could not run, grouped by reason; a group missing from only
 * some runs names them. Undefined when every asked-for stressor ran.
 */
export function notRunList(c: Comparison): string | undefined {
  if (c.notRun.length === 0) return undefined;
  const all = c.runs.length;
  const groups = new Map<string, { stressors: string[]; label: string }>();
  for (const n of c.notRun) {
    const label = n.runs.length === all ? n.reason : `${n.reason}; in ${n.runs.join(', ')} only`;
    const group = groups.get(label) ?? { stressors: [], label };
    group.stressors.push(n.stressor);
    groups.set(label, group);
  }
  return [...groups.values()].map((g) => `${g.stressors.join(', ')} (${g.label})`).join('; ');
}

/** "Not run (the measured set is incomplete): cpu-sched, flipflop (not in stress-ng 0.15.06)." */
export function notRunText(c: Comparison): string | undefined {
  const list = notRunList(c);
  return list === undefined ? undefined : `Not run (the measured set is incomplete): ${list}.`;
}

/**
 * Which multiple-comparison correction decided the verdicts, over how many
 * subjects: "Holm's step-down correction over 24 subjects (A2 vs A drift:
 * 24)", or "no multiple-comparison correction (--correction none), each of
 * 24 subjects at alpha".
 */
export function correctionText(c: Comparison): string {
  const m = c.multipleComparisons;
  const subjects = `${m.familySize} subject${m.familySize === 1 ? '' : 's'}`;
  if (m.familySize === 0) return 'no correction needed: no subject could be tested';
  if (m.correction === 'none') return `no multiple-comparison correction (--correction none), each of ${subjects} at alpha`;
  const drift = m.driftFamilySize === null ? '' : ` (A2 vs A drift: ${m.driftFamilySize})`;
  return `Holm's step-down correction over ${subjects}${drift}`;
}

/**
 * The claim's second condition, as compare applies it (src/compare/verdict.ts):
 * a one-sided test that the change lies beyond the noise threshold, corrected
 * over the subjects like the test of no change.
 */
export function thresholdRuleText(c: Comparison): string {
  const o = c.options;
  return `the change shown beyond ±${o.thresholdPct} % by a one-sided test (p < ${o.alpha}${o.correction === 'holm' ? ', Holm-adjusted' : ''})`;
}

/** How the verdicts were decided: "Verdicts: paired t p < 0.05 after Holm's ... and the change shown beyond ±1 % by a one-sided test (...). Units: ...". */
export function verdictRuleText(c: Comparison): string {
  const o = c.options;
  return (
    `Verdicts: ${testNameOf(c)} p < ${o.alpha} ${o.correction === 'holm' ? 'after' : 'with'} ${correctionText(c)}, ` +
    `and ${thresholdRuleText(c)}. ${designLine(c)} ${unitsMethodText(c)}`
  );
}
