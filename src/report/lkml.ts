/**
 * The mailing-list report: plain text, never wider than 72 columns,
 * short enough to paste under a patch's "---" line. One aligned table of
 * the subjects (./lkml-table.ts: regressions first, the unproven ones in
 * one line unless --all), how the verdicts were decided, the baseline
 * drift when A2 was measured, the code and branch evidence, the machine,
 * and the commands that reproduce the numbers. The long forms (every
 * sentence, every subject) are the text, Markdown and HTML reports.
 */
import type { Comparison } from '../compare/types.ts';
import { environmentFacts, runName } from './facts.ts';
import { comparisonClockText, tableRoundsText } from './comparison-words.ts';
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
import { measuresText } from './summary.ts';
import { designLine, driftSummaryText, measuredLines } from './lkml-table.ts';
import { asciiOnly, glueNumbers, LKML_COLUMNS, lkmlPara, plain, wrapCommand, wrapProse } from './wrap.ts';

/** Shell commands under a heading, each wrapped so it still pastes and runs. */
export function lkmlCommands(heading: string, commands: readonly string[]): string[] {
  return [heading, ...commands.flatMap((cmd) => wrapCommand(plain(cmd), LKML_COLUMNS, '  ', '      '))];
}

/** "Means in ns/call (thread CPU clock), B vs A (or B vs A+A2, the contrast an A/B/A verdict uses), 3 processes per side x 5 rounds x 20000 calls:" (the caution of a count or an emulated clock in the brackets too). */
export function tableCaption(c: Comparison): string {
  // Instruction counts get the longer sentence of what they leave out (measuresText), once.
  const caution = c.measures === 'instructions' ? null : unitWords(c.unit).caution;
  const vs = c.subjects.some((s) => s.judgedOn === 'B vs A+A2') ? 'B vs A+A2' : 'B vs A';
  const notes = [caution, comparisonClockText(c)].filter((x) => x !== null);
  return `Means in ${unitWords(c.unit).perOp} (${notes.join('; ')}), ${vs}, ${tableRoundsText(c)}:`;
}

/** Render a Comparison as a mailing-list text block. */
export function lkmlReport(c: Comparison, ctx: ReportContext): string {
  const blocks: string[][] = [];
  const roles = c.runs.map((r) => `${r.role} = ${runName(r)}`).join(', ');
  const design = c.runs.some((r) => r.role === 'A2') ? 'A/B/A' : 'A/B';
  const named = designLine(c);
  blocks.push([...lkmlPara(`hintlab ${design} comparison: ${roles}.`), ...(named === undefined ? [] : lkmlPara(named)), ...measuredLines(c, tableCaption(c), { all: ctx.all === true, geometricMean: true }), ...lkmlPara(measuresText(c) ?? '')].filter((l) => l !== ''));

  const drift = driftSummaryText(c);
  const codegen = ctx.evidence?.codegen;
  // "gcc 12.2 -O2" stays on one line: a compiler split from its version reads badly.
  const code = codegen === undefined ? [] : lkmlPara(codegenSentence(codegen.result).replace(/\b(gcc|clang) (?=\d)/g, '$1\u00a0'));
  const hints = ctx.evidence?.hints;
  blocks.push(drift === undefined ? [] : lkmlPara(drift), code, hints === undefined ? [] : branchBlock(hints));
  // the table's caption names the clock: the block stays short enough to paste
  blocks.push(environmentFacts(c).filter((f) => f.label !== 'Clock').flatMap((f) => lkmlPara(`${f.label}: ${f.text}`)));
  blocks.push(lkmlCommands('Reproduce:', reproduceAll(c, ctx.evidence, ctx.reproduce)));
  return asciiOnly(`${blocks.filter((b) => b.length > 0).map((b) => b.join('\n')).join('\n\n')}\n`);
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
  if (rows.length === 0) return lkmlPara(`${heading}: ${noHintsText(hints.doc)}.`);
  const shown = rows.slice(0, LKML_BRANCH_ROWS);
  const more = moreText(rows.length, shown.length, hints.file);
  return [
    ...lkmlPara(`${heading}:`),
    ...shown.flatMap((r) => wrapProse(`${plain(siteText(r))}: ${glueNumbers(plain(branchClaim(r)))}`, W, '  ', '    ')),
    ...(more === undefined ? [] : wrapProse(plain(more), W, '  ', '    ')),
  ];
}

