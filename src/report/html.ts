/**
 * The HTML report: one self-contained file (inline CSS and SVG, no scripts,
 * no fonts or images from the network; a Content-Security-Policy forbids
 * any request) with the verdicts, the plots and the same tables as the
 * Markdown report. Readable without colour and printable.
 */
import type { Comparison, ComparedRun, SubjectComparison, Verdict } from '../compare/types.ts';
import { isClaim, judgedContrast } from '../compare/verdict.ts';
import { environmentFacts, runName } from './facts.ts';
import { isInterval } from './comparison-words.ts';
import { unitWords } from '../format/units.ts';
import { HTML_STYLE } from './html-style.ts';
import { escapeXml } from './markup.ts';
import { branchHeading, branchTable, codegenSentence, codegenTable, noHintsText, type PatchDocuments, patchRows, reproduceAll, TABLE_BRANCH_ROWS } from './patch-evidence.ts';
import type { ReportContext } from './reporter.ts';
import {
  correctionText,
  designLine,
  geometricMeanText,
  notComparedText,
  notRunText,
  regressionsText,
  controlsText,
  measuresText,
  unitsMethodText,
  subjectSentence,
  subjectsRegressionsFirst,
  testNameOf,
  thresholdRuleText,
} from './summary.ts';
import { changePlot, distributionPlot, pairRatiosPlot, roundsPlot, type RunSeries } from './svg.ts';
import { driftTable, environmentTable, powerTable, resultsTable, runsTable, type Table } from './tables.ts';

export const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const BADGE_CLASS: Record<Verdict, string> = {
  faster: 'faster',
  slower: 'slower',
  'fewer instructions': 'faster',
  'more instructions': 'slower',
  'no difference proven': 'none',
  identical: 'none',
  'insufficient data': 'insufficient',
  'insufficient units': 'insufficient',
};

/** A table with a caption; numeric columns right-aligned. */
export function htmlTable(t: Table): string {
  const head = t.headers.map((h) => `<th scope="col">${escapeXml(h)}</th>`).join('');
  const body = t.rows.map((r, ri) => `<tr>${htmlCells(t, r, t.spans?.[ri])}</tr>`).join('\n');
  return `<div class="table-wrap"><table id="table-${t.id}" data-table="${t.id}"><caption>${escapeXml(t.caption)}</caption>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`;
}

/** A row's cells: the first a row header, a spanning cell with its colspan, numeric columns (by their first column) right-aligned. */
function htmlCells(t: Table, row: string[], spans: number[] | undefined): string {
  let column = 0;
  return row
    .map((cell, i) => {
      const span = spans?.[i] ?? 1;
      const at = column;
      column += span;
      if (i === 0) return `<th scope="row">${escapeXml(cell)}</th>`;
      const attrs = `${span > 1 ? ` colspan="${span}"` : ''}${t.numeric.includes(at) ? ' class="num"' : ''}`;
      return `<td${attrs}>${escapeXml(cell)}</td>`;
    })
    .join('');
}

/** Runs in the order they were measured (start time), which is the rounds plot's x axis. */
function measurementOrder(runs: ComparedRun[]): ComparedRun[] {
  return [...runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

export function summarySection(c: Comparison): string {
  const items = subjectsRegressionsFirst(c).map(
    (s) =>
      `<li><span class="badge ${BADGE_CLASS[s.verdict.verdict]}">${escapeXml(s.verdict.verdict)}</span>${escapeXml(subjectSentence(c, s))}</li>`,
  );
  const regressions = regressionsText(c);
  const measures = measuresText(c);
  return [
    '<section id="summary"><h2>Summary</h2>',
    measures === undefined ? '' : `<p class="measures"><strong>${escapeXml(measures)}</strong></p>`,
    regressions === undefined ? '' : `<p class="regressions"><strong>${escapeXml(regressions)}</strong></p>`,
    ...[geometricMeanText(c), controlsText(c), notComparedText(c), notRunText(c), designLine(c), unitsMethodText(c)]
      .filter((x) => x !== undefined)
      .map((x) => `<p>${escapeXml(x)}</p>`),
    `<ul class="verdicts">${items.join('\n')}</ul>`,
    '</section>',
  ].join('\n');
}

export function changeSection(c: Comparison): string {
  const better = c.direction === 'lower-is-better' ? 'lower is better' : 'higher is better';
  // the change the verdicts used: B vs A+A2 for A/B/A
  const vs = c.subjects.some((s) => s.judgedOn === 'B vs A+A2') ? 'B against A+A2' : 'B against A';
  const svg = changePlot({
    title: `Change of ${vs} per subject, with its confidence interval`,
    thresholdPct: c.options.thresholdPct,
    axisLabel: `change of ${vs} in % (${unitWords(c.unit).perOp}, ${better})`,
    rows: c.subjects.map((s) => ({ s, judged: judgedContrast(s) })).map(({ s, judged }) => ({
      subject: s.subject,
      changePct: judged.changePct,
      ciPct: isInterval(judged.ciPct) ? [judged.ciPct.low, judged.ciPct.high] : null,
      verdict: s.verdict.verdict,
      proven: isClaim(s.verdict.verdict),
    })),
  });
  return (
    `<section id="change"><h2>Change per subject</h2><figure>${svg}<figcaption>` +
    `Diamond: the change the verdict used (${c.subjects.some((s) => s.judgedOn === 'B vs A+A2') ? 'B against A+A2' : 'B against A'}); whiskers: its ${Math.round(c.options.confidenceLevel * 100)} % interval; ` +
    `grey band: the noise threshold of ±${c.options.thresholdPct} %. A change is claimed only when the ${c.options.correction === 'holm' ? 'Holm-adjusted ' : ''}${escapeXml(testNameOf(c))} p &lt; ${c.options.alpha} ` +
    `and ${escapeXml(thresholdRuleText(c))}.</figcaption></figure></section>`
  );
}

/**
 * The measurement-order plot of a subject: a paired design's B/A per pair
 * (A's and B's rounds side by side would hide the pairing, and with it the
 * drift the pairs cancel), every round of each run otherwise.
 */
function measurementPlot(c: Comparison, s: SubjectComparison, unit: string, series: RunSeries[]): { svg: string; caption: string } {
  const ratios = s.change.pairs?.ratios;
  if (ratios !== undefined && ratios.length > 0) {
    return {
      svg: pairRatiosPlot({ title: `${s.subject}: B/A of each pair in measurement order`, ratios, meanRatio: s.change.ratio, thresholdPct: c.options.thresholdPct }),
      caption: `B/A of each pair (the B block's mean ${unit} over the A block's), pairs in the order they were measured: a slope or step is drift the pairing cancels, a lone point an outlier pair.`,
    };
  }
  return {
    svg: roundsPlot({ title: `${s.subject}: every round in measurement order`, unit, series }),
    caption: `Each round's ${unit}, runs in the order they were measured: a step or slope within a run, or between A and A2, is drift.`,
  };
}

function subjectArticle(c: Comparison, s: SubjectComparison): string {
  const unit = unitWords(c.unit).perOp;
  const byRole = new Map(s.runs.map((r) => [r.role, r]));
  const series = measurementOrder(c.runs)
    .map((run) => byRole.get(run.role))
    .filter((r) => r !== undefined)
    .map((r) => ({ run: r.role, values: r.valuesInUnit }));
  const rounds = measurementPlot(c, s, unit, series);
  const dist = distributionPlot({
    title: `${s.subject}: distribution of rounds per run`,
    unit,
    groups: s.runs.map((r) => ({
      run: r.role,
      values: r.valuesInUnit,
      mean: r.meanInUnit,
      median: r.medianInUnit,
      ciLow: isInterval(r.ciMeanInUnit) ? r.ciMeanInUnit.low : r.meanInUnit,
      ciHigh: isInterval(r.ciMeanInUnit) ? r.ciMeanInUnit.high : r.meanInUnit,
    })),
  });
  return (
    `<article class="subject" id="subject-${escapeXml(s.subject)}"><h3>${escapeXml(s.subject)}</h3>` +
    `<p>${escapeXml(s.verdict.reason)}</p><div class="plots">` +
    `<figure>${rounds.svg}<figcaption>${escapeXml(rounds.caption)}</figcaption></figure>` +
    `<figure>${dist}<figcaption>Rounds per run (hollow markers), median (bar), mean with its confidence interval (whisker).</figcaption></figure>` +
    `</div></article>`
  );
}

function environmentSection(c: Comparison): string {
  const facts = environmentFacts(c)
    .map((f) => `<dt>${escapeXml(f.label)}</dt><dd>${escapeXml(f.text)}</dd>`)
    .join('');
  return `<section id="environment"><h2>Environment</h2><dl class="facts">${facts}</dl>\n${htmlTable(environmentTable(c))}\n${htmlTable(runsTable(c))}</section>`;
}

/** The codegen and branch-evidence sections, when the documents were given. */
function evidenceSections(evidence: PatchDocuments): string[] {
  const sections: string[] = [];
  const cg = evidence.codegen;
  if (cg !== undefined) {
    const notes = cg.result.notes.map((n) => `<li>${escapeXml(n)}</li>`).join('');
    sections.push(
      `<section id="codegen"><h2>Code generation</h2><p>${escapeXml(codegenSentence(cg.result))}</p>` +
        `${htmlTable(codegenTable(cg.result))}${notes ? `<ul class="notes">${notes}</ul>` : ''}</section>`,
    );
  }
  const hints = evidence.hints;
  if (hints !== undefined) {
    const none = patchRows(hints.doc).length === 0;
    const lead = `${branchHeading(hints.doc)}${none ? `: ${noHintsText(hints.doc)}` : ''}.`;
    sections.push(
      `<section id="branch-evidence"><h2>Branch evidence</h2><p>${escapeXml(lead)}</p>` +
        `${none ? '' : htmlTable(branchTable(hints, TABLE_BRANCH_ROWS))}</section>`,
    );
  }
  return sections;
}

/** Render a Comparison as a self-contained HTML page. */
export function htmlReport(c: Comparison, ctx: ReportContext): string {
  const design = c.runs.some((r) => r.role === 'A2') ? 'A/B/A' : 'A/B';
  const title = `hintlab ${design} comparison: ${c.runs.map(runName).join(' vs ')}`;
  const caution = unitWords(c.unit).caution;
  const drift = driftTable(c);
  const body = [
    `<header><h1>hintlab ${design} comparison</h1>`,
    `<p class="lead">${escapeXml(c.runs.map((r) => `${r.role} = ${runName(r)}`).join(', '))}. Unit: ${escapeXml(c.unit)}${caution ? ` (${escapeXml(caution)})` : ''}.</p></header>`,
    summarySection(c),
    changeSection(c),
    `<section id="tables"><h2>Numbers</h2>${htmlTable(resultsTable(c))}${drift ? htmlTable(drift) : ''}${htmlTable(powerTable(c))}</section>`,
    ...evidenceSections(ctx.evidence ?? {}),
    `<section id="rounds"><h2>Rounds per subject</h2>${c.subjects.map((s) => subjectArticle(c, s)).join('\n')}</section>`,
    environmentSection(c),
    `<section id="reproduce"><h2>Reproduce</h2><pre>${escapeXml(reproduceAll(c, ctx.evidence, ctx.reproduce).join('\n'))}</pre></section>`,
    `<footer>hintlab ${escapeXml(ctx.hintlabVersion)}, ${escapeXml(ctx.generatedAt)}. Alpha ${c.options.alpha} with ${escapeXml(correctionText(c))}, ` +
      `noise threshold ${c.options.thresholdPct} %.</footer>`,
  ];
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(title)}</title><style>${HTML_STYLE}</style></head>`,
    `<body>\n${body.join('\n')}\n</body></html>`,
    '',
  ].join('\n');
}
