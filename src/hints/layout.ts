/**
 * Where an `if`'s branches start, read from the syntax tree, so their line
 * counts can tell which way the condition went (gcov's arcs cannot: the
 * compiler may lay the then-branch on either arc).
 */
import type { Node } from 'web-tree-sitter';
import { alwaysExits, callsFunction, flowRecipe, hasCode, isSingleTest, nextWithCode } from './flow.ts';
import type { BranchLayout, IfRegions, LineRange } from './types.ts';

/** Statements whose first line runs more than once per entry, or can be jumped to (a function definition inside a body is a macro block such as for_each_sched_entity). */
const UNUSABLE_FIRST = new Set(['for_statement', 'while_statement', 'do_statement', 'labeled_statement', 'function_definition']);

function statements(block: Node): Node[] {
  return block.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
}

/** The first statement that runs when `stmt` is entered, or null when that is not one clean line. */
function firstStatement(stmt: Node): Node | null {
  if (stmt.type === 'compound_statement') {
    for (const s of statements(stmt)) {
      if (s.type === 'declaration' && !hasCode(s)) continue;
      if (!hasCode(s)) return null;
      return firstStatement(s);
    }
    return null;
  }
  // An ERROR node may start anywhere inside the statement it swallowed.
  return UNUSABLE_FIRST.has(stmt.type) || stmt.type === 'ERROR' ? null : stmt;
}

/** Line facts about one `if` node (see BranchLayout). */
export function branchLayout(ifNode: Node): BranchLayout {
  const cond = ifNode.childForFieldName('condition');
  const then = ifNode.childForFieldName('consequence');
  const elseClause = ifNode.childForFieldName('alternative');
  const condEndRow = cond ? cond.endPosition.row : ifNode.startPosition.row;
  const layout: BranchLayout = {
    thenLine: null,
    elseLine: null,
    flow: null,
    singleTest: isSingleTest(cond),
    callsFunction: cond !== null && callsFunction(cond),
  };
  if (!then) return layout;
  layout.regions = regions(ifNode, then, elseClause, condEndRow);
  const thenFirst = firstStatement(then);
  if (thenFirst && thenFirst.startPosition.row > condEndRow) layout.thenLine = thenFirst.startPosition.row + 1;
  const elseStmt = elseClause?.namedChildren.find((c) => c && c.type !== 'comment') ?? null;
  if (elseStmt) {
    const elseFirst = elseStmt.type === 'if_statement' ? elseStmt : firstStatement(elseStmt);
    const thenEndRow = then.endPosition.row;
    // `} else {` shares a line with the then-block's closing brace, which carries no code.
    const clear =
      elseFirst !== null &&
      (elseFirst.startPosition.row > thenEndRow ||
        (then.type === 'compound_statement' && elseFirst.startPosition.row === thenEndRow));
    if (clear) layout.elseLine = elseFirst.startPosition.row + 1;
  } else {
    layout.flow = flowRecipe(ifNode);
  }
  return layout;
}

/** Statements whose head is their condition: the flow into them lands on it. */
const HEADED = new Set(['if_statement', 'while_statement', 'switch_statement', 'for_statement']);
/** Statements that are their own head (every line of them runs on entry, in order). */
const WHOLE = new Set(['expression_statement', 'declaration', 'return_statement', 'goto_statement']);

const range = (first: number, last: number): LineRange | null => (first <= last ? { first, last } : null);

/** The lines control enters a statement on: its condition, all of a simple statement, else its first line. */
function headLines(stmt: Node): LineRange | null {
  const first = stmt.startPosition.row + 1;
  if (stmt.type === 'labeled_statement') {
    // the flow lands on the labelled statement's own head
    const inner = stmt.namedChildren.find((c) => c !== null && c.type !== 'statement_identifier' && c.type !== 'comment');
    const head = inner ? headLines(inner) : null;
    return head ? { first, last: head.last } : range(first, first);
  }
  if (WHOLE.has(stmt.type)) return range(first, stmt.endPosition.row + 1);
  const cond = HEADED.has(stmt.type) ? stmt.childForFieldName('condition') ?? stmt.childForFieldName('initializer') : null;
  return range(first, cond ? cond.endPosition.row + 1 : first);
}

/** Statements that always go on to the next one, so the flow past an `if` may land on any of a run of them. */
const STRAIGHT = new Set(['expression_statement', 'declaration']);

/**
 * Where the flow past an `if` can land: the next statement with code, and
 * when that is a plain statement, the plain statements after it too (one
 * that compiles to nothing, `rcu_read_lock()` without preemption, passes
 * the flow on), up to and including the head of the first other statement.
 * A label ends the run: a goto lands there.
 */
function nextLines(ifNode: Node): LineRange | null {
  const first = nextWithCode(ifNode);
  if (!first) return null;
  let last = headLines(first);
  for (let s = first; STRAIGHT.has(s.type); ) {
    let n = s.nextNamedSibling;
    while (n && n.type === 'comment') n = n.nextNamedSibling;
    if (!n || n.type === 'labeled_statement' || n.type === 'return_statement') break;
    if (hasCode(n)) last = headLines(n) ?? last;
    s = n;
  }
  return last ? { first: first.startPosition.row + 1, last: last.last } : null;
}

/** Where the then-branch, the else-branch and the statement after an `if` lie (IfRegions). */
function regions(ifNode: Node, then: Node, elseClause: Node | null, condEndRow: number): IfRegions {
  const elseBody = elseClause?.namedChildren.find((c) => c && c.type !== 'comment') ?? null;
  const thenLast = then.endPosition.row + 1;
  // `} else {` and `} else if (x)`: the then-block's closing line is the else's. It holds no code
  // of the then-branch; an `else if` has its condition there, a `{` nothing.
  const shared = elseBody !== null && elseBody.startPosition.row + 1 === thenLast;
  const elseFirst = !elseBody ? 0 : shared && elseBody.type !== 'if_statement' ? thenLast + 1 : Math.max(elseBody.startPosition.row + 1, thenLast);
  return {
    then: range(condEndRow + 2, shared ? thenLast - 1 : thenLast),
    else: elseBody ? range(elseFirst, elseBody.endPosition.row + 1) : null,
    next: elseBody ? null : nextLines(ifNode),
    thenLeaves: !elseBody && alwaysExits(then),
  };
}
