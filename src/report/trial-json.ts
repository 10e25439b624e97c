/**
 * A trial as JSON: the trial document (src/trial/document.ts) with the
 * comparison's `...InUnit` fields named after the unit (as `hintlab report
 * --format json` names them), every reproduce command also as the line a
 * reader runs, and the time the report was written.
 *
 * Format history (TRIAL_JSON_VERSION; the document's own `schema` is
 * TRIAL_SCHEMA):
 *   1: first version; later `cost` (the document's cost section, as is),
 *      `git` and `perCommit` (the document's, as they are).
 */
import { unitWords } from '../format/units.ts';
import { finiteOrText, renameUnitFields } from './json.ts';
import type { TrialReportContext } from './trial.ts';
import type { TrialDocument } from '../trial/document.ts';
import { reproduceLines } from './trial-words.ts';
import { stressJson } from './trial-stress.ts';
import { perHunkJson } from './trial-hunks.ts';

export const TRIAL_JSON_VERSION = 1;

export function trialJson(doc: TrialDocument, ctx: TrialReportContext): string {
  const suffix = unitWords(doc.measured.unit).fieldSuffix;
  const lines = reproduceLines(doc, ctx.reproduce);
  const out = {
    ...doc,
    version: TRIAL_JSON_VERSION,
    generatedAt: ctx.generatedAt,
    unitFieldSuffix: suffix,
    measured: { ...doc.measured, comparison: renameUnitFields(doc.measured.comparison, suffix) },
    ...(doc.stressors ? { stressors: stressJson(doc.stressors) } : {}),
    // per hunk as a flat list; the groups, variants (runs) and attribution lines beside it
    ...(doc.perHunk ? { perHunk: perHunkJson(doc.perHunk), perHunkDetail: doc.perHunk } : {}),
    reproduce: doc.reproduce.map((r, i) => ({ ...r, line: lines[i]!.line })),
  };
  return `${JSON.stringify(out, finiteOrText, 2)}\n`;
}
