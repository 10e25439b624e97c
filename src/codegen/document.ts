/**
 * Reading back what `hintlab codegen --json` wrote (src/codegen/render.ts
 * `renderJson`): a CodegenResult of schema CODEGEN_SCHEMA. Every field a
 * renderer reads is checked, so a hand-edited, truncated or foreign file is
 * refused with the file and the JSON path named, never half-rendered.
 */
import { checkDocument, count, each, oneOf, record, ShapeError, string, strings, type JsonRecord } from '../json-shape.ts';
import {
  CODEGEN_SCHEMA,
  OPT_LEVELS,
  type Cell,
  type CodegenResult,
  type CodegenSubject,
  type CompilerInfo,
  type FallThroughPath,
  type FunctionDelta,
} from './types.ts';

/** The name a codegen document may carry in `format`; absent in schema 1 as written today. */
export const CODEGEN_FORMAT = 'hintlab-codegen';
const WHAT = 'a hintlab codegen --json document';
const FIX = 'write one with `hintlab codegen ... --json > FILE`';

function beforeAfter(v: unknown, where: string): { before: number; after: number } {
  const r = record(v, where);
  return { before: count(r.before, `${where}.before`), after: count(r.after, `${where}.after`) };
}

function path(v: unknown, where: string): FallThroughPath {
  const r = record(v, where);
  const instructions = count(r.instructions, `${where}.instructions`);
  const end = oneOf(r.end, ['return', 'tail-call', 'trap', 'loop', 'falls-off-end'] as const, `${where}.end`);
  return end === 'tail-call' ? { end, instructions, target: string(r.target, `${where}.target`) } : { end, instructions };
}

function delta(v: unknown, where: string): FunctionDelta {
  const r = record(v, where);
  const name = string(r.name, `${where}.name`);
  const cls = oneOf(r.class, ['identical', 'padding', 'layout', 'changed', 'added', 'removed'] as const, `${where}.class`);
  if (cls === 'padding') {
    return { name, class: cls, instructions: beforeAfter(r.instructions, `${where}.instructions`), sizeBytes: beforeAfter(r.sizeBytes, `${where}.sizeBytes`), diff: string(r.diff, `${where}.diff`) };
  }
  if (cls === 'layout' || cls === 'changed') {
    const ft = record(r.fallThrough, `${where}.fallThrough`);
    return {
      name,
      class: cls,
      instructions: beforeAfter(r.instructions, `${where}.instructions`),
      sizeBytes: beforeAfter(r.sizeBytes, `${where}.sizeBytes`),
      coldInstructions: beforeAfter(r.coldInstructions, `${where}.coldInstructions`),
      fallThrough: { before: path(ft.before, `${where}.fallThrough.before`), after: path(ft.after, `${where}.fallThrough.after`) },
      diff: string(r.diff, `${where}.diff`),
    };
  }
  return { name, class: cls, instructions: count(r.instructions, `${where}.instructions`), sizeBytes: count(r.sizeBytes, `${where}.sizeBytes`) };
}

function compiler(v: unknown, where: string): CompilerInfo {
  const r = record(v, where);
  return {
    command: string(r.command, `${where}.command`),
    label: string(r.label, `${where}.label`),
    family: oneOf(r.family, ['gcc', 'clang', 'other'] as const, `${where}.family`),
    version: string(r.version, `${where}.version`),
  };
}

function cell(v: unknown, where: string): Cell {
  const r = record(v, where);
  const opt = oneOf(r.opt, OPT_LEVELS, `${where}.opt`);
  const state = oneOf(r.state, ['compared', 'skipped', 'failed'] as const, `${where}.state`);
  if (state === 'skipped') return { state, opt, compilerCommand: string(r.compilerCommand, `${where}.compilerCommand`), reason: string(r.reason, `${where}.reason`) };
  if (state === 'failed') {
    return {
      state,
      opt,
      compiler: compiler(r.compiler, `${where}.compiler`),
      variant: oneOf(r.variant, ['before', 'after'] as const, `${where}.variant`),
      errorLines: strings(r.errorLines, `${where}.errorLines`),
    };
  }
  return { state, opt, compiler: compiler(r.compiler, `${where}.compiler`), functions: each(r.functions, `${where}.functions`, delta) };
}

function subject(v: unknown): CodegenSubject {
  const r = record(v, 'subject');
  const kind = oneOf(r.kind, ['files', 'kernel'] as const, 'subject.kind');
  if (kind === 'files') {
    return { kind, before: string(r.before, 'subject.before'), after: string(r.after, 'subject.after'), cflags: strings(r.cflags, 'subject.cflags') };
  }
  const config = record(r.config, 'subject.config');
  const source = oneOf(config.kind, ['tree', 'file', 'defconfig'] as const, 'subject.config.kind');
  return {
    kind,
    tree: string(r.tree, 'subject.tree'),
    patch: string(r.patch, 'subject.patch'),
    object: string(r.object, 'subject.object'),
    config: source === 'defconfig' ? { kind: source } : { kind: source, path: string(config.path, 'subject.config.path') },
  };
}

function result(doc: JsonRecord): CodegenResult {
  // Other hintlab documents name themselves in `format`; a codegen result (schema 1) has only its
  // schema, and may one day name itself too.
  if (doc.format !== undefined && doc.format !== CODEGEN_FORMAT) throw new ShapeError('format', `this is a ${JSON.stringify(doc.format)} document`);
  if (doc.schema !== 1 && doc.schema !== CODEGEN_SCHEMA) throw new ShapeError('schema', `expected 1 or ${CODEGEN_SCHEMA}, got ${JSON.stringify(doc.schema) || 'nothing'}`);
  return { schema: CODEGEN_SCHEMA, subject: subject(doc.subject), notes: strings(doc.notes, 'notes'), cells: each(doc.cells, 'cells', cell) };
}

/**
 * Check a parsed `hintlab codegen --json` document. `file` is the name the
 * user gave, used in the error: "x.json is not a hintlab codegen --json
 * document (schema: expected 1, got 2); write one with ...".
 */
export function codegenFromJson(doc: unknown, file: string): CodegenResult {
  return checkDocument(doc, file, WHAT, FIX, result);
}
