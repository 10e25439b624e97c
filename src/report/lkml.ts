/**
 * The mailing-list report: plain text, never wider than 72 columns,
 * short enough to paste under a patch's "---" line. One sentence per
 * subject (regressions first), the baseline drift when A2 was measured, the
 * machine and tuning, and the commands that reproduce the numbers.
 */
import type { Comparison } from '../compare/types.ts';
import { environmentFacts, runName } from './facts.ts';
import { unitWords } from '../format/units.ts';
import {
  branchClaim,
  branchHeading,
  codegenSentence,
  LKML_BRANCH_ROWS,
  type LoadedHints,
  moreText,
  noHintsText,
  patchRows,
  reproduceAll,
  siteText,
} from './patch-evidence.ts';
import type { ReportContext } from './reporter.ts';
import {
  driftText,
  geometricMeanText,
  notComparedText,
  notRunText,
  regressionsText,
  controlsText,
  measuresText,
  subjectSentence,
  subjectsRegressionsFirst,
  verdictRuleText,
} from './summary.ts';
import { LKML_COLUMNS, wrapCommand, wrapProse } from './wrap.ts';

/** Render a Comparison as a mailing-list text block. */
export function lkmlReport(c: Comparison, ctx: ReportContext): string {
  const W = LKML_COLUMNS;
  const para = (text: string): string[] => wrapProse(glueNumbers(plain(text)), W, '', '  ');
  const blocks: string[][] = [];

  const roles = c.runs.map((r) => `${r.role} = ${runName(r)}`).join(', ');
  const design = c.runs.some((r) => r.role === 'A2') ? 'A/B/A' : 'A/B';
  const caution = unitWords(c.unit).caution;
  blocks.push(para(`hintlab ${design} comparison: ${roles}.${caution ? ` Unit: ${caution}.` : ''}`));

  // How the verdicts were decided sits with them: a reader must know the p-values were corrected for the number of subjects.
  const head = [measuresText(c), regressionsText(c), geometricMeanText(c), controlsText(c), notRunText(c), verdictRuleText(c)].filter((x): x is string => x !== undefined);
  blocks.push(head.flatMap(para));

  blocks.push(subjectsRegressionsFirst(c).flatMap((s) => para(subjectSentence(c, s))));

  const drift = c.subjects.map(driftText).filter((x): x is string => x !== undefined);
  if (drift.length > 0) blocks.push(para(`Baseline drift (A2 vs A): ${drift.join('; ')}.`));

  const missing = notComparedText(c);
  if (missing !== undefined) blocks.push(para(missing));

  const codegen = ctx.evidence?.codegen;
  // "gcc 12.2 -O2" stays on one line: a compiler split from its version reads badly.
  if (codegen !== undefined) blocks.push(para(codegenSentence(codegen.result).replace(/\b(gcc|clang) (?=\d)/g, '$1\u00a0')));
  const hints = ctx.evidence?.hints;
  if (hints !== undefined) blocks.push(branchBlock(hints));

  blocks.push(environmentFacts(c).flatMap((f) => para(`${f.label}: ${f.text}`)));

  blocks.push([
    'Reproduce:',
    ...reproduceAll(c, ctx.evidence, ctx.reproduce).flatMap((cmd) => wrapCommand(plain(cmd), W, '  ', '      ')),
  ]);

  return `${blocks.map((b) => b.join('\n')).join('\n\n')}\n`;
}

/**
 * The heading, then one item per hinted `if` (most executed first, at most
 * LKML_BRANCH_ROWS): "  fs/select.c:635 core_sys_select: then-branch 0 of
 * 2000 executions (0.00 %), unlikely() (lines)", wrapped with a hanging
 * indent. The site is not glued, so a long path or name can still wrap.
 */
function branchBlock(hints: LoadedHints): string[] {
  const W = LKML_COLUMNS;
  const rows = patchRows(hints.doc);
  const heading = branchHeading(hints.doc);
  if (rows.length === 0) return wrapProse(glueNumbers(plain(`${heading}: ${noHintsText(hints.doc)}.`)), W, '', '  ');
  const shown = rows.slice(0, LKML_BRANCH_ROWS);
  const more = moreText(rows.length, shown.length, hints.file);
  return [
    ...wrapProse(glueNumbers(plain(`${heading}:`)), W, '', '  '),
    ...shown.flatMap((r) => wrapProse(`${plain(siteText(r))}: ${glueNumbers(plain(branchClaim(r)))}`, W, '  ', '    ')),
    ...(more === undefined ? [] : wrapProse(plain(more), W, '  ', '    ')),
  ];
}

/**
 * Tabs and control characters would break the column count (and mail
 * clients mangle them): a tab becomes a space, other controls a `?`.
 */
export function plain(text: string): string {
  return text.replace(/\t/g, ' ').replace(/[\x00-\x1f\x7f]/g, '?');
}

/** Keep a number on the same line as the word after it ("2.5 %", "182.4 ns/call"). */
export function glueNumbers(text: string): string {
  return text.replace(/(\d) (?=\S)/g, '$1\u00a0');
}
