/**
 * The JSON report: a versioned document holding every number of the
 * Comparison, with the unit in every field name (`meanNsPerCall`,
 * `changeInstructionsPerCall`), so a number read out of context still says
 * what it counts.
 *
 * Format history (JSON_REPORT_VERSION):
 *   1: first version; `comparison` is the Comparison (src/compare/types.ts,
 *      schema `comparisonSchema`) with each `...InUnit` field renamed to the
 *      unit's suffix.
 */
import type { Comparison } from '../compare/types.ts';
import { environmentFacts, reproduceCommands } from './facts.ts';
import { unitWords } from './format.ts';
import type { ReportContext } from './reporter.ts';

export const JSON_REPORT_FORMAT = 'hintlab-report';
export const JSON_REPORT_VERSION = 1;

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
function finiteOrText(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? String(value) : value;
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
    reproduce: reproduceCommands(c),
    comparison: renameUnitFields(c, words.fieldSuffix),
  };
  return `${JSON.stringify(doc, finiteOrText, 2)}\n`;
}
