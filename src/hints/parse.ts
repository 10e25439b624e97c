/**
 * Finding the `if` statements of a C file with tree-sitter's C grammar
 * (web-tree-sitter + the grammar's wasm file: no native build).
 *
 * Kernel sources never parse cleanly: `__user`, `__init` and friends break
 * function signatures, `SYSCALL_DEFINE3(...)` leaves a bare `{ ... }` body at
 * file scope. Errors stay local, so an `if` is analysed whenever its own
 * condition and branches parsed cleanly, whatever its function's signature
 * looked like.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Node, Parser } from 'web-tree-sitter';
import { blankLines, lineCount } from './source-lines.ts';
import { branchLayout } from './layout.ts';
import { classifyCondition } from './condition.ts';
import { isMacroBlock } from './flow.ts';
import { isEarlySyscallErrorExit } from './static.ts';
import type { FileSites, IfSite, MacroIf } from './types.ts';

let parserPromise: Promise<Parser> | null = null;

/** The shared C parser; the wasm runtime and grammar load once per thread. */
export function cParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    // loaded here, not at import: the wasm runtime costs every command's start-up
    const { Language, Parser } = await import('web-tree-sitter');
    await Parser.init();
    const require = createRequire(import.meta.url);
    const wasm = join(dirname(require.resolve('tree-sitter-c/package.json')), 'tree-sitter-c.wasm');
    const parser = new Parser();
    parser.setLanguage(await Language.load(wasm));
    return parser;
  })();
  return parserPromise;
}

/** Parse one file's text and list its `if` sites. `file` is the root-relative path. */
export function scanSource(parser: Parser, file: string, text: string): FileSites {
  const tree = parser.parse(text);
  if (!tree) throw new Error(`tree-sitter returned no tree for ${file}`);
  try {
    const sites: IfSite[] = [];
    for (const node of tree.rootNode.descendantsOfType('if_statement')) {
      if (node) sites.push(siteOf(file, node, text));
    }
    return {
      file,
      sha256: createHash('sha256').update(text).digest('hex'),
      lineCount: lineCount(text),
      blankLines: blankLines(text),
      sites,
      macroIfs: macroIfs(file, tree.rootNode),
    };
  } finally {
    tree.delete();
  }
}

function siteOf(file: string, node: Node, text: string): IfSite {
  const cond = node.childForFieldName('condition');
  const then = node.childForFieldName('consequence');
  // A missing condition can only come with an error; keep a harmless shape.
  const open = cond ? cond.startPosition : node.startPosition;
  const closeEnd = cond ? cond.endPosition : node.startPosition;
  const close = { row: closeEnd.row, column: Math.max(0, closeEnd.column - 1) };
  // Only the condition must parse: it is what gets patched. Errors inside a
  // branch (container_of(p, struct x, m), max_t(type, ...)) are common and
  // only cost that branch's line evidence (see layout.ts).
  const broken = !cond || cond.hasError || !then;
  const condition = cond ? cond.text.slice(1, -1) : '';
  const verdict = cond && !broken ? classifyCondition(cond) : { annotation: { kind: 'none' as const }, skip: null };
  const fn = functionName(node, text);
  const site: IfSite = {
    file,
    line: node.startPosition.row + 1,
    fn,
    condition,
    open: { row: open.row, column: open.column },
    close,
    endLine: close.row + 1,
    annotation: verdict.annotation,
    skip: broken ? 'parse-error' : verdict.skip,
    layout: branchLayout(node),
    heuristic: false,
  };
  site.heuristic = site.skip === null && site.annotation.kind === 'none' && isEarlySyscallErrorExit(node, fn);
  return site;
}

const SYSCALL_RE = /\b(COMPAT_)?SYSCALL_DEFINE\d\s*\(\s*(\w+)/;
const NOT_A_NAME = /^(__attribute__|__acquires|__releases|__must_hold|__cond_acquires|__printf|__scanf|sizeof|defined)$/;

/**
 * The name of the function around `node`, seeing through macro blocks
 * (`for_each_sched_entity(se) { ... }` parses as a nested definition).
 * SYSCALL_DEFINEn(name, ...) bodies
 * get the kernel's own name for them (`__do_sys_name`), which is also what
 * the branch profiler records as `__func__`.
 */
export function functionName(node: Node, text: string): string {
  let body: Node | null = null;
  for (let n: Node | null = node.parent; n; n = n.parent) {
    if (n.type === 'function_definition' && !isMacroBlock(n)) return nameFromDefinition(n);
    if (n.type === 'compound_statement') body = n;
  }
  // A body tree-sitter could not attach to a signature: read the text
  // before it, back to the end of the previous declaration or function.
  // No body at all (a preprocessor conditional inside an expression broke
  // it): kernel style opens a function body with `{` in column 0.
  const bodyStart = body ? body.startIndex : text.lastIndexOf('\n{', node.startIndex) + 1;
  if (bodyStart <= 0) return '';
  const before = text.slice(Math.max(0, bodyStart - 1000), bodyStart);
  const cut = Math.max(before.lastIndexOf(';'), before.lastIndexOf('}'));
  return nameFromHeader(before.slice(cut + 1).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''));
}

function nameFromDefinition(def: Node): string {
  const body = def.childForFieldName('body');
  const header = def.text.slice(0, body ? body.startIndex - def.startIndex : undefined);
  const syscall = SYSCALL_RE.exec(header);
  if (syscall) return syscallName(syscall);
  let decl = def.childForFieldName('declarator');
  while (decl && decl.type !== 'function_declarator') decl = decl.childForFieldName('declarator');
  const id = decl?.childForFieldName('declarator');
  if (id && id.type === 'identifier' && !def.hasError) return id.text;
  return nameFromHeader(header);
}

/** The last `name(` at parenthesis depth 0 of a declaration's text. */
export function nameFromHeader(header: string): string {
  const syscall = SYSCALL_RE.exec(header);
  if (syscall) return syscallName(syscall);
  let depth = 0;
  let best = '';
  const re = /(\w+)\s*\(|[()]/g;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    if (m[0] === ')') depth = Math.max(0, depth - 1);
    else if (m[0] === '(') depth++;
    else {
      if (depth === 0 && m[1] && !NOT_A_NAME.test(m[1])) best = m[1];
      depth++;
    }
  }
  return best;
}

function syscallName(m: RegExpExecArray): string {
  return m[1] ? `__do_compat_sys_${m[2]}` : `__do_sys_${m[2]}`;
}

const MACRO_IF_RE = /\bif\s*\(/g;

/** `if`s written inside #define bodies, which tree-sitter keeps as raw text. */
function macroIfs(file: string, root: Node): MacroIf[] {
  const found: MacroIf[] = [];
  for (const def of root.descendantsOfType(['preproc_function_def', 'preproc_def'])) {
    const value = def?.childForFieldName('value');
    if (!def || !value) continue;
    const macro = def.childForFieldName('name')?.text ?? '';
    const text = value.text;
    for (const m of text.matchAll(MACRO_IF_RE)) {
      const before = text.slice(0, m.index);
      const rows = before.split('\n').length - 1;
      found.push({ file, line: value.startPosition.row + rows + 1, macro });
    }
  }
  return found;
}
