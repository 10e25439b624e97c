/**
 * Text and JSON renderings of a hints result. Reporters return strings;
 * the CLI decides where they go.
 */
import type { HintsResult } from './analyze.ts';
import type { HintRow, Verdict } from './verdict.ts';
import { formatSharePct } from '../format/percent.ts';
import { alignColumns } from '../format/columns.ts';

/**
 * JSON format version. History:
 * 1 - first version: rows with site, counts, evidence per workload, verdict;
 *     later, additively: confidence `none` and `uncounted` (workloads without a direction).
 */
export const HINTS_JSON_VERSION = 1;

function proposalText(v: Verdict): string {
  switch (v.kind) {
    case 'propose':
      return v.hint;
    case 'contradicted':
      return v.fix ? `${v.macro}->${v.fix}` : `${v.macro}? wrong`;
    case 'skip':
      return `skip: ${v.reason}`;
    case 'quiet':
      return v.reason;
  }
}

/** Executions per workload; `?` marks a workload whose counts gave no direction. */
function workloadsText(row: HintRow): string {
  const parts = [
    ...row.evidence.map((e) => `${e.workload}:${e.executions}`),
    ...row.uncounted.map((u) => `${u.workload}:${u.executions}?`),
  ];
  return parts.length ? parts.join(' ') : '-';
}

function thenText(row: HintRow): string {
  if (row.executions === null || row.thenCount === null || row.executions === 0) return '-';
  return formatSharePct(row.thenCount / row.executions);
}

function table(header: string[], body: string[][], rightAligned: Set<number>): string {
  return alignColumns([header, ...body], (i) => rightAligned.has(i)).join('\n') + '\n';
}

const HEADER = ['file:line', 'function', 'executions', 'then', 'proposal', 'confidence', 'workloads'];
/** The columns a static (profile-less) table keeps: file:line, function, proposal, confidence. */
const STATIC_COLUMNS = [0, 1, 4, 5];
const STATIC_HEADER = STATIC_COLUMNS.map((i) => HEADER[i]!);

/** What the branch profiler says of a gcov-derived proposal (column `profiler`). */
function profilerText(row: HintRow): string {
  const c = row.profilerCheck;
  if (!c) return row.confidence === 'profiler' ? 'source' : '-';
  return c.agreement === 'agrees' ? 'agrees' : `${c.agreement} ${formatSharePct(c.thenCount / c.executions)}`;
}

function rowCells(row: HintRow, withProfiler = false): string[] {
  if (withProfiler) return [...rowCells(row), profilerText(row)];
  return [
    `${row.site.file}:${row.site.line}`,
    row.site.fn || '-',
    row.executions === null ? '-' : String(row.executions),
    thenText(row),
    proposalText(row.verdict),
    row.confidence,
    workloadsText(row),
  ];
}

/** The terminal report: proposals, contradicted annotations, skipped hot `if`s, then a summary. */
export function formatTable(result: HintsResult): string {
  const proposals = result.rows.filter((r) => r.verdict.kind === 'propose');
  const contradicted = result.rows.filter((r) => r.verdict.kind === 'contradicted');
  const skipped = result.rows.filter((r) => r.verdict.kind === 'skip');
  const right = new Set([2, 3]);
  let out = '';
  const bias = result.thresholds.minBias;
  if (result.mode === 'static') {
    out += `Heuristic candidates (no profile): early error exits in syscall implementations\n`;
  } else {
    out += `Proposals (then-branch in >= ${formatSharePct(bias)} or <= ${formatSharePct(1 - bias)} of >= ${result.thresholds.minHits} executions, every workload agreeing)\n`;
  }
  const checked = result.profilerChecks;
  if (result.mode === 'static') {
    // No profile, no counts: the executions, then and workloads columns would only hold '-'.
    out += proposals.length ? table(STATIC_HEADER, proposals.map((r) => rowCells(r).filter((_, i) => STATIC_COLUMNS.includes(i))), new Set()) : '(none)\n';
    return `${out}\n${summaryLine(result)}\n`;
  }
  const header = checked ? [...HEADER, 'profiler'] : HEADER;
  const cells = (r: HintRow): string[] => rowCells(r, checked);
  out += proposals.length ? table(header, proposals.map(cells), right) : '(none)\n';
  out += `\nAnnotations the profile contradicts\n`;
  out += contradicted.length
    ? table(
        [...HEADER, 'annotation holds'],
        contradicted.map((r) => [...rowCells(r), r.verdict.kind === 'contradicted' ? formatSharePct(r.verdict.claimedShare) : '']),
        right,
      )
    : '(none)\n';
  out += `\nSkipped (run >= ${result.thresholds.minHits} times)\n`;
  out += skipped.length ? table(header, skipped.map(cells), right) : '(none)\n';
  out += `\n${summaryLine(result)}\n`;
  return out;
}

/** The first few names, then how many more. */
function fewNames(names: string[], shown = 3): string {
  const head = names.slice(0, shown).join(', ');
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}

/** How the gcov-derived proposals fared against the branch profiler. */
function profilerSummary(rows: HintRow[]): string {
  const checks = rows.flatMap((r) => (r.profilerCheck ? [r.profilerCheck.agreement] : []));
  const n = (a: string): number => checks.filter((c) => c === a).length;
  const unchecked = rows.filter((r) => r.verdict.kind === 'propose' && !r.profilerCheck && r.confidence !== 'profiler').length;
  return `branch profiler on ${checks.length} gcov-derived proposals: ${n('agrees')} agree, ${n('weaker')} same direction under the bias, ${n('disagrees')} disagree (skipped); ${unchecked} without a profiler row`;
}

function summaryLine(result: HintsResult): string {
  const files = result.sources.length;
  const parts = [`${result.sitesTotal} ifs in ${files} files`];
  if (result.mode === 'profile') {
    const q = result.quiet;
    parts.push(`${q.balanced} balanced`, `${q.fewExecutions} under min-hits`, `${q.notReached} not reached`);
    if (result.profilerChecks) parts.push(profilerSummary(result.rows));
    if (result.unmatched.length) parts.push(`${result.unmatched.length} profiler rows unmatched (see --format json)`);
    const missing = [...new Set(result.workloads.flatMap((w) => w.missing))];
    if (missing.length) parts.push(`${missing.length} profiled files missing in the source tree, ignored (is --src the profiled tree?): ${fewNames(missing)}`);
    const outside = [...new Set(result.workloads.flatMap((w) => w.outside))];
    if (outside.length) parts.push(`${outside.length} profiled files outside the source tree ignored: ${fewNames(outside)}`);
  }
  if (result.macroIfs.length) parts.push(`${result.macroIfs.length} ifs inside #define bodies not analysed`);
  return parts.join('; ');
}

/** The versioned JSON document: everything a later report needs to show a hint's evidence. */
export function formatJson(result: HintsResult, generatedBy: string): string {
  const doc = {
    format: 'hintlab-hints',
    version: HINTS_JSON_VERSION,
    generatedBy,
    mode: result.mode,
    root: result.root,
    thresholds: result.thresholds,
    workloads: result.workloads.map((w) => ({ name: w.name, files: w.files, outsideSourceTree: w.outside, missingInSourceTree: w.missing })),
    sources: result.sources,
    rows: result.rows.map((r) => ({
      file: r.site.file,
      line: r.site.line,
      function: r.site.fn,
      condition: r.site.condition,
      annotation: r.site.annotation.kind === 'none' ? null : r.site.annotation.macro,
      executions: r.executions,
      thenCount: r.thenCount,
      confidence: r.confidence,
      methods: r.methods,
      evidence: r.evidence,
      uncounted: r.uncounted,
      verdict: r.verdict,
      profilerCheck: r.profilerCheck,
    })),
    quiet: result.quiet,
    sitesTotal: result.sitesTotal,
    macroIfs: result.macroIfs,
    unmatchedProfilerRows: result.unmatched.map((u) => ({ source: u.source, ...u.row, reason: u.reason })),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
