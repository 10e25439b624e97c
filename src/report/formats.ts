/**
 * The one registry of report formats: what each format is and which file
 * names hold it (`FORMATS`), and per document kind the reporter that
 * writes the document in each format it has (`REPORTERS`). Every command
 * that writes a report takes its --format names, its -o extensions and its
 * reporter from here, so a new format is its reporter file plus a row
 * here. A reporter is a pure function to text (see reporter.ts); the CLI's
 * one writer decides where the text goes.
 */
import type { BehaveDocument } from '../behave/compare.ts';
import { renderJson as codegenJson, renderText as codegenText } from '../codegen/render.ts';
import type { CodegenResult } from '../codegen/types.ts';
import type { MetricComparison } from '../compare/metric.ts';
import type { Comparison } from '../compare/types.ts';
import type { HintsResult } from '../hints/analyze.ts';
import { resultPatch } from '../hints/patch.ts';
import { formatJson as hintsJson, formatTable as hintsTable } from './hints.ts';
import type { RunWithRounds } from '../model.ts';
import type { TrialDocument } from '../trial/document.ts';
import { behaveLkml, behaveText } from './behave.ts';
import { htmlReport } from './html.ts';
import { jsonReport } from './json.ts';
import { lkmlReport } from './lkml.ts';
import { markdownReport } from './md.ts';
import { renderMetricJson, renderMetricMarkdown, renderMetricText } from './metric.ts';
import type { ReportContext } from './reporter.ts';
import { runCsv, runJson } from './run-export.ts';
import { renderText } from './text.ts';
import { trialLkml, trialText, type TrialReportContext } from './trial.ts';
import { trialHtml } from './trial-html.ts';
import { trialJson } from './trial-json.ts';
import { trialMarkdown } from './trial-md.ts';

/** Every format, with the -o extensions that name a file of it (none: the format is printed, never named by a file). */
export const FORMATS = {
  text: { extensions: ['.txt'], what: 'plain text for a terminal' },
  lkml: { extensions: ['.txt'], what: 'a plain-text block for a mailing list, 72 columns, ASCII' },
  md: { extensions: ['.md'], what: 'Markdown' },
  json: { extensions: ['.json'], what: 'a versioned JSON document' },
  html: { extensions: ['.html', '.htm'], what: 'a self-contained HTML page' },
  csv: { extensions: ['.csv'], what: 'one row per round, comma-separated' },
  table: { extensions: [], what: 'a plain-text table' },
  patch: { extensions: [], what: 'a unified diff' },
} as const satisfies Record<string, { extensions: readonly string[]; what: string }>;

/** A format's name, as --format takes it. */
export type FormatName = keyof typeof FORMATS;

/** What `hints` writes beside its result: the program that wrote the document. */
export interface HintsContext {
  generatedBy: string;
}

/** A comparison, a document or a result as JSON, indented, with a final newline. */
const asJson = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;

/** A kind's document, and the context its reporters take beside it (void: none). */
interface Kind<Doc, Ctx> {
  doc: Doc;
  ctx: Ctx;
}

/** The documents and contexts each kind's reporters take. */
interface KindTypes {
  report: Kind<Comparison, ReportContext>;
  compare: Kind<Comparison, void>;
  metric: Kind<MetricComparison, void>;
  trial: Kind<TrialDocument, TrialReportContext>;
  run: Kind<RunWithRounds, void>;
  behave: Kind<BehaveDocument, void>;
  codegen: Kind<CodegenResult, void>;
  hints: Kind<HintsResult, HintsContext>;
}

/** A reporter of `kind`'s documents: a pure function to text. */
export type ReporterOf<K extends DocumentKind> = (doc: KindTypes[K]['doc'], ctx: KindTypes[K]['ctx']) => string;

/** A kind of document that has reporters. */
export type DocumentKind = keyof KindTypes;

/**
 * Per document kind, its reporter in each format it is written in, in the
 * order the help lists them (the first is not the default: each command
 * names its own).
 *   report: a Comparison (`hintlab report`), with the report's context
 *   compare: a Comparison as `hintlab compare` prints it: the table, or the document as is
 *   metric: a cost-counter comparison (`report --metric`, `compare --metric`)
 *   trial: a trial document (`hintlab trial`)
 *   run: one run's raw rounds (`hintlab export`)
 *   behave, codegen, hints: those commands' results
 */
export const REPORTERS: { readonly [K in DocumentKind]: Readonly<Partial<Record<FormatName, ReporterOf<K>>>> } = {
  report: {
    text: (c, ctx) => renderText(c, ctx.evidence),
    lkml: lkmlReport,
    md: markdownReport,
    json: jsonReport,
    html: htmlReport,
  },
  compare: { text: (c) => renderText(c), json: (c) => asJson(c) },
  metric: { text: renderMetricText, md: renderMetricMarkdown, json: renderMetricJson },
  trial: { lkml: trialLkml, md: trialMarkdown, html: trialHtml, json: trialJson, text: trialText },
  run: { json: runJson, csv: runCsv },
  behave: { text: behaveText, lkml: (doc) => behaveLkml(doc), json: (doc) => asJson(doc) },
  codegen: { text: codegenText, json: codegenJson },
  hints: { table: hintsTable, patch: resultPatch, json: (r, ctx) => hintsJson(r, ctx.generatedBy) },
};

/** The format names `kind` is written in, in the help's order. */
export function formatsOf(kind: DocumentKind): string[] {
  return Object.keys(REPORTERS[kind]);
}

/** The format names of `kind` in a sentence: "table, patch or json". */
export function formatChoices(kind: DocumentKind): string {
  const names = formatsOf(kind);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}` : names.join('');
}

/** The reporter of `kind` in `format`, or undefined when `kind` has no such format. */
export function reporterFor<K extends DocumentKind>(kind: K, format: string): ReporterOf<K> | undefined {
  const reporters: Partial<Record<string, ReporterOf<K>>> = REPORTERS[kind];
  return Object.hasOwn(reporters, format) ? reporters[format] : undefined;
}

/** Each -o extension `kind` writes, with the formats that fit it, the one taken by default first (in FORMATS order). */
export function extensionsOf(kind: DocumentKind): Record<string, [string, ...string[]]> {
  const out: Record<string, [string, ...string[]]> = {};
  const names = formatsOf(kind);
  for (const [name, format] of Object.entries(FORMATS)) {
    if (!names.includes(name)) continue;
    for (const ext of format.extensions) {
      const fits = out[ext];
      if (fits) fits.push(name);
      else out[ext] = [name];
    }
  }
  return out;
}
