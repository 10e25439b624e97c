/**
 * A trial as Markdown, for an issue tracker or a pull request: the lkml
 * block's parts as sections and tables.
 */
import { behaveText } from './behave.ts';
import { environmentFacts } from './facts.ts';
import { escapeMarkdown, fence, markdownTable } from './md.ts';
import { codegenTable } from './patch-evidence.ts';
import { powerTable, resultsTable } from './tables.ts';
import { measuredSentences, type TrialReportContext } from './trial.ts';
import { stressSentences } from './trial-stress.ts';
import { perHunkSentences, perHunkTable } from './trial-hunks.ts';
import { perCommitSentences, perCommitTable } from './trial-commits.ts';
import { costMarkdown } from './trial-cost.ts';
import type { TrialPerCommit, TrialPerHunk } from '../trial/document.ts';
import type { TrialStressors } from '../trial/document.ts';
import type { TrialDocument } from '../trial/document.ts';
import { codegenSentences, headline, hunksTable, kernelSentences, objectsTable, patchSentences, reproduceLines, stepsTable } from './trial-words.ts';

const bullets = (items: string[]): string => items.map((i) => `- ${escapeMarkdown(i)}`).join('\n');

function codeSection(doc: TrialDocument): string[] {
  const [intro, ...items] = codegenSentences(doc);
  const parts = ['## What changed in the code', escapeMarkdown(intro!), bullets(items)];
  if (doc.codegen.objects.length > 0) parts.push(markdownTable(objectsTable(doc)));
  for (const o of doc.codegen.objects) if (o.state === 'compared' && o.result) parts.push(markdownTable(codegenTable(o.result)));
  return parts;
}

function stressSection(s: TrialStressors | undefined): string[] {
  if (!s) return [];
  const [intro, ...rest] = stressSentences(s);
  return ['## Stressors', escapeMarkdown(intro!), bullets(rest), markdownTable(resultsTable(s.comparison)), markdownTable(powerTable(s.comparison))];
}

function hunkSection(p: TrialPerHunk | undefined): string[] {
  if (!p) return [];
  const [intro, ...rest] = perHunkSentences(p);
  return ['## Per hunk', escapeMarkdown(intro!), ...(rest.length ? [bullets(rest)] : []), ...(p.skipped ? [] : [markdownTable(perHunkTable(p))])];
}

function commitSection(p: TrialPerCommit | undefined): string[] {
  if (!p) return [];
  const [intro, ...rest] = perCommitSentences(p);
  return ['## Per commit', escapeMarkdown(intro!), ...(rest.length ? [bullets(rest)] : []), ...(p.commits.length < 2 ? [] : [markdownTable(perCommitTable(p))])];
}

export function trialMarkdown(doc: TrialDocument, ctx: TrialReportContext): string {
  const c = doc.measured.comparison;
  const [intro, ...measured] = measuredSentences(doc);
  const parts = [
    `# ${escapeMarkdown(headline(doc).replace(/:.*$/, ''))}`,
    escapeMarkdown(headline(doc).replace(/^[^:]*: /, '')),
    ...codeSection(doc),
    '## Behaviour',
    ...(doc.behave.kernels === 'debug-checks' ? ['On the --debug-checks pair (A-debug, B-debug), never measured.'] : []),
    fence(behaveText(doc.behave.document).trimEnd().split('\n')),
    '## Measured',
    escapeMarkdown(intro!),
    bullets(measured),
    markdownTable(resultsTable(c)),
    markdownTable(powerTable(c)),
    ...stressSection(doc.stressors),
    ...(doc.cost ? costMarkdown(doc.cost) : []),
    ...hunkSection(doc.perHunk),
    ...commitSection(doc.perCommit),
    '## How the kernels were built',
    bullets([...kernelSentences(doc), ...patchSentences(doc)]),
    ...(doc.patches.some((p) => p.applied) ? [markdownTable(hunksTable(doc))] : []),
    '## Steps',
    markdownTable(stepsTable(doc)),
    '## Environment',
    bullets(environmentFacts(c).map((f) => `${f.label}: ${f.text}`)),
    '## Reproduce',
    fence(reproduceLines(doc, ctx.reproduce).flatMap((r) => [...(r.note ? [`# ${r.note}`] : []), r.line]), 'sh'),
    escapeMarkdown(`Report by hintlab ${doc.hintlabVersion} at ${ctx.generatedAt}.`),
  ];
  return `${parts.join('\n\n')}\n`;
}
