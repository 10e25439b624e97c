/**
 * Turning verdicts into source changes: a unified diff that changes only
 * condition text (`if (unlikely(cond))`, line breaks kept), and an atomic
 * in-place apply that refuses files changed since they were profiled.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import { headerText } from '../kernel/patch-names.ts';
import { writeFileSafely } from '../write-file.ts';
import type { HintsResult } from './analyze.ts';
import type { Point } from './types.ts';
import type { HintRow } from './verdict.ts';

/** Replace `length` characters at `at` with `insert`. */
export interface Edit {
  file: string;
  at: Point;
  length: number;
  insert: string;
}

/** The edits one row asks for: wrap the condition, or rename a contradicted hint. */
export function editsFor(row: HintRow): Edit[] {
  const { site, verdict } = row;
  if (verdict.kind === 'propose') {
    return [
      { file: site.file, at: { row: site.open.row, column: site.open.column + 1 }, length: 0, insert: `${verdict.hint}(` },
      { file: site.file, at: site.close, length: 0, insert: ')' },
    ];
  }
  if (verdict.kind === 'contradicted' && verdict.fix && site.annotation.kind === 'whole') {
    return [{ file: site.file, at: site.annotation.at, length: site.annotation.macro.length, insert: verdict.fix }];
  }
  return [];
}

/** Apply edits to one file's text (edits may come in any order; none may overlap). */
export function applyEdits(text: string, edits: Edit[]): string {
  const lines = text.split('\n');
  const sorted = [...edits].sort((a, b) => b.at.row - a.at.row || b.at.column - a.at.column);
  for (const e of sorted) {
    const line = lines[e.at.row];
    if (line === undefined) throw new Error(`edit past the end of ${e.file} (row ${e.at.row})`);
    lines[e.at.row] = line.slice(0, e.at.column) + e.insert + line.slice(e.at.column + e.length);
  }
  return lines.join('\n');
}

const CONTEXT_LINES = 3;

/**
 * A git-style unified diff of `before` -> `after`, which must have the same
 * number of lines (edits here never add or remove one).
 */
export function unifiedDiff(file: string, before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const endsWithNewline = before.endsWith('\n');
  if (endsWithNewline) {
    a.pop();
    b.pop();
  }
  const changed: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) changed.push(i);
  if (changed.length === 0) return '';
  // names as git writes them: quoted when they hold special characters, a tab after a name with a space
  const [oldName, newName] = [headerText(`a/${file}`), headerText(`b/${file}`)];
  let out = `diff --git ${oldName.trimEnd()} ${newName.trimEnd()}\n--- ${oldName}\n+++ ${newName}\n`;
  let i = 0;
  while (i < changed.length) {
    let j = i;
    while (j + 1 < changed.length && (changed[j + 1] as number) - (changed[j] as number) <= 2 * CONTEXT_LINES) j++;
    const start = Math.max(0, (changed[i] as number) - CONTEXT_LINES);
    const end = Math.min(a.length - 1, (changed[j] as number) + CONTEXT_LINES);
    const len = end - start + 1;
    out += `@@ -${start + 1},${len} +${start + 1},${len} @@\n`;
    const noEol = (k: number): string => (k === a.length - 1 && !endsWithNewline ? '\n\\ No newline at end of file\n' : '\n');
    for (let k = start; k <= end; ) {
      if (a[k] === b[k]) {
        out += ` ${a[k]}${noEol(k)}`;
        k++;
        continue;
      }
      // A run of changed lines: all removals, then all additions.
      let m = k;
      while (m <= end && a[m] !== b[m]) m++;
      for (let r = k; r < m; r++) out += `-${a[r]}${noEol(r)}`;
      for (let r = k; r < m; r++) out += `+${b[r]}${noEol(r)}`;
      k = m;
    }
    i = j + 1;
  }
  return out;
}

function editsByFile(rows: HintRow[]): Map<string, Edit[]> {
  const byFile = new Map<string, Edit[]>();
  for (const row of rows) {
    for (const e of editsFor(row)) {
      const list = byFile.get(e.file);
      if (list) list.push(e);
      else byFile.set(e.file, [e]);
    }
  }
  return byFile;
}

/** The whole patch for a result: one diff per file, files in order. */
export function resultPatch(result: HintsResult): string {
  let out = '';
  for (const [file, edits] of [...editsByFile(result.rows)].sort(([x], [y]) => x.localeCompare(y))) {
    const before = readFileSync(join(result.root, file), 'utf8');
    out += unifiedDiff(file, before, applyEdits(before, edits));
  }
  return out;
}

/**
 * Write every proposed change in place. All files are checked before any is
 * written: a file whose bytes changed since it was parsed, or that is newer
 * than the newest profile, is refused. Each file is replaced atomically
 * (written next to it, then renamed over it; a symlinked file is written at
 * its target, the link kept).
 */
export function applyResult(result: HintsResult): string[] {
  const hashes = new Map(result.sources.map((s) => [s.file, s.sha256]));
  const newestProfileMs = Math.max(0, ...result.workloads.map((w) => w.newestMtimeMs));
  const planned: { path: string; text: string }[] = [];
  for (const [file, edits] of editsByFile(result.rows)) {
    const path = join(result.root, file);
    const before = readFileSync(path, 'utf8');
    const st = statSync(path);
    if (createHash('sha256').update(before).digest('hex') !== hashes.get(file)) {
      throw new UserError(`${path} changed while hints were computed; run hintlab hints again. Nothing was written.`);
    }
    if (result.mode === 'profile' && st.mtimeMs > newestProfileMs) {
      throw new UserError(
        `${path} was modified after the newest profile file was written (${new Date(newestProfileMs).toISOString()}): ` +
          'its line numbers may not be the profiled ones. Profile again, or use --format patch and review. Nothing was written.',
      );
    }
    planned.push({ path, text: applyEdits(before, edits) });
  }
  for (const p of planned) writeFileSafely(p.path, p.text);
  return planned.map((p) => p.path);
}
