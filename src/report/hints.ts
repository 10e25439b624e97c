/**
 * Text and JSON renderings of a hints result. Reporters return strings;
 * the CLI decides where they go.
 */
import type { HintsResult } from '../hints/analyze.ts';
import { HINTS_JSON_VERSION } from '../hints/document.ts';
import type { HintRow, Verdict } from '../hints/verdict.ts';
import { formatSharePct } from '../format/percent.ts';
import { alignColumns } from '../format/columns.ts';
import { fixed } from '../format/numbers.ts';
import type { ExactLayout, PlacedJump } from '../hints/exact.ts';

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

/** "already", or "changes: jumps 1.00/run" (taken jumps on the common path per run of the common side). */
function layoutText(layout: ExactLayout | null): string {
  if (!layout) return '-';
  return layout.verdict === 'already' ? 'already' : `changes: jumps ${fixed(layout.takenPerCommon, 2)}/run`;
}

interface Extra {
  profiler: boolean;
  layout: boolean;
}

function rowCells(row: HintRow, extra: Extra = { profiler: false, layout: false }): string[] {
  if (extra.profiler || extra.layout) {
    return [...rowCells(row), ...(extra.profiler ? [profilerText(row)] : []), ...(extra.layout ? [layoutText(row.layout)] : [])];
  }
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
  const extra: Extra = { profiler: result.profilerChecks, layout: result.rows.some((r) => r.layout !== null) };
  if (result.mode === 'static') {
    // No profile, no counts: the executions, then and workloads columns would only hold '-'.
    out += proposals.length ? table(STATIC_HEADER, proposals.map((r) => rowCells(r).filter((_, i) => STATIC_COLUMNS.includes(i))), new Set()) : '(none)\n';
    return `${out}\n${summaryLine(result)}\n`;
  }
  const header = [...HEADER, ...(extra.profiler ? ['profiler'] : []), ...(extra.layout ? ['layout'] : [])];
  const cells = (r: HintRow): string[] => rowCells(r, extra);
  out += proposals.length ? table(header, proposals.map(cells), right) : '(none)\n';
  out += jumpsBlock(proposals.filter((r) => r.layout?.verdict === 'changes'), 'Proposals whose common path jumps today: the jumps a hint would flip');
  out += `\nAnnotations the profile contradicts\n`;
  const withLayout = extra.layout ? ['layout'] : [];
  out += contradicted.length
    ? table(
        [...HEADER, 'annotation holds', ...withLayout],
        contradicted.map((r) => [...rowCells(r), r.verdict.kind === 'contradicted' ? formatSharePct(r.verdict.claimedShare) : '', ...(extra.layout ? [layoutText(r.layout)] : [])]),
        right,
      )
    : '(none)\n';
  if (extra.layout) out += auditBlock(result.rows);
  out += `\nSkipped (run >= ${result.thresholds.minHits} times)\n`;
  out += skipped.length ? table(header, skipped.map(cells), right) : '(none)\n';
  out += `\n${summaryLine(result)}\n`;
  return out;
}

/** "kernel/sched/syscalls.c:1161 sched_getattr+0x2c jne ffffffff81123456: taken 0, fell 1000 (taken: then, fell: else)". */
function jumpLine(p: PlacedJump, file: string): string {
  const j = p.jump;
  const insn = j.insn ? ` ${j.insn}` : '';
  return `    ${file}:${p.line} ${j.function}+0x${j.offset.toString(16)}${insn}: taken ${j.taken} (to ${p.taken}), fell through ${j.fell} (to ${p.fell})`;
}

/** Rows with their compiled jumps under them; empty when there are none. */
function jumpsBlock(rows: HintRow[], title: string): string {
  if (rows.length === 0) return '';
  const shown = rows.slice(0, JUMP_ROWS);
  const lines = shown.flatMap((r) => [
    `  ${r.site.file}:${r.site.line} ${r.site.fn || '-'} (${proposalText(r.verdict)}, common side ${r.layout?.common ?? '-'})`,
    ...(r.layout?.jumps ?? []).map((p) => jumpLine(p, r.site.file)),
  ]);
  if (rows.length > shown.length) lines.push(`  and ${rows.length - shown.length} more, less executed (--format json has every jump)`);
  return `\n${title}\n${lines.join('\n')}\n`;
}

/** Rows whose jumps the table lists, most executed first: the rest are in the JSON. */
const JUMP_ROWS = 20;

/** The audit of the hints already in the source: annotations the compiled code lays out with a jump on the side that runs most. */
function auditBlock(rows: HintRow[]): string {
  const jumping = rows.filter((r) => r.site.annotation.kind === 'whole' && r.verdict.kind === 'skip' && r.layout?.verdict === 'changes');
  const title = 'Annotations the profile agrees with, whose compiled common path still jumps';
  return jumping.length ? jumpsBlock(jumping, title) : `\n${title}\n(none)\n`;
}

/** How the proposals and annotations of a branch set are laid out in the kernel as built. */
function layoutSummary(rows: HintRow[]): string {
  const laid = rows.filter((r) => r.verdict.kind === 'propose' && r.layout);
  const changes = laid.filter((r) => r.layout?.verdict === 'changes').length;
  const audited = rows.filter((r) => r.site.annotation.kind === 'whole' && r.layout);
  const jumping = audited.filter((r) => r.layout?.verdict === 'changes').length;
  return `compiled layout of ${laid.length} proposals: ${laid.length - changes} already fall through on the common path, ${changes} jump there; ${jumping} of ${audited.length} annotated ifs jump on their common path`;
}

/** The first few names, then how many more. */
function fewNames(names: string[], shown = 3): string {
  const head = names.slice(0, shown).join(', ');
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}

/** How the proposals counted from gcov or from compiled jumps fared against the branch profiler. */
function profilerSummary(rows: HintRow[]): string {
  const checked = rows.filter((r) => r.profilerCheck);
  const checks = checked.map((r) => r.profilerCheck?.agreement);
  const n = (a: string): number => checks.filter((c) => c === a).length;
  const unchecked = rows.filter((r) => r.verdict.kind === 'propose' && !r.profilerCheck && r.confidence !== 'profiler').length;
  const exact = checked.filter((r) => r.evidence.some((e) => e.confidence === 'exact')).length;
  const what = exact === 0 ? 'gcov-derived proposals' : exact === checked.length ? 'proposals from compiled jumps' : 'proposals from gcov or compiled jumps';
  return `branch profiler on ${checks.length} ${what}: ${n('agrees')} agree, ${n('weaker')} same direction under the bias, ${n('disagrees')} disagree (skipped); ${unchecked} without a profiler row`;
}

function summaryLine(result: HintsResult): string {
  const files = result.sources.length;
  const parts = [`${result.sitesTotal} ifs in ${files} files`];
  if (result.mode === 'profile') {
    const q = result.quiet;
    // a branch set sees jumps only: an `if` compiled without one (cmov, setcc) looks unreached
    const unreached = result.workloads.some((w) => w.exact) ? 'not reached or compiled without a jump' : 'not reached';
    parts.push(`${q.balanced} balanced`, `${q.fewExecutions} under min-hits`, `${q.notReached} ${unreached}`);
    if (result.profilerChecks) parts.push(profilerSummary(result.rows));
    if (result.rows.some((r) => r.layout !== null)) parts.push(layoutSummary(result.rows));
    if (result.unmatched.length) parts.push(`${result.unmatched.length} profiler rows unmatched (see --format json)`);
    const missing = [...new Set(result.workloads.flatMap((w) => w.missing))];
    if (missing.length) parts.push(`${missing.length} profiled files missing in the source tree, ignored (is --src the profiled tree?): ${fewNames(missing)}`);
    const outside = [...new Set(result.workloads.flatMap((w) => w.outside))];
    if (outside.length) parts.push(`${outside.length} profiled files outside the source tree ignored: ${fewNames(outside)}`);
  }
  if (result.macroIfs.length) parts.push(`${result.macroIfs.length} ifs inside #define bodies not analysed`);
  return parts.join('; ');
}

/** A row's layout as JSON: addresses in hex, each jump with where its two ways lead. */
function layoutJson(l: ExactLayout): object {
  return {
    verdict: l.verdict,
    common: l.common,
    takenPerCommon: l.takenPerCommon,
    jumps: l.jumps.map((p) => ({
      addr: p.jump.addr.toString(16),
      function: p.jump.function,
      offset: p.jump.offset,
      insn: p.jump.insn,
      line: p.line,
      taken: p.jump.taken,
      fell: p.jump.fell,
      takenTo: p.taken,
      fellTo: p.fell,
    })),
  };
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
      layout: r.layout ? layoutJson(r.layout) : null,
    })),
    quiet: result.quiet,
    sitesTotal: result.sitesTotal,
    macroIfs: result.macroIfs,
    unmatchedProfilerRows: result.unmatched.map((u) => ({ source: u.source, ...u.row, reason: u.reason })),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
