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
import { lkmlCommands } from './lkml.ts';
import { measuredLines } from './lkml-table.ts';
import { tableRoundsText } from './comparison-words.ts';
import { unitWords } from '../format/units.ts';
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
import type { TrialDocument, TrialKernel } from '../trial/document.ts';
import { alignColumns } from '../format/columns.ts';
import { codegenSentences, compilerShort, configText, headline, kernelSentences, listText, secondsText, measuredIntro, patchLabel, patchSentences, reproduceLines, stepsSentence } from './trial-words.ts';
import { asciiOnly, lkmlPara } from './wrap.ts';
import { stressLkml, stressSentences } from './trial-stress.ts';
import { perHunkLkml, perHunkSentences, perHunkTable } from './trial-hunks.ts';
import { perCommitLkml, perCommitSentences, perCommitTable } from './trial-commits.ts';
import { costLkml, costText } from './trial-cost.ts';

/** What a trial report needs beyond the document. */
export interface TrialReportContext {
  generatedAt: string;
  /** The reader's directories and database, for the reproduce commands. */
  reproduce?: ReproduceContext;
  /** lkml: a table row for every subject, the unproven ones too (`--all`). */
  all?: boolean;
}

/** The measured part's sentences (shared by lkml and text): how, the caveat, regressions, the rule, one per subject. */
export function measuredSentences(doc: TrialDocument): string[] {
  const c = doc.measured.comparison;
  const head = [measuredIntro(doc), measuresText(c), regressionsText(c), geometricMeanText(c), controlsText(c), notComparedText(c), verdictRuleText(c)];
  return [...head.filter((x): x is string => x !== undefined), ...subjectsRegressionsFirst(c).map((s) => subjectSentence(c, s))];
}

function behaveIntro(doc: TrialDocument): string | null {
  return doc.behave.kernels === 'debug-checks' ? 'Behaviour, on the --debug-checks pair (A-debug, B-debug):' : null;
}

/** Divergences a trial's mail block names one by one; the others are counted (all are in md, text, html). */
const LKML_DIVERGENCES = 3;

/** "Measured in qemu tcg -icount, instructions/call (...), B vs A, 3 boots x 5 rounds x 20000 calls, order A B B A A B (runs trial3-A, trial3-B):". */
function trialCaption(doc: TrialDocument): string {
  const m = doc.measured;
  const c = m.comparison;
  const how = m.icount ? `qemu ${m.accel.accel} -icount` : m.accel.accel.toUpperCase();
  const caution = unitWords(c.unit).caution;
  return `Measured (${how}, ${unitWords(c.unit).perOp}${caution && m.icount ? ': a count, not a time' : ''}), B vs A, ${tableRoundsText(c)}, boots ${m.order.join(' ')}:`;
}

/** "built in 630 s (943 objects)", "from A's objects in 38.2 s (4 objects)", "... (reused)". */
function buildShort(k: TrialKernel): string {
  const m = k.manifest;
  const how = `${m.incremental ? `from ${m.incremental.label}'s objects` : 'built'} in ${secondsText(m.buildSeconds)} (${m.objectsCompiled ?? '?'} objects)`;
  return k.state === 'reused' ? `${how}, reused` : how;
}

/** The kernels in two lines: what they are, and how each was built. */
function kernelsShort(doc: TrialDocument): string[] {
  const { A, B } = doc.kernels;
  const m = A.manifest;
  const dropped = [...new Set([...m.droppedOptions, ...B.manifest.droppedOptions])];
  const debug = doc.kernels.debug ? '; behaviour on the --debug-checks pair, never measured' : '';
  return [
    `Kernels: Linux ${m.source.version}, ${configText(m)}, -${m.opt}, ${compilerShort(m)}${dropped.length ? `; dropped by olddefconfig: ${dropped.join(', ')}` : ''}${debug}; A ${buildShort(A)}, B ${buildShort(B)}.`,
  ];
}

/** "Patch x.patch sha256:8c9266791bfbfb4d: kernel/sched/syscalls.c 2 hunks, 1 with an offset, no fuzz." */
function patchShort(doc: TrialDocument): string[] {
  return doc.patches.map((p) => {
    if (!p.applied) return `Patch ${patchLabel(p)} sha256:${p.sha256.slice(0, 16)}: ${listText(p.files)}.`;
    const hunks = p.applied.flatMap((f) => f.hunks);
    const shifted = hunks.filter((h) => h.offsetLines !== 0).length;
    const fuzzed = hunks.filter((h) => h.fuzz > 0).length;
    const files = p.applied.map((f) => `${f.file} ${f.hunks.length === 1 ? '1 hunk' : `${f.hunks.length} hunks`}`);
    return `Patch ${patchLabel(p)} sha256:${p.sha256.slice(0, 16)}: ${listText(files)}; ${shifted ? `${shifted} with an offset` : 'no offset'}, ${fuzzed ? `${fuzzed} with fuzz` : 'no fuzz'}.`;
  });
}

/**
 * Render a trial as a mailing-list block: each part in a line or two, the
 * numbers as one table (about 25 lines for a one-function hint). The
 * sentences per subject, the function tables, the hunks, the steps and
 * the commands of each part are in the text, md and html reports.
 */
export function trialLkml(doc: TrialDocument, ctx: TrialReportContext): string {
  const c = doc.measured.comparison;
  const [codeIntro, ...codeItems] = codegenSentences(doc);
  const intro = behaveIntro(doc);
  // Under -icount the host's tuning does not change a count; its CPU and warnings stay.
  const keep = doc.measured.icount ? ['Host', 'Warnings'] : ['Host', 'Machine', 'Tuning', 'Warnings'];
  const facts = environmentFacts(c).filter((f) => keep.includes(f.label));
  const trial = reproduceLines(doc, ctx.reproduce).filter((r) => r.part === 'trial');
  const blocks: string[][] = [
    [
      ...lkmlPara(headline(doc)),
      ...lkmlPara([codeIntro!.replace(', the objects of the measured kernels', ''), ...codeItems].join(' ')),
      ...(intro ? lkmlPara(intro) : []),
      ...behaveLkml(doc.behave.document, LKML_DIVERGENCES).trimEnd().split('\n'),
    ],
    // A trial's profiles are the whole default set: their geometric mean is not what the patch claims.
    measuredLines(c, trialCaption(doc), { all: ctx.all === true, geometricMean: false }),
    // the stressors are what the patch claims to improve: their geometric mean and regressions are said
    ...(doc.stressors ? [stressLkml(doc, ctx.all === true)] : []),
    // which hunk explains each change: one line per subject B changed
    ...(doc.perHunk ? [perHunkLkml(doc)] : []),
    // which commit brings each change: one line per subject B changed
    ...(doc.perCommit ? [perCommitLkml(doc)] : []),
    // what the cost model counted, per subject, only where the exact rule claims a change
    ...(doc.cost ? [costLkml(doc.cost)] : []),
    [...kernelsShort(doc), ...patchShort(doc), ...facts.map((f) => `${f.label}: ${f.text}`)].flatMap((t) => lkmlPara(t)),
    lkmlCommands('Reproduce (each part by hand: the md or text report):', trial.map((r) => r.line)),
  ];
  return asciiOnly(`${blocks.map((b) => b.join('\n')).join('\n\n')}\n`);
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
  if (doc.stressors) parts.push('', ...stressSentences(doc.stressors).slice(0, 1), '', renderText(doc.stressors.comparison).trimEnd());
  if (doc.cost) parts.push('', ...costText(doc.cost));
  if (doc.perHunk) {
    const [intro, ...lines] = perHunkSentences(doc.perHunk);
    const t = perHunkTable(doc.perHunk);
    parts.push('', intro!, ...lines.map((l) => `  ${l}`), ...(doc.perHunk.skipped ? [] : ['', `${t.caption}:`, ...table([t.headers, ...t.rows]).map((l) => `  ${l}`)]));
  }
  if (doc.perCommit) {
    const [intro, ...lines] = perCommitSentences(doc.perCommit);
    const t = perCommitTable(doc.perCommit);
    parts.push('', intro!, ...lines.map((l) => `  ${l}`), ...(doc.perCommit.commits.length < 2 ? [] : ['', `${t.caption}:`, ...table([t.headers, ...t.rows]).map((l) => `  ${l}`)]));
  }
  parts.push('', ...kernelSentences(doc), ...patchSentences(doc));
  parts.push('', stepsSentence(doc), '', 'Reproduce (the trial, then each part by hand):');
  for (const r of reproduceLines(doc, ctx.reproduce)) parts.push(...(r.note ? [`  # ${r.note}`] : []), `  ${r.line}`);
  return `${parts.join('\n')}\n`;
}
