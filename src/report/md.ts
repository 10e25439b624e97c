/**
 * The Markdown report: the lkml report's content as tables, for issue
 * trackers, pull requests and wikis.
 */
import type { Comparison } from '../compare/types.ts';
import { environmentFacts, runName } from './facts.ts';
import { unitWords } from '../format/units.ts';
import { branchHeading, branchTable, codegenSentence, codegenTable, noHintsText, type PatchDocuments, patchRows, reproduceAll, TABLE_BRANCH_ROWS } from './patch-evidence.ts';
import type { ReportContext } from './reporter.ts';
import { controlsText, correctionText, designLine, geometricMeanText, measuresText, notComparedText, notRunText, regressionsText, unitsMethodText } from './summary.ts';
import { driftTable, environmentTable, powerTable, resultsTable, runsTable, type Table, unspannedCells } from './tables.ts';

/** Escape text for a Markdown table cell or paragraph. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (ch) => `\\${ch}`).replace(/\r?\n/g, ' ');
}

/** A GitHub-flavoured Markdown table, numeric columns right-aligned. */
export function markdownTable(t: Table): string {
  const row = (cells: string[]): string => `| ${cells.map(escapeMarkdown).join(' | ')} |`;
  const align = t.headers.map((_, i) => (t.numeric.includes(i) ? '---:' : '---'));
  return [`**${escapeMarkdown(t.caption)}**`, '', row(t.headers), `| ${align.join(' | ')} |`, ...t.rows.map((_, i) => row(unspannedCells(t, i)))].join('\n');
}

/** A fenced code block long enough never to be closed by its content. */
export function fence(lines: string[], info = ''): string {
  const longest = Math.max(2, ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((m) => m.length))));
  const f = '`'.repeat(longest + 1);
  return [`${f}${info}`, ...lines, f].join('\n');
}

/** "## Code generation" and "## Branch evidence" when the documents were given. */
function evidenceParts(evidence: PatchDocuments): string[] {
  const parts: string[] = [];
  const cg = evidence.codegen;
  if (cg !== undefined) {
    parts.push('## Code generation', escapeMarkdown(codegenSentence(cg.result)), markdownTable(codegenTable(cg.result)));
    if (cg.result.notes.length > 0) parts.push(cg.result.notes.map((n) => `- ${escapeMarkdown(n)}`).join('\n'));
  }
  const hints = evidence.hints;
  if (hints !== undefined) {
    const none = patchRows(hints.doc).length === 0;
    parts.push('## Branch evidence', escapeMarkdown(`${branchHeading(hints.doc)}${none ? `: ${noHintsText(hints.doc)}` : ''}.`));
    if (!none) parts.push(markdownTable(branchTable(hints, TABLE_BRANCH_ROWS)));
  }
  return parts;
}

/** Render a Comparison as a Markdown document. */
export function markdownReport(c: Comparison, ctx: ReportContext): string {
  const design = c.runs.some((r) => r.role === 'A2') ? 'A/B/A' : 'A/B';
  const caution = unitWords(c.unit).caution;
  const parts: string[] = [
    `# hintlab ${design} comparison`,
    escapeMarkdown(`${c.runs.map((r) => `${r.role} = ${runName(r)}`).join(', ')}. Unit: ${c.unit}${caution ? ` (${caution})` : ''}.`),
  ];
  const measures = measuresText(c);
  if (measures !== undefined) parts.push(`**${escapeMarkdown(measures)}**`);
  const regressions = regressionsText(c);
  if (regressions !== undefined) parts.push(`**${escapeMarkdown(regressions)}**`);
  for (const line of [geometricMeanText(c), controlsText(c), notComparedText(c), notRunText(c), designLine(c), unitsMethodText(c)]) {
    if (line !== undefined) parts.push(escapeMarkdown(line));
  }
  parts.push(markdownTable(resultsTable(c)));
  const drift = driftTable(c);
  if (drift !== undefined) parts.push(markdownTable(drift));
  parts.push(markdownTable(powerTable(c)));
  parts.push(...evidenceParts(ctx.evidence ?? {}));
  parts.push(
    '## Environment',
    environmentFacts(c).map((f) => `- ${escapeMarkdown(f.label)}: ${escapeMarkdown(f.text)}`).join('\n'),
    markdownTable(environmentTable(c)),
    markdownTable(runsTable(c)),
    '## Reproduce',
    fence(reproduceAll(c, ctx.evidence, ctx.reproduce), 'sh'),
    escapeMarkdown(
      `Thresholds: alpha ${c.options.alpha} with ${correctionText(c)}, noise threshold ${c.options.thresholdPct} %. ` +
        `Report by hintlab ${ctx.hintlabVersion} at ${ctx.generatedAt}.`,
    ),
  );
  return `${parts.join('\n\n')}\n`;
}
