/**
 * Reading back what `hintlab hints --format json` wrote (src/report/hints.ts
 * `formatJson`, format 'hintlab-hints', version HINTS_JSON_VERSION), so a
 * report can show a hint patch's evidence. The rows' fields are checked;
 * the document's bookkeeping (sources, #define ifs, unmatched profiler rows)
 * is carried through without looking inside.
 */
import { checkDocument, count, each, oneOf, record, ShapeError, string, strings, type JsonRecord } from '../json-shape.ts';
import type { Confidence, Evidence } from './types.ts';
import type { Hint, SkipKind, Thresholds, Verdict } from './verdict.ts';

export const HINTS_JSON_FORMAT = 'hintlab-hints';

/**
 * JSON format version. History:
 * 1 - first version: rows with site, counts, evidence per workload, verdict;
 *     later, additively: confidence `none` and `uncounted` (workloads without a direction);
 *     confidence `exact` and `layout` (the compiled jumps of a branch set).
 */
export const HINTS_JSON_VERSION = 1;

/** One row of the document: an `if` with its counts and verdict. */
export interface HintsDocumentRow {
  file: string;
  line: number;
  function: string;
  condition: string;
  /** The existing annotation's macro (`likely`, `__builtin_expect`), or null. */
  annotation: string | null;
  /** Summed over workloads; null for static (profile-less) candidates. */
  executions: number | null;
  thenCount: number | null;
  confidence: Confidence;
  methods: string[];
  evidence: Evidence[];
  verdict: Verdict;
  /** The compiled layout from a branch set (hints --exact); null without one. */
  layout: DocumentLayout | null;
}

/** A row's compiled layout as the document keeps it (the jumps stay in the file). */
export interface DocumentLayout {
  verdict: 'already' | 'changes';
  common: 'then' | 'else';
  takenPerCommon: number;
}

export interface HintsDocument {
  format: typeof HINTS_JSON_FORMAT;
  version: typeof HINTS_JSON_VERSION;
  generatedBy: string;
  mode: 'profile' | 'static';
  root: string;
  thresholds: Thresholds;
  workloads: { name: string; files: string[] }[];
  /** Hottest first, as `hintlab hints` ranked them. */
  rows: HintsDocumentRow[];
}

const WHAT = 'a hintlab hints --format json document';
const FIX = 'write one with `hintlab hints ... --format json > FILE`';
const HINTS: readonly Hint[] = ['likely', 'unlikely'];
const CONFIDENCES: readonly Confidence[] = ['profiler', 'exact', 'lines', 'flow', 'arcs', 'heuristic', 'none'];
const SKIPS: readonly SkipKind[] = ['parse-error', 'compile-time', 'partial-annotation', 'already-annotated', 'workloads-disagree', 'direction-unknown', 'profiler-disagrees', 'layout-already'];

const nullableCount = (v: unknown, where: string): number | null => (v === null ? null : count(v, where));

function verdict(v: unknown, where: string): Verdict {
  const r = record(v, where);
  const kind = oneOf(r.kind, ['propose', 'contradicted', 'skip', 'quiet'] as const, `${where}.kind`);
  switch (kind) {
    case 'propose':
      return { kind, hint: oneOf(r.hint, HINTS, `${where}.hint`) };
    case 'contradicted':
      return {
        kind,
        claimed: oneOf(r.claimed, HINTS, `${where}.claimed`),
        macro: string(r.macro, `${where}.macro`),
        claimedShare: count(r.claimedShare, `${where}.claimedShare`),
        fix: r.fix === null ? null : oneOf(r.fix, HINTS, `${where}.fix`),
      };
    case 'skip':
      return { kind, reason: oneOf(r.reason, SKIPS, `${where}.reason`), detail: string(r.detail, `${where}.detail`) };
    case 'quiet':
      return { kind, reason: oneOf(r.reason, ['balanced', 'few-executions', 'not-reached'] as const, `${where}.reason`) };
  }
}

function evidence(v: unknown, where: string): Evidence {
  const r = record(v, where);
  return {
    workload: string(r.workload, `${where}.workload`),
    executions: count(r.executions, `${where}.executions`),
    thenCount: count(r.thenCount, `${where}.thenCount`),
    confidence: oneOf(r.confidence, ['profiler', 'exact', 'lines', 'flow', 'arcs'] as const, `${where}.confidence`),
  };
}

function row(v: unknown, where: string): HintsDocumentRow {
  const r = record(v, where);
  return {
    file: string(r.file, `${where}.file`),
    line: count(r.line, `${where}.line`),
    function: string(r.function, `${where}.function`),
    condition: string(r.condition, `${where}.condition`),
    annotation: r.annotation === null ? null : string(r.annotation, `${where}.annotation`),
    executions: nullableCount(r.executions, `${where}.executions`),
    thenCount: nullableCount(r.thenCount, `${where}.thenCount`),
    confidence: oneOf(r.confidence, CONFIDENCES, `${where}.confidence`),
    methods: strings(r.methods, `${where}.methods`),
    evidence: each(r.evidence, `${where}.evidence`, evidence),
    verdict: verdict(r.verdict, `${where}.verdict`),
    layout: r.layout === undefined || r.layout === null ? null : layout(r.layout, `${where}.layout`),
  };
}

function layout(v: unknown, where: string): DocumentLayout {
  const r = record(v, where);
  return {
    verdict: oneOf(r.verdict, ['already', 'changes'] as const, `${where}.verdict`),
    common: oneOf(r.common, ['then', 'else'] as const, `${where}.common`),
    takenPerCommon: count(r.takenPerCommon, `${where}.takenPerCommon`),
  };
}

function document(doc: JsonRecord): HintsDocument {
  if (doc.format !== HINTS_JSON_FORMAT) {
    throw new ShapeError('format', `expected '${HINTS_JSON_FORMAT}', got ${JSON.stringify(doc.format) || 'nothing'}`);
  }
  if (doc.version !== HINTS_JSON_VERSION) {
    throw new ShapeError('version', `expected ${HINTS_JSON_VERSION}, got ${JSON.stringify(doc.version) || 'nothing'}`);
  }
  const thresholds = record(doc.thresholds, 'thresholds');
  return {
    format: HINTS_JSON_FORMAT,
    version: HINTS_JSON_VERSION,
    generatedBy: string(doc.generatedBy, 'generatedBy'),
    mode: oneOf(doc.mode, ['profile', 'static'] as const, 'mode'),
    root: string(doc.root, 'root'),
    thresholds: { minBias: count(thresholds.minBias, 'thresholds.minBias'), minHits: count(thresholds.minHits, 'thresholds.minHits') },
    workloads: each(doc.workloads, 'workloads', (w, at) => {
      const r = record(w, at);
      return { name: string(r.name, `${at}.name`), files: strings(r.files, `${at}.files`) };
    }),
    rows: each(doc.rows, 'rows', row),
  };
}

/**
 * Check a parsed `hintlab hints --format json` document. `file` is the name
 * the user gave, used in the error: "x.json is not a hintlab hints --format
 * json document (format: expected 'hintlab-hints', got nothing); write one
 * with ...".
 */
export function hintsFromJson(doc: unknown, file: string): HintsDocument {
  return checkDocument(doc, file, WHAT, FIX, document);
}
