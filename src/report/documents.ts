/**
 * Reading the documents `hintlab report --codegen FILE --hints FILE` puts
 * beside a comparison. Each file is read and parsed here; its shape is
 * checked by the loader of the area that wrote it (src/codegen/document.ts,
 * src/hints/document.ts), so a report never renders a foreign or truncated
 * file.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { CODEGEN_FORMAT, codegenFromJson } from '../codegen/document.ts';
import { HINTS_JSON_FORMAT, hintsFromJson } from '../hints/document.ts';
import type { PatchDocuments } from './patch-evidence.ts';

/** The files as the user named them; relative names resolve against `cwd`. */
export interface PatchDocumentFiles {
  codegen?: string;
  hints?: string;
}

/** Read and JSON-parse `file`; errors name the file and the command that writes it. */
function readJson(file: string, cwd: string, writer: string): unknown {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (err) {
    throw new UserError(`cannot read ${file}: ${(err as Error).message}`, 2);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UserError(`${file} is not JSON (${(err as Error).message}); expected the output of \`${writer}\``, 2);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The two documents given to each other's flag: say so, instead of listing a missing field. */
function refuseSwapped(file: string, doc: unknown, flag: '--codegen' | '--hints'): void {
  if (!isRecord(doc)) return;
  if (flag === '--codegen' && doc.format === HINTS_JSON_FORMAT) {
    throw new UserError(`${file} is a hintlab hints --format json document, not a hintlab codegen --json one: give it with --hints`, 2);
  }
  if (flag === '--hints' && (doc.format === undefined || doc.format === CODEGEN_FORMAT) && 'schema' in doc && 'cells' in doc) {
    throw new UserError(`${file} is a hintlab codegen --json document, not a hintlab hints --format json one: give it with --codegen`, 2);
  }
}

/** Load and check the documents given; absent ones stay absent. */
export function loadPatchDocuments(files: PatchDocumentFiles, cwd: string): PatchDocuments {
  const docs: PatchDocuments = {};
  if (files.codegen !== undefined) {
    const doc = readJson(files.codegen, cwd, 'hintlab codegen ... --json');
    refuseSwapped(files.codegen, doc, '--codegen');
    docs.codegen = { file: files.codegen, result: codegenFromJson(doc, files.codegen) };
  }
  if (files.hints !== undefined) {
    const doc = readJson(files.hints, cwd, 'hintlab hints ... --format json');
    refuseSwapped(files.hints, doc, '--hints');
    docs.hints = { file: files.hints, doc: hintsFromJson(doc, files.hints) };
  }
  return docs;
}
