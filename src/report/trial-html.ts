/**
 * A trial as one self-contained HTML page (inline CSS and SVG, no scripts,
 * nothing fetched: the same Content-Security-Policy as `hintlab report
 * --format html`): the Markdown report's sections with the change plot and
 * the verdict badges of the measured part.
 */
import { behaveHeadline, behaveText } from './behave.ts';
import { cellTitle, deltaText } from '../codegen/render.ts';
import { environmentFacts } from './facts.ts';
import { changeSection, CSP, htmlTable, summarySection } from './html.ts';
import { HTML_STYLE } from './html-style.ts';
import { escapeXml } from './markup.ts';
import { codegenTable } from './patch-evidence.ts';
import { powerTable, resultsTable } from './tables.ts';
import { measuredSentences, type TrialReportContext } from './trial.ts';
import { stressSentences } from './trial-stress.ts';
import { perHunkSentences, perHunkTable } from './trial-hunks.ts';
import { perCommitSentences, perCommitTable } from './trial-commits.ts';
import { costIntro, costText } from './trial-cost.ts';
import type { TrialStressors } from '../trial/document.ts';
import type { TrialDocument } from '../trial/document.ts';
import { codegenSentences, headline, hunksTable, kernelSentences, objectsTable, patchSentences, reproduceLines, stepsTable } from './trial-words.ts';

const list = (items: string[]): string => `<ul>${items.map((i) => `<li>${escapeXml(i)}</li>`).join('')}</ul>`;

/** The normalized disassembly diff of every function that is not identical, one collapsed block each. */
function diffBlocks(doc: TrialDocument): string {
  const blocks = doc.codegen.objects.flatMap((o) =>
    (o.state === 'compared' && o.result ? o.result.cells : []).flatMap((cell) =>
      cell.state !== 'compared'
        ? []
        : cell.functions.flatMap((f) =>
            'diff' in f ? [`<details class="asm"><summary>${escapeXml(`${o.object}: ${f.name} (${deltaText(f)}), normalized disassembly diff, ${cellTitle(cell)}`)}</summary><pre>${escapeXml(f.diff)}</pre></details>`] : [],
          ),
    ),
  );
  return blocks.join('\n');
}

function codeSection(doc: TrialDocument): string {
  const [intro, ...items] = codegenSentences(doc);
  const tables = doc.codegen.objects.filter((o) => o.state === 'compared' && o.result).map((o) => htmlTable(codegenTable(o.result!)));
  return `<section id="code"><h2>What changed in the code</h2><p>${escapeXml(intro!)}</p>${list(items)}${doc.codegen.objects.length ? htmlTable(objectsTable(doc)) : ''}${tables.join('\n')}${diffBlocks(doc)}</section>`;
}

/** A warning at the top of the page when B behaves differently where A repeated itself, as the summary warns of a measured regression. */
function behaviourBanner(doc: TrialDocument): string {
  const b = doc.behave.document;
  if (b.divergences.length === 0) return '';
  return `<p class="regressions" id="behaviour-banner"><strong>${escapeXml(`Behaviour differs: ${behaveHeadline(b).replace(/^behaviour: /, '')}.`)}</strong> <a href="#behaviour">Details</a></p>`;
}

/** Which hunk explains which change: the intro, one line per change, the table. */
function hunkSection(doc: TrialDocument): string {
  const p = doc.perHunk;
  if (!p) return '';
  const [intro, ...rest] = perHunkSentences(p);
  return `<section id="per-hunk"><h2>Per hunk</h2><p>${escapeXml(intro!)}</p>${rest.length ? list(rest) : ''}${p.skipped ? '' : htmlTable(perHunkTable(p))}</section>`;
}

/** Which commit brings which change: the intro, one line per change, the table. */
function commitSection(doc: TrialDocument): string {
  const p = doc.perCommit;
  if (!p) return '';
  const [intro, ...rest] = perCommitSentences(p);
  return `<section id="per-commit"><h2>Per commit</h2><p>${escapeXml(intro!)}</p>${rest.length ? list(rest) : ''}${p.commits.length < 2 ? '' : htmlTable(perCommitTable(p))}</section>`;
}

/** The stressors: how they were measured, their verdicts (regressions first), the geometric mean, the tables. */
function stressSection(s: TrialStressors | undefined): string {
  if (!s) return '';
  const [intro, ...rest] = stressSentences(s);
  return `<section id="stressors"><h2>Stressors</h2><p>${escapeXml(intro!)}</p>${list(rest)}${htmlTable(resultsTable(s.comparison))}${htmlTable(powerTable(s.comparison))}</section>`;
}

export function trialHtml(doc: TrialDocument, ctx: TrialReportContext): string {
  const c = doc.measured.comparison;
  const [intro] = measuredSentences(doc);
  const debug = doc.behave.kernels === 'debug-checks' ? '<p>On the --debug-checks pair (A-debug, B-debug), never measured.</p>' : '';
  const body = [
    `<header><h1>${escapeXml(headline(doc).replace(/:.*$/, ''))}</h1><p class="lead">${escapeXml(headline(doc).replace(/^[^:]*: /, ''))}</p></header>`,
    behaviourBanner(doc),
    codeSection(doc),
    `<section id="behaviour"><h2>Behaviour</h2>${debug}<pre>${escapeXml(behaveText(doc.behave.document))}</pre></section>`,
    `<section id="measured"><h2>Measured</h2><p>${escapeXml(intro!)}</p></section>`,
    summarySection(c),
    changeSection(c),
    `<section id="tables"><h2>Numbers</h2>${htmlTable(resultsTable(c))}${htmlTable(powerTable(c))}</section>`,
    stressSection(doc.stressors),
    doc.cost ? `<section id="cost"><h2>Cost model</h2><p>${escapeXml(costIntro(doc.cost))}</p><pre>${escapeXml(costText(doc.cost).slice(2).join('\n'))}</pre></section>` : '',
    hunkSection(doc),
    commitSection(doc),
    `<section id="kernels"><h2>How the kernels were built</h2>${list([...kernelSentences(doc), ...patchSentences(doc)])}${doc.patches.some((p) => p.applied) ? htmlTable(hunksTable(doc)) : ''}</section>`,
    `<section id="steps"><h2>Steps</h2>${htmlTable(stepsTable(doc))}</section>`,
    `<section id="environment"><h2>Environment</h2><dl class="facts">${environmentFacts(c).map((f) => `<dt>${escapeXml(f.label)}</dt><dd>${escapeXml(f.text)}</dd>`).join('')}</dl></section>`,
    `<section id="reproduce"><h2>Reproduce</h2><pre>${escapeXml(reproduceLines(doc, ctx.reproduce).flatMap((r) => [...(r.note ? [`# ${r.note}`] : []), r.line]).join('\n'))}</pre></section>`,
    `<footer>hintlab ${escapeXml(doc.hintlabVersion)}, ${escapeXml(ctx.generatedAt)}.</footer>`,
  ];
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(headline(doc))}</title><style>${HTML_STYLE}</style></head>`,
    `<body>\n${body.join('\n')}\n</body></html>`,
    '',
  ].join('\n');
}
