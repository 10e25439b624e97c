/**
 * Flow conservation over the statement tree: how often control went past
 * an `if` whose then-branch always leaves (return, goto, break, continue),
 * written as a sum of line counts, so a then-branch without a line count of
 * its own (gcc merged `return -EINVAL;` into a shared return block) still
 * gets one: then = executions - flow past the `if`.
 *
 * Flow past a statement is the entry count of the statement after it. At
 * the end of a block, it is the flow past the block's owner minus the other
 * ways into that successor: the other arm of an enclosing if/else, or the
 * false arm of an enclosing `if` without else. A successor that has
 * predecessors line counts cannot separate is refused, and says why: a
 * label (gotos jump there), a loop head (the loop's back edge), the end of
 * a switch case or of the function, a macro block that may loop.
 *
 * Code that only passes its entries on (no return, goto, label or case
 * inside: a loop, a `#ifdef` block of plain statements) is looked through:
 * the flow into it is the flow out of its end. A `#ifdef` block that may
 * leave early is entered instead (its first line's count, which a block
 * compiled out does not have), and a `#else` block is refused: which arm
 * was compiled is not in the source.
 */
import type { Node } from 'web-tree-sitter';
import type { FlowRecipe } from './types.ts';

const LOOPS = new Set(['for_statement', 'while_statement', 'do_statement']);
const EXITS = new Set(['return_statement', 'goto_statement', 'break_statement', 'continue_statement']);
/** Statements whose first line counts exactly the entries into them. */
const PLAIN = new Set(['expression_statement', 'return_statement', 'if_statement', 'declaration', 'goto_statement', 'switch_statement', 'break_statement', 'continue_statement']);
/** Calls that expand in place (hints, builtins, ALL_CAPS macros): no inlined callee re-enters the line. */
const IN_PLACE = /^(likely|unlikely|__builtin_\w+|[A-Z0-9_]+)$/;

/** `returns`: a term is the line of a `return`, which gcc may share with the function's other returns. */
type Flow = { terms: FlowRecipe['terms']; returns?: boolean } | { refused: string };

/** What of a statement runs on its first line's count: an `if`'s or `switch`'s condition, or all of it. */
function head(stmt: Node): Node {
  return (stmt.type === 'if_statement' || stmt.type === 'switch_statement' ? stmt.childForFieldName('condition') : null) ?? stmt;
}

/** A condition on one line with no `&&`, `||` or `?:`: the line carries exactly one test. */
export function isSingleTest(cond: Node | null): boolean {
  return cond !== null && cond.startPosition.row === cond.endPosition.row && !/&&|\|\||\?/.test(cond.text);
}

const refuse = (why: string): Flow => ({ refused: why });
const line = (n: Node): number => n.startPosition.row + 1;

/** `#if`/`#ifdef` and their `#elif`/`#else` arms, as tree-sitter nests them around statements. */
const PREPROC_COND = new Set(['preproc_if', 'preproc_ifdef']);
const PREPROC_ARM = new Set(['preproc_else', 'preproc_elif', 'preproc_elifdef']);

function codeStatements(block: Node): Node[] {
  return block.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment' && !c.type.startsWith('preproc'));
}

/** The statements of one arm of a `#if` (not its condition, name or `#else`). */
function armStatements(node: Node): Node[] {
  const skip = new Set(['name', 'condition', 'alternative'].map((f) => node.childForFieldName(f)?.id));
  return node.namedChildren.filter((c): c is Node => c !== null && !skip.has(c.id) && c.type !== 'comment');
}

/**
 * Parse errors only inside a call's argument list (`min_t(unsigned int, a, b)`,
 * `access_ok((void __user *)p, n)`): the statement's extent, and so its
 * first line, is still what the source says.
 */
export function errorsConfined(stmt: Node): boolean {
  const bad = (n: Node): boolean =>
    n.type !== 'argument_list' && (n.isError || n.isMissing || n.children.some((c) => c !== null && (c.hasError || c.isMissing) && bad(c)));
  return !stmt.hasError || !bad(stmt);
}

/**
 * `for_each_sched_entity(se) { ... }` or `scoped_guard (rcu) { ... }` inside
 * a function body: tree-sitter reads a macro call followed by a block as a
 * nested function definition, which C does not have.
 */
export function isMacroBlock(node: Node): boolean {
  return node.type === 'function_definition' && node.parent?.type === 'compound_statement';
}

/** `for_each_sched_entity` of a macro block. */
function macroName(node: Node): string {
  return node.childForFieldName('type')?.text ?? 'macro';
}

/** A declaration without initializer generates no code and has no line count. */
export function hasCode(stmt: Node): boolean {
  if (stmt.type !== 'declaration') return stmt.type !== 'empty_statement' && !stmt.type.startsWith('preproc') && stmt.type !== 'comment';
  return stmt.descendantsOfType('init_declarator').length > 0;
}

/** True when `node` calls something that may be an inlined function, whose lines re-enter this one. */
export function callsFunction(node: Node): boolean {
  return node.descendantsOfType('call_expression').some((c) => {
    const fn = c?.childForFieldName('function');
    return fn !== null && fn !== undefined && !(fn.type === 'identifier' && IN_PLACE.test(fn.text));
  });
}

/** The statement leaves its block every time: an exit, or a block whose last statement is one. */
export function alwaysExits(stmt: Node): boolean {
  if (EXITS.has(stmt.type)) return true;
  if (stmt.type !== 'compound_statement') return false;
  const last = codeStatements(stmt).at(-1);
  return last !== undefined && EXITS.has(last.type);
}

/** No way out but the end, and no way in but the top: its entries all flow out of it. */
function straightLine(stmt: Node): boolean {
  const inner = ['return_statement', 'goto_statement', 'break_statement', 'continue_statement', 'labeled_statement', 'case_statement'];
  return (
    !EXITS.has(stmt.type) && stmt.type !== 'labeled_statement' && stmt.descendantsOfType(inner).length === 0 && errorsConfined(stmt) && !macroJump(stmt)
  );
}

/** Labels per top-level node id, for the tree last asked about (a file's `if`s are analysed one tree at a time). */
const labelCache: { tree: unknown; byTop: Map<number, Set<string>> } = { tree: null, byTop: new Map() };

/** Labels of the function around `node` (its outermost definition, or a SYSCALL_DEFINE body at file scope). */
function functionLabels(node: Node): Set<string> {
  let top = node;
  while (top.parent && top.parent.type !== 'translation_unit') top = top.parent;
  if (labelCache.tree !== node.tree) Object.assign(labelCache, { tree: node.tree, byTop: new Map() });
  const known = labelCache.byTop.get(top.id);
  if (known) return known;
  const labels = top.descendantsOfType('labeled_statement').map((l) => l?.childForFieldName('label')?.text);
  const set = new Set(labels.filter((l): l is string => l !== undefined));
  labelCache.byTop.set(top.id, set);
  return set;
}

/**
 * A call given a label of its function (`unsafe_put_user(x, p, Efault)`)
 * is a macro that may jump there: control flow the syntax tree hides.
 * Returns the label and its line, or null.
 */
export function macroJump(stmt: Node): { label: string; line: number } | null {
  const args = stmt.descendantsOfType('argument_list');
  if (args.length === 0) return null;
  const labels = functionLabels(stmt);
  for (const a of args) {
    const hit = a?.namedChildren.find((c) => c?.type === 'identifier' && labels.has(c.text));
    if (hit) return { label: hit.text, line: line(hit) };
  }
  return null;
}

/**
 * A loop entered at the top and left only through its end, however often
 * it iterates: no return, goto, label or case inside (a break or continue
 * inside a loop stays in it or leaves through its end). Its entries are
 * the flow past it.
 */
function passesThrough(stmt: Node): boolean {
  const inner = ['return_statement', 'goto_statement', 'labeled_statement', 'case_statement'];
  return stmt.descendantsOfType(inner).length === 0 && errorsConfined(stmt) && !isMacroBlock(stmt) && !macroJump(stmt);
}

/**
 * The first statement from `from` on (`from` and its next siblings) that
 * has code, or null. A `#if` block of straight-line code passes its
 * entries on and is passed over; one that may leave early or be jumped
 * into is returned (entryOf reads it).
 */
function firstWithCode(from: Node | null): Node | null {
  for (let s = from; s; s = s.nextNamedSibling) {
    if (PREPROC_COND.has(s.type)) {
      if (!straightLine(s)) return s;
      continue;
    }
    if (s.type === 'comment' || s.type.startsWith('preproc')) continue;
    if (hasCode(s)) return s;
  }
  return null;
}

/** The statement after `stmt` in its block that has code, or null at the end. */
export function nextWithCode(stmt: Node): Node | null {
  return firstWithCode(stmt.nextNamedSibling);
}

/** The outermost `#if` around a `#if`, `#elif` or `#else` arm. */
function preprocTop(node: Node): Node {
  let top = node;
  while (PREPROC_ARM.has(top.type) && top.parent) top = top.parent;
  return top;
}

/** Statements that always go on to the next one. */
const SIMPLE = new Set(['expression_statement', 'declaration']);

/**
 * Lines of the statements after a simple one that run exactly as often as
 * it does: the following simple statements of the same block, each on its
 * own line, up to the first that is not simple (which is included: it is
 * entered once per pass too, unless it is a label or loop).
 */
function straightAfter(stmt: Node): Node[] {
  const out: Node[] = [];
  let prev = stmt;
  while (SIMPLE.has(prev.type) && errorsConfined(prev) && !macroJump(prev)) {
    const next = nextWithCode(prev);
    if (!next || !PLAIN.has(next.type) || !errorsConfined(next) || next.startPosition.row <= prev.endPosition.row) break;
    out.push(next);
    prev = next;
  }
  return out;
}

/** Entry count of `stmt` as line terms; `afterRow` is the last 0-based row holding the code before it. */
function entryOf(stmt: Node, afterRow: number): Flow {
  if (stmt.type === 'labeled_statement') return refuse(`the label at line ${line(stmt)} after it has other predecessors (gotos)`);
  if (LOOPS.has(stmt.type)) return loopEntry(stmt);
  if (isMacroBlock(stmt)) return refuse(`the macro block ${macroName(stmt)}(...) at line ${line(stmt)} after it may loop`);
  if (PREPROC_COND.has(stmt.type)) return preprocEntry(stmt, afterRow);
  if (stmt.type === 'compound_statement') {
    const first = firstWithCode(stmt.firstNamedChild);
    return first ? entryOf(first, Math.max(afterRow, stmt.startPosition.row)) : refuse(`the block at line ${line(stmt)} has no statement`);
  }
  if (!PLAIN.has(stmt.type) || !errorsConfined(stmt)) return refuse(`the ${stmt.type.replace(/_/g, ' ')} at line ${line(stmt)} has no usable count`);
  if (stmt.startPosition.row <= afterRow) return refuse(`line ${line(stmt)} holds code of the statement before it too`);
  // A call on this line may be an inlined function whose return gcov counts
  // as another entry: derive.ts checks the result against the if's arcs.
  const after = straightAfter(stmt);
  const then = after.map(line);
  const returns = [stmt, ...after].some((s) => s.type === 'return_statement');
  const calls = [stmt, ...after].filter((s) => callsFunction(head(s))).map(line);
  const test = stmt.type === 'if_statement' && isSingleTest(stmt.childForFieldName('condition'));
  const term = { line: line(stmt), sign: 1 as const, ...(then.length ? { then } : {}), ...(calls.length ? { calls } : {}), ...(test ? { test } : {}) };
  return { terms: [term], returns };
}

/** A loop's first line counts its iterations; a loop left only through its end is entered as often as control goes past it. */
function loopEntry(loop: Node): Flow {
  const counts = `the loop at line ${line(loop)} after it counts its iterations, not its entries`;
  const jump = macroJump(loop);
  if (jump) return refuse(`${counts}, and line ${jump.line} inside it gives the label ${jump.label} to a macro, which may jump there`);
  if (!passesThrough(loop)) return refuse(`${counts}, and it may be left other than through its end`);
  const past = flowPast(loop);
  return 'refused' in past ? refuse(`${counts}; past it: ${past.refused}`) : past;
}

/** A `#if` block that may leave early, right after the statement: its first statement's count, if it was compiled. */
function preprocEntry(block: Node, afterRow: number): Flow {
  if (block.childForFieldName('alternative')) {
    return refuse(`the #if block at line ${line(block)} after it has several arms, and which one was compiled is not in the source`);
  }
  const first = firstWithCode(armStatements(block)[0] ?? null);
  if (!first) return refuse(`the #if block at line ${line(block)} after it has no statement`);
  // Compiled out, its first line has no count, and derive.ts refuses the term.
  return entryOf(first, afterRow);
}

/** Flow out of `stmt` (an arm of `ifNode`) through its end. */
function flowPastArm(ifNode: Node, arm: Node): Flow {
  const total = flowPast(ifNode);
  if ('refused' in total) return total;
  const then = ifNode.childForFieldName('consequence');
  const elseStmt = ifNode.childForFieldName('alternative')?.namedChildren.find((c) => c && c.type !== 'comment') ?? null;
  const other = then && (arm.startIndex === then.startIndex ? elseStmt : then);
  if (!other) {
    // No else: the successor is also reached when the condition is false.
    const cond = ifNode.childForFieldName('condition');
    if (!cond || callsFunction(cond)) return refuse(`the enclosing if at line ${line(ifNode)} calls a function in its condition (gcov may count re-entries)`);
    const entry = entryOf(arm, cond.endPosition.row);
    if ('refused' in entry) return refuse(`the enclosing if at line ${line(ifNode)}: ${entry.refused}`);
    return { terms: [...total.terms, { line: line(ifNode), sign: -1 }, ...entry.terms], returns: total.returns || entry.returns };
  }
  if (alwaysExits(other)) return total;
  if (!straightLine(other)) return refuse(`the other arm of the if at line ${line(ifNode)} may leave early or be jumped into`);
  const entry = entryOf(other, other.startPosition.row - 1);
  if ('refused' in entry) return refuse(`the other arm of the if at line ${line(ifNode)}: ${entry.refused}`);
  return { terms: [...total.terms, ...entry.terms.map((t) => ({ ...t, sign: -t.sign as 1 | -1 }))], returns: total.returns || entry.returns };
}

/** Flow past the end of `block` (a compound statement). */
function flowPastEnd(block: Node): Flow {
  const owner = block.parent;
  if (owner && isMacroBlock(owner)) return refuse(`it ends the macro block ${macroName(owner)}(...) at line ${line(owner)}, which may loop`);
  if (!owner || owner.type === 'function_definition' || owner.type === 'translation_unit' || owner.type === 'ERROR') {
    return refuse('it is the last statement of the function');
  }
  return flowPastChild(owner, block);
}

/** Flow out of `child` through its end, from where it sits in `owner`. */
function flowPastChild(owner: Node, child: Node): Flow {
  if (owner.type === 'compound_statement') return flowPastEnd(owner);
  if (owner.type === 'if_statement') return flowPastArm(owner, child);
  if (owner.type === 'else_clause' && owner.parent) return flowPastArm(owner.parent, child);
  if (LOOPS.has(owner.type)) return refuse(`the loop head at line ${line(owner)} follows it (the loop's back edge)`);
  if (owner.type === 'case_statement') return refuse(`it ends a switch case at line ${line(owner)}`);
  if (owner.type === 'labeled_statement') return flowPast(owner);
  if (PREPROC_COND.has(owner.type) || PREPROC_ARM.has(owner.type)) return flowPast(preprocTop(owner));
  return refuse(`it ends a ${owner.type.replace(/_/g, ' ')} at line ${line(owner)}`);
}

/** Flow past `stmt`: the entry count of what follows it, less the other ways in. */
export function flowPast(stmt: Node): Flow {
  const next = nextWithCode(stmt);
  if (next) return entryOf(next, stmt.endPosition.row);
  const parent = stmt.parent;
  if (!parent) return refuse('nothing follows it');
  return flowPastChild(parent, stmt);
}

/** The recipe for an `if` without else whose then-branch always leaves; null for other shapes. */
export function flowRecipe(ifNode: Node): FlowRecipe | null {
  const then = ifNode.childForFieldName('consequence');
  if (!then || ifNode.childForFieldName('alternative') || !alwaysExits(then)) return null;
  const f = flowPast(ifNode);
  if ('refused' in f) return { terms: [], refused: f.refused };
  return { terms: f.terms, refused: null, ...(f.returns ? { needsArcs: true } : {}) };
}
