/**
 * A hint patch's evidence next to its measured effect: the codegen effect
 * (`hintlab codegen --json`, given with --codegen) and the branch counts
 * behind the hints (`hintlab hints --format json`, given with --hints), as
 * sentences and tables every report format shares. Pure functions of the
 * loaded documents; the CLI reads and checks the files.
 */
import { basename } from 'node:path';
import { cellTitle, deltaText, lkmlSummary, touchedFunctions } from '../codegen/render.ts';
import type { Cell, CodegenResult } from '../codegen/types.ts';
import type { Comparison } from '../compare/types.ts';
import type { DocumentLayout, HintsDocument, HintsDocumentRow } from '../hints/document.ts';
import { formatSharePct } from '../format/percent.ts';
import { fixed, roundTo } from '../format/numbers.ts';
import { shellWord } from '../shell.ts';
import { type ReproduceContext, reproduceCommands } from './reproduce.ts';
import type { Table } from './tables.ts';

/** A checked `hintlab codegen --json` document and the file it came from. */
export interface LoadedCodegen {
  file: string;
  result: CodegenResult;
}

/** A checked `hintlab hints --format json` document and the file it came from. */
export interface LoadedHints {
  file: string;
  doc: HintsDocument;
}

/** What a report shows beside the comparison; both parts are optional. */
export interface PatchDocuments {
  codegen?: LoadedCodegen;
  hints?: LoadedHints;
}

/** Branch lines in the mailing-list report: a reply stays short. */
export const LKML_BRANCH_ROWS = 5;
/** Branch rows in the text, Markdown and HTML tables (the JSON report holds all). */
export const TABLE_BRANCH_ROWS = 20;

/**
 * The rows a hint patch changes (`hintlab hints --format patch` edits
 * exactly these): proposals, and contradicted annotations with a fix. Most
 * executed first; static candidates (no counts) keep their order after them.
 */
export function patchRows(doc: HintsDocument): HintsDocumentRow[] {
  const edits = doc.rows.filter((r) => r.verdict.kind === 'propose' || (r.verdict.kind === 'contradicted' && r.verdict.fix !== null));
  return edits
    .map((row, i) => ({ row, i }))
    .sort((a, b) => (b.row.executions ?? -1) - (a.row.executions ?? -1) || a.i - b.i)
    .map((x) => x.row);
}

/** "unlikely()", or "likely() -> unlikely()" for a contradicted annotation. */
export function hintText(row: HintsDocumentRow): string {
  const v = row.verdict;
  if (v.kind === 'propose') return `${v.hint}()`;
  if (v.kind === 'contradicted') return v.fix ? `${v.macro}() -> ${v.fix}()` : `${v.macro}() contradicted`;
  return v.kind;
}

/** "0.10 %", "<0.01 %": the hints table's shares, spaced like every other report figure. */
function share(thenCount: number, executions: number): string {
  return formatSharePct(thenCount / executions).replace('%', ' %');
}

/** "then-branch 100 of 2100000 executions (<0.01 %)", or "no profile". */
export function countsText(row: HintsDocumentRow): string {
  if (row.executions === null || row.thenCount === null) return 'no profile';
  if (row.executions === 0) return 'never executed';
  return `then-branch ${row.thenCount} of ${row.executions} executions (${share(row.thenCount, row.executions)})`;
}

/** "fs/select.c:635 core_sys_select": where the `if` is. */
export function siteText(row: HintsDocumentRow): string {
  return `${row.file}:${row.line}${row.function ? ` ${row.function}` : ''}`;
}

/** "then-branch 0 of 2000 executions (0.00 %), unlikely() (lines)", with the workload count when there are several. */
export function branchClaim(row: HintsDocumentRow): string {
  const reached = row.evidence.filter((e) => e.executions > 0).length;
  const how = reached > 1 ? `${row.confidence}, ${reached} workloads` : row.confidence;
  return `${countsText(row)}, ${hintText(row)} (${how})${row.layout ? `; ${layoutWords(row.layout)}` : ''}`;
}

/** "compiled code already falls through on the common path", or how often it jumps there. */
export function layoutWords(l: DocumentLayout): string {
  if (l.verdict === 'already') return 'the compiled code already falls through on the common path';
  return `the compiled common path jumps (${fixed(l.takenPerCommon, 2)} taken per run)`;
}

/** "%g"-like percent of a share for thresholds: 0.99 -> "99", 0.995 -> "99.5". */
function thresholdPct(share: number): string {
  return String(roundTo(share * 100, 2));
}

/** What the evidence is: "Branch evidence (workloads small, large; a hint needs ...)". */
export function branchHeading(doc: HintsDocument): string {
  if (doc.mode === 'static') return 'Branch evidence: no profile, heuristic candidates (early error exits in syscall implementations)';
  const t = doc.thresholds;
  const names = doc.workloads.map((w) => w.name);
  const who = `${names.length === 1 ? 'workload' : 'workloads'} ${names.join(', ')}`;
  return `Branch evidence (${who}; a hint needs one way in >= ${thresholdPct(t.minBias)} % of >= ${t.minHits} executions)`;
}

/** Said instead of the list when the hints document proposes nothing. */
export function noHintsText(doc: HintsDocument): string {
  const n = doc.rows.length;
  return `no proposal or fix among the ${n} listed ${n === 1 ? 'if' : 'ifs'}`;
}

/** "and 2 more (all in hints.json)" when rows were left out. */
export function moreText(total: number, shown: number, file: string): string | undefined {
  return total > shown ? `and ${total - shown} more (all in ${file})` : undefined;
}

/** What was compiled: the kernel object, or the two C files. */
export function codegenSubjectText(r: CodegenResult): string {
  const s = r.subject;
  return s.kind === 'kernel' ? s.object : `${basename(s.before)} -> ${basename(s.after)}`;
}

/** "Code generation (mm/mincore.o): gcc 12.2 -O2: ... ; -Os: identical." */
export function codegenSentence(r: CodegenResult): string {
  return `Code generation (${codegenSubjectText(r)}): ${lkmlSummary(r)}`;
}

/**
 * The `hintlab codegen` command that wrote the document: every input is
 * recorded in it (files or tree, patch, object, config, compilers, levels),
 * so the command is exact.
 */
export function codegenCommand({ file, result }: LoadedCodegen): string {
  const s = result.subject;
  const words =
    s.kind === 'files'
      ? ['--before', s.before, '--after', s.after, ...(s.cflags.length > 0 ? ['--cflags', s.cflags.join(' ')] : [])]
      : ['--src', s.tree, '--patch', s.patch, '--obj', s.object, ...(s.config.kind === 'file' ? ['--config', s.config.path] : [])];
  const unique = (xs: string[]): string => [...new Set(xs)].join(',');
  const compilers = unique(result.cells.map((c) => (c.state === 'skipped' ? c.compilerCommand : c.compiler.command)));
  const levels = unique(result.cells.map((c) => c.opt));
  return ['hintlab codegen', ...[...words, '--cc', compilers, '--opt', levels].map(shellWord), '--json', '>', shellWord(file)].join(' ');
}

/**
 * The commands that reproduce the report: the runs and the comparison, then
 * the codegen document. (A hints document does not record its command
 * line: its profile files may have come from directories, and its --path
 * limits are not kept, so no command is guessed for it.)
 */
export function reproduceAll(c: Comparison, evidence: PatchDocuments = {}, reproduce?: ReproduceContext): string[] {
  return [...reproduceCommands(c, reproduce), ...(evidence.codegen === undefined ? [] : [codegenCommand(evidence.codegen)])];
}

function codegenCell(cell: Cell, name: string): string {
  if (cell.state === 'skipped') return 'not installed';
  if (cell.state === 'failed') return 'did not build';
  return deltaText(cell.functions.find((f) => f.name === name));
}

/** Function x (compiler, level): identical, layout, changed +N insn +M B... */
export function codegenTable(r: CodegenResult): Table {
  const touched = touchedFunctions(r.cells);
  const rows =
    touched.length > 0
      ? touched.map((name) => [name, ...r.cells.map((c) => codegenCell(c, name))])
      : [['every function', ...r.cells.map((c) => (c.state === 'compared' ? 'identical' : codegenCell(c, '')))]];
  return {
    id: 'codegen',
    caption: `Object code of ${codegenSubjectText(r)} after the patch, per compiler and level (hintlab codegen)`,
    headers: ['Function', ...r.cells.map(cellTitle)],
    rows,
    numeric: [],
  };
}

/** Per workload executions: "small 100000, large 2000000". */
function workloadsText(row: HintsDocumentRow): string {
  return row.evidence.length === 0 ? '-' : row.evidence.map((e) => `${e.workload} ${e.executions}`).join(', ');
}

/** The hint patch's rows, most executed first, at most `limit`. */
export function branchTable(loaded: LoadedHints, limit: number): Table {
  const all = patchRows(loaded.doc);
  const rows = all.slice(0, limit);
  const part = all.length > rows.length ? `: the ${rows.length} most executed of ${all.length} (all in ${loaded.file})` : '';
  const laid = rows.some((r) => r.layout !== null);
  return {
    id: 'branches',
    caption: `Branch counts behind the hints (hintlab hints)${part}`,
    headers: ['Site', 'Function', 'Executions', 'Then-branch', 'Hint', 'Confidence', 'Per workload', ...(laid ? ['Compiled layout'] : [])],
    rows: rows.map((r) => [
      `${r.file}:${r.line}`,
      r.function || '-',
      r.executions === null ? '-' : String(r.executions),
      r.executions === null || r.thenCount === null || r.executions === 0 ? '-' : `${r.thenCount} (${share(r.thenCount, r.executions)})`,
      hintText(r),
      r.confidence,
      workloadsText(r),
      ...(laid ? [r.layout ? (r.layout.verdict === 'already' ? 'already falls through' : `jumps ${fixed(r.layout.takenPerCommon, 2)}/run`) : '-'] : []),
    ]),
    numeric: [2, 3],
  };
}
