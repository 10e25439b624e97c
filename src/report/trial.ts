/**
 * A trial (src/trial/document.ts) as the mailing-list block (`trialLkml`,
 * never wider than 72 columns) and as the terminal's text (`trialText`,
 * with the function tables and the full comparison table). Both say, in
 * this order: what changed in the code, whether behaviour changed, the
 * measured effect with its noise and verdicts, how the kernels were built,
 * the steps with their wall times, and the commands that reproduce each
 * part.
 */
import { behaveLkml, behaveText } from './behave.ts';
import { environmentFacts } from './facts.ts';
import { glueNumbers, plain } from './lkml.ts';
import { codegenTable } from './patch-evidence.ts';
import type { ReproduceContext } from './reproduce.ts';
import {
  controlsText,
  geometricMeanText,
  measuresText,
  notComparedText,
  regressionsText,
  subjectSentence,
  subjectsRegressionsFirst,
  verdictRuleText,
} from './summary.ts';
import { renderText } from './text.ts';
import type { TrialDocument } from '../trial/document.ts';
import { alignColumns } from '../format/columns.ts';
import { codegenSentences, headline, kernelSentences, measuredIntro, patchSentences, reproduceLines, stepsSentence } from './trial-words.ts';
import { LKML_COLUMNS, wrapCommand, wrapProse } from './wrap.ts';

/** What a trial report needs beyond the document. */
export interface TrialReportContext {
  generatedAt: string;
  /** The reader's directories and database, for the reproduce commands. */
  reproduce?: ReproduceContext;
}

export type TrialReporter = (doc: TrialDocument, ctx: TrialReportContext) => string;

/** The measured part's sentences (shared by lkml and text): how, the caveat, regressions, the rule, one per subject. */
export function measuredSentences(doc: TrialDocument): string[] {
  const c = doc.measured.comparison;
  const head = [measuredIntro(doc), measuresText(c), regressionsText(c), geometricMeanText(c), controlsText(c), notComparedText(c), verdictRuleText(c)];
  return [...head.filter((x): x is string => x !== undefined), ...subjectsRegressionsFirst(c).map((s) => subjectSentence(c, s))];
}

function behaveIntro(doc: TrialDocument): string | null {
  return doc.behave.kernels === 'debug-checks' ? 'Behaviour, on the --debug-checks pair (A-debug, B-debug):' : null;
}

/** Render a trial as a mailing-list text block. */
export function trialLkml(doc: TrialDocument, ctx: TrialReportContext): string {
  const W = LKML_COLUMNS;
  const para = (text: string, first = '', rest = '  '): string[] => wrapProse(glueNumbers(plain(text)), W, first, rest);
  const [codeIntro, ...codeItems] = codegenSentences(doc);
  const intro = behaveIntro(doc);
  const blocks: string[][] = [
    para(headline(doc)),
    [...para(codeIntro!), ...codeItems.flatMap((s) => para(s, '  ', '    '))],
    [...(intro ? para(intro) : []), ...behaveLkml(doc.behave.document).trimEnd().split('\n')],
    measuredSentences(doc).flatMap((s) => para(s)),
    [...kernelSentences(doc), ...patchSentences(doc)].flatMap((s) => para(s)),
    environmentFacts(doc.measured.comparison).flatMap((f) => para(`${f.label}: ${f.text}`)),
    para(stepsSentence(doc)),
    ['Reproduce (the trial, then each part by hand):', ...reproduceLines(doc, ctx.reproduce).flatMap((r) => [...(r.note ? para(`# ${r.note}`, '  ', '  # ') : []), ...wrapCommand(plain(r.line), W, '  ', '      ')])],
  ];
  return `${blocks.map((b) => b.join('\n')).join('\n\n')}\n`;
}

function table(rows: string[][]): string[] {
  return alignColumns(rows);
}

/** Render a trial for the terminal: the same parts, unwrapped, with the function tables and the comparison's own table. */
export function trialText(doc: TrialDocument, ctx: TrialReportContext): string {
  const parts: string[] = [headline(doc), ''];
  const [codeIntro, ...codeItems] = codegenSentences(doc);
  parts.push(codeIntro!, ...codeItems.map((s) => `  ${s}`));
  for (const o of doc.codegen.objects.filter((x) => x.state === 'compared' && x.result)) {
    const t = codegenTable(o.result!);
    if (t.rows.length > 0 && t.rows[0]![0] !== 'every function') parts.push('', `${o.object}:`, ...table([t.headers, ...t.rows]).map((l) => `  ${l}`));
  }
  const intro = behaveIntro(doc);
  parts.push('', ...(intro ? [intro] : []), behaveText(doc.behave.document).trimEnd());
  parts.push('', ...measuredSentences(doc).slice(0, 1), '', renderText(doc.measured.comparison).trimEnd());
  parts.push('', ...kernelSentences(doc), ...patchSentences(doc));
  parts.push('', stepsSentence(doc), '', 'Reproduce (the trial, then each part by hand):');
  for (const r of reproduceLines(doc, ctx.reproduce)) parts.push(...(r.note ? [`  # ${r.note}`] : []), `  ${r.line}`);
  return `${parts.join('\n')}\n`;
}
