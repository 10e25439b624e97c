/**
 * Present a codegen result: the function x cell matrix, the fall-through
 * paths, the normalized diffs, and a one-paragraph summary in the register of
 * an lkml reply. Renderers return text; the CLI decides where it goes.
 */
import type { Cell, CodegenResult, FallThroughPath, FunctionDelta } from './types.ts';
import { alignColumns } from '../format/columns.ts';

type Compared = Extract<Cell, { state: 'compared' }>;
type Moved = Extract<FunctionDelta, { class: 'layout' | 'changed' }>;

const signed = (n: number): string => (n >= 0 ? `+${n}` : `${n}`);

export function cellTitle(cell: Cell): string {
  const who = cell.state === 'skipped' ? cell.compilerCommand : cell.compiler.label;
  return `${who} -${cell.opt}`;
}

/** Short text for one function in one cell of the matrix. */
export function deltaText(d: FunctionDelta | undefined): string {
  if (!d) return '-';
  if (d.class === 'padding') return 'identical (padding)';
  if (d.class !== 'changed') return d.class;
  return `changed ${signed(d.instructions.after - d.instructions.before)} insn ${signed(d.sizeBytes.after - d.sizeBytes.before)} B`;
}

function cellText(cell: Cell, name: string): string {
  if (cell.state === 'skipped') return 'skipped';
  if (cell.state === 'failed') return 'build failed';
  return deltaText(cell.functions.find((f) => f.name === name));
}

/** Functions that are not identical in at least one compared cell, in first-seen order. */
export function touchedFunctions(cells: readonly Cell[]): string[] {
  const names = new Set<string>();
  for (const c of cells) if (c.state === 'compared') for (const f of c.functions) if (f.class !== 'identical') names.add(f.name);
  return [...names];
}

function table(rows: string[][]): string {
  return alignColumns(rows).join('\n') + '\n';
}

export function pathText(p: FallThroughPath): string {
  const how = p.end === 'return' ? 'to return' : p.end === 'tail-call' ? `to tail call ${p.target}` : `then ${p.end}`;
  return `${p.instructions} ${how}`;
}

function movedIn(cell: Compared): Moved[] {
  return cell.functions.filter(isMoved);
}

function subjectLine(r: CodegenResult): string {
  const s = r.subject;
  if (s.kind === 'files') return `codegen: ${s.before} -> ${s.after}${s.cflags.length ? ` (cflags: ${s.cflags.join(' ')})` : ''}\n`;
  const config = s.config.kind === 'defconfig' ? 'x86_64 defconfig (the tree has no .config)' : s.config.path;
  return `codegen: ${s.object} in ${s.tree}, patch ${s.patch}\nconfig: ${config}\n`;
}

/** The full text report: matrix, paths, diffs, problems, summary. */
export function renderText(r: CodegenResult): string {
  const out: string[] = [subjectLine(r)];
  for (const n of r.notes) out.push(`note: ${n}\n`);
  const touched = touchedFunctions(r.cells);
  const compared = r.cells.filter((c): c is Compared => c.state === 'compared');
  const total = new Set(compared.flatMap((c) => c.functions.map((f) => f.name))).size;
  out.push('\n');
  if (touched.length > 0) {
    out.push(table([['function', ...r.cells.map(cellTitle)], ...touched.map((name) => [name, ...r.cells.map((c) => cellText(c, name))])]));
  }
  if (compared.length > 0) out.push(`${total - touched.length} of ${total} functions identical in every compared cell${touched.length && total > touched.length ? ' (not shown)' : ''}.\n`);
  const paths = compared.flatMap((c) => movedIn(c).map((f) => [cellTitle(c), f.name, pathText(f.fallThrough.before), pathText(f.fallThrough.after), `${f.coldInstructions.before} -> ${f.coldInstructions.after}`]));
  if (paths.length > 0) {
    out.push('\nfall-through path (instructions from entry when no conditional branch is taken):\n');
    out.push(table([['cell', 'function', 'before', 'after', '.cold insns'], ...paths]));
  }
  for (const c of compared) for (const f of movedIn(c)) out.push(`\n--- ${cellTitle(c)}: ${f.name} (${f.class})\n${f.diff}`);
  for (const c of r.cells) {
    if (c.state === 'skipped') out.push(`\nskipped ${cellTitle(c)}: ${c.reason}\n`);
    if (c.state === 'failed') out.push(`\nbuild failed: ${cellTitle(c)} (${c.variant} the patch):\n${c.errorLines.map((l) => `  ${l}\n`).join('')}`);
  }
  out.push(`\nsummary: ${lkmlSummary(r)}\n`);
  return out.join('');
}

const isMoved = (f: FunctionDelta): f is Moved => f.class === 'layout' || f.class === 'changed';

function functionPhrase(f: FunctionDelta): string {
  if (f.class === 'padding') return `${f.name} identical (padding)`;
  if (!isMoved(f)) return `${f.name} ${f.class}`;
  const head =
    f.class === 'layout'
      ? `${f.name} reordered`
      : `${f.name} changed (${signed(f.instructions.after - f.instructions.before)} instructions, ${signed(f.sizeBytes.after - f.sizeBytes.before)} bytes)`;
  const cold = f.coldInstructions.after - f.coldInstructions.before;
  const details: string[] = [];
  if (cold > 0) details.push(`${cold} instructions moved out of line to ${f.name}.cold`);
  if (cold < 0) details.push(`${-cold} instructions moved back from ${f.name}.cold`);
  const a = f.fallThrough.before;
  const b = f.fallThrough.after;
  if (a.end === 'return' && b.end === 'return' && a.instructions !== b.instructions) {
    details.push(`fall-through path ${a.instructions} -> ${b.instructions} instructions to return`);
  } else if (a.instructions !== b.instructions || a.end !== b.end) details.push(`fall-through path ${pathText(a)} -> ${pathText(b)} instructions`);
  return [head, ...details].join(', ');
}

/** What changed in one cell: "identical", or its changed functions (three named, then "and N more functions"; four are all named). */
export function cellPhrase(c: Cell): string {
  if (c.state === 'skipped') return 'not installed';
  if (c.state === 'failed') return 'did not build';
  const moved = c.functions.filter((f) => f.class !== 'identical' && f.class !== 'padding');
  const padded = c.functions.filter((f) => f.class === 'padding').map((f) => f.name);
  // Alignment padding is said apart from the real changes: the code is the same.
  const padding = padded.length === 0 ? [] : [`${padded.length <= 3 ? padded.join(', ') : `${padded.length} functions`} identical (padding: only alignment nops differ)`];
  if (moved.length === 0) return padding.length ? padding[0]! : 'identical';
  if (moved.length <= 4) return [...moved.map(functionPhrase), ...padding].join('; ');
  return [...moved.slice(0, 3).map(functionPhrase), `and ${moved.length - 3} more functions`, ...padding].join('; ');
}

/** `gcc 12.2.0` -> `gcc 12.2`, the precision a changelog needs. */
const shortLabel = (label: string): string => label.replace(/(\d+\.\d+)\.\d+$/, '$1');

/**
 * One sentence per compiler, e.g. "gcc 12.2 -O2: __x64_sys_mincore reordered,
 * 3 instructions moved out of line to __x64_sys_mincore.cold; -Os: identical."
 * Meant for a cover letter or a reply, and for `hintlab report`.
 */
export function lkmlSummary(r: CodegenResult): string {
  const byCompiler = new Map<string, Cell[]>();
  for (const c of r.cells) {
    const key = c.state === 'skipped' ? c.compilerCommand : shortLabel(c.compiler.label);
    byCompiler.set(key, [...(byCompiler.get(key) ?? []), c]);
  }
  const sentences = [...byCompiler].map(([who, cells]) => {
    const parts = cells.map((c, i) => `${i === 0 ? `${who} ` : ''}-${c.opt}: ${cellPhrase(c)}`);
    return `${parts.join('; ')}.`;
  });
  return sentences.join(' ');
}

/** The result as JSON, for machines. */
export function renderJson(r: CodegenResult): string {
  // the format name first, so a file says what it is (hintlab report checks it)
  return `${JSON.stringify({ format: 'hintlab-codegen', ...r }, null, 2)}\n`;
}
