/**
 * The JSON report: a versioned document holding every number of the
 * Comparison, with the unit in every field name (`meanNsPerCall`,
 * `changeInstructionsPerCall`), so a number read out of context still says
 * what it counts.
 *
 * Format history (JSON_REPORT_VERSION):
 *   1: first version; `comparison` is the Comparison (src/compare/types.ts,
 *      schema `comparisonSchema`) with each `...InUnit` field renamed to the
 *      unit's suffix. Later, without a version change (optional fields
 *      added, existing ones unchanged): `codegen` (with --codegen) and
 *      `hints` (with --hints), each naming its `source` file.
 *   2: the comparison is schema 3: units of replication (processes, boots,
 *      invocations) decide the verdicts; `power.roundsNeeded` became
 *      `power.unitsNeeded`; verdicts include 'insufficient units' and, for
 *      instruction counts, 'fewer instructions'/'more instructions'.
 *   3: the comparison is schema 6: `comparison.design` says which design
 *      the verdicts rest on; `Contrast.test`/`rank` replace `welch`/
 *      `mannWhitney`; paired designs carry `pairs`; `power.advice`.
 *      Later, without a version change (fields added): the comparison is
 *      schema 7, with the clock of the runs and the design's processes
 *      per side and CPUs, and `facts` gains `Clock`.
 */
import { lkmlSummary } from '../codegen/render.ts';
import type { Cell, FunctionDelta } from '../codegen/types.ts';
import type { Comparison } from '../compare/types.ts';
import { environmentFacts } from './facts.ts';
import { unitWords } from '../format/units.ts';
import { codegenSubjectText, hintText, type LoadedCodegen, type LoadedHints, patchRows, reproduceAll } from './patch-evidence.ts';
import type { ReportContext } from './reporter.ts';

export const JSON_REPORT_FORMAT = 'hintlab-report';
export const JSON_REPORT_VERSION = 3;

/**
 * Rename every `xInUnit` key to `x<Suffix>` (e.g. `meanInUnit` ->
 * `meanNsPerCall`), recursively. Only keys change; every value is kept.
 */
export function renameUnitFields(value: unknown, suffix: string): unknown {
  if (Array.isArray(value)) return value.map((v) => renameUnitFields(v, suffix));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.endsWith('InUnit') ? `${k.slice(0, -'InUnit'.length)}${suffix}` : k, renameUnitFields(v, suffix)]),
  );
}

/**
 * JSON cannot hold NaN or Infinity (JSON.stringify would silently write
 * null): write them as strings so a reader sees the value was not finite.
 */
export function finiteOrText(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
}

/** A cell without its identical functions (counted instead) and without the asm diffs (in the codegen file). */
function cellJson(cell: Cell): unknown {
  if (cell.state !== 'compared') return cell;
  const { functions, ...rest } = cell;
  return {
    ...rest,
    identicalFunctions: functions.filter((f) => f.class === 'identical').length,
    functions: functions.filter((f) => f.class !== 'identical').map(withoutDiff),
  };
}

function withoutDiff(f: FunctionDelta): unknown {
  if (f.class !== 'layout' && f.class !== 'changed' && f.class !== 'padding') return f;
  const { diff: _diff, ...rest } = f;
  return rest;
}

/** The codegen effect: the summary sentence and every function that is not identical. */
function codegenJson({ file, result }: LoadedCodegen): unknown {
  return {
    source: file,
    schema: result.schema,
    subject: result.subject,
    object: codegenSubjectText(result),
    summary: lkmlSummary(result),
    notes: result.notes,
    cells: result.cells.map(cellJson),
  };
}

/** The branch evidence: every row the hint patch changes, most executed first, with its counts. */
function hintsJson({ file, doc }: LoadedHints): unknown {
  const rows = patchRows(doc);
  return {
    source: file,
    format: doc.format,
    version: doc.version,
    generatedBy: doc.generatedBy,
    mode: doc.mode,
    thresholds: doc.thresholds,
    workloads: doc.workloads.map((w) => w.name),
    otherRows: doc.rows.length - rows.length,
    rows: rows.map((r) => ({
      file: r.file,
      line: r.line,
      function: r.function,
      condition: r.condition,
      hint: hintText(r),
      executions: r.executions,
      thenCount: r.thenCount,
      thenPct: r.executions === null || r.thenCount === null || r.executions === 0 ? null : (100 * r.thenCount) / r.executions,
      confidence: r.confidence,
      evidence: r.evidence,
      verdict: r.verdict,
    })),
  };
}

/** Render a Comparison as the versioned JSON document. */
export function jsonReport(c: Comparison, ctx: ReportContext): string {
  const words = unitWords(c.unit);
  const doc = {
    format: JSON_REPORT_FORMAT,
    version: JSON_REPORT_VERSION,
    generatedAt: ctx.generatedAt,
    hintlabVersion: ctx.hintlabVersion,
    comparisonSchema: c.schema,
    unit: c.unit,
    unitFieldSuffix: words.fieldSuffix,
    direction: c.direction,
    facts: environmentFacts(c),
    reproduce: reproduceAll(c, ctx.evidence, ctx.reproduce),
    comparison: renameUnitFields(c, words.fieldSuffix),
    ...(ctx.evidence?.codegen ? { codegen: codegenJson(ctx.evidence.codegen) } : {}),
    ...(ctx.evidence?.hints ? { hints: hintsJson(ctx.evidence.hints) } : {}),
  };
  return `${JSON.stringify(doc, finiteOrText, 2)}\n`;
}
