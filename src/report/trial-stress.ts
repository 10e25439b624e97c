/**
 * A trial's stressors (src/trial/stress.ts) in every format of the trial
 * report: the caption that says what the unit is (bogo-ops per guest
 * second under qemu -icount, never per second of real time), the verdict
 * per stressor, the geometric mean and the regressions listed apart, as
 * `hintlab macro`'s comparison says them on the host.
 */
import { unitWords } from '../format/units.ts';
import type { TrialDocument, TrialStressors } from '../trial/document.ts';
import { renameUnitFields } from './json.ts';
import { measuredLines } from './lkml-table.ts';
import { tableRoundsText } from './comparison-words.ts';
import { lkmlPara } from './wrap.ts';
import { geometricMeanText, notRunText, regressionsText, subjectSentence, subjectsRegressionsFirst, verdictRuleText } from './summary.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "qemu tcg -icount, bogo-ops per guest second (10^9 guest instructions; not real time)" or "KVM, bogo-ops/s". */
function clockText(s: TrialStressors): string {
  return s.icount ? `qemu ${s.accel.accel} -icount, bogo-ops per guest second (a guest second is 10^9 guest instructions, idle skipped; not real time)` : `${s.accel.accel.toUpperCase()}, ${unitWords(s.unit).perOp}`;
}

/** The lkml caption above the stressors' table. */
export function stressCaption(s: TrialStressors): string {
  const unit = s.icount ? 'bogo-ops per guest second: 10^9 guest instructions, not real time' : unitWords(s.unit).perOp;
  const how = s.icount ? `qemu ${s.accel.accel} -icount` : s.accel.accel.toUpperCase();
  return `Stressors (stress-ng ${s.stressNgVersion}, ${how}, ${unit}), B vs A, ${tableRoundsText(s.comparison)} x ${s.seconds} s, boots ${s.order.join(' ')}:`;
}

/** How the stressors were measured, in one sentence. */
export function stressIntro(s: TrialStressors): string {
  const perKernel = s.order.filter((x) => x === 'A').length;
  const lacking = s.unavailable.length ? `; stress-ng ${s.stressNgVersion} lacks ${s.unavailable.map((u) => u.stressor).join(', ')}` : '';
  return (
    `Stressors: stress-ng ${s.stressNgVersion} in ${clockText(s)}, in their own boots of A and B, ${perKernel} boots per kernel in the order ${s.order.join(' ')}, each boot one unit; ` +
    `${plural(s.stressors.length, 'stressor')} (${s.stressors.join(', ')}) at ${s.instances.join(',')} instance${s.instances.length === 1 && s.instances[0] === 1 ? '' : 's'} for ${s.seconds} guest s each${lacking}; runs ${s.runs.A.label} and ${s.runs.B.label}.`
  );
}

/** The stressors' sentences: how, the regressions apart, the geometric mean, the rule, one per stressor (regressions first). */
export function stressSentences(s: TrialStressors): string[] {
  const c = s.comparison;
  const head = [stressIntro(s), regressionsText(c), geometricMeanText(c), notRunText(c), verdictRuleText(c)];
  return [...head.filter((x): x is string => x !== undefined), ...subjectsRegressionsFirst(c).map((x) => subjectSentence(c, x))];
}

/** The lkml block of the stressors (no wider than 72 columns): caption, table, the rule, the geometric mean; regressions in their own line. */
export function stressLkml(doc: TrialDocument, all: boolean): string[] {
  const s = doc.stressors;
  if (!s) return [];
  const regressions = regressionsText(s.comparison);
  const lines = measuredLines(s.comparison, stressCaption(s), { all, geometricMean: true });
  return regressions ? [...lines, ...lkmlPara(regressions)] : lines;
}

/** The stressors part of the trial's JSON: the comparison's unit fields named after the unit. */
export function stressJson(s: TrialStressors | undefined): (Omit<TrialStressors, 'comparison'> & { unitFieldSuffix: string; comparison: unknown }) | undefined {
  if (!s) return undefined;
  const suffix = unitWords(s.unit).fieldSuffix;
  return { ...s, unitFieldSuffix: suffix, comparison: renameUnitFields(s.comparison, suffix) };
}
