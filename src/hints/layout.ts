/**
 * Where an `if`'s branches start, read from the syntax tree, so their line
 * counts can tell which way the condition went (gcov's arcs cannot: the
 * compiler may lay the then-branch on either arc).
 */
import type { Node } from 'web-tree-sitter';
import type { BranchLayout } from './types.ts';

/** Statements whose first line runs more than once per entry, or can be jumped to. */
const UNUSABLE_FIRST = new Set(['for_statement', 'while_statement', 'do_statement', 'labeled_statement']);
const EXITS = new Set(['return_statement', 'goto_statement', 'break_statement', 'continue_statement']);
/** Statements after an exiting `if` whose line count is the fall-through count. */
const PLAIN_NEXT = new Set([
  'expression_statement',
  'return_statement',
  'if_statement',
  'declaration',
  'goto_statement',
  'switch_statement',
  'break_statement',
  'continue_statement',
]);

function statements(block: Node): Node[] {
  return block.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
}

/** A declaration without initializer generates no code and has no line count. */
function hasCode(stmt: Node): boolean {
  if (stmt.type !== 'declaration') return stmt.type !== 'empty_statement' && !stmt.type.startsWith('preproc');
  return stmt.descendantsOfType('init_declarator').length > 0;
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

function alwaysExits(stmt: Node): boolean {
  if (EXITS.has(stmt.type)) return true;
  if (stmt.type !== 'compound_statement') return false;
  const last = statements(stmt).at(-1);
  return last !== undefined && EXITS.has(last.type);
}

function isBareReturn(stmt: Node): boolean {
  if (stmt.type === 'return_statement') return true;
  if (stmt.type !== 'compound_statement') return false;
  const body = statements(stmt);
  return body.length === 1 && body[0]?.type === 'return_statement';
}

/** Names that look like calls but expand in place (hints, builtins, ALL_CAPS macros). */
const IN_PLACE = /^(likely|unlikely|__builtin_\w+|[A-Z0-9_]+)$/;

function callsFunction(cond: Node): boolean {
  return cond.descendantsOfType('call_expression').some((c) => {
    const fn = c?.childForFieldName('function');
    return fn !== null && fn !== undefined && !(fn.type === 'identifier' && IN_PLACE.test(fn.text));
  });
}

function nextStatement(node: Node): Node | null {
  for (let s = node.nextNamedSibling; s; s = s.nextNamedSibling) {
    if (s.type !== 'comment') return s;
  }
  return null;
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
    afterExitLine: null,
    thenIsReturn: then ? isBareReturn(then) : false,
    singleTest:
      cond !== null &&
      cond.startPosition.row === cond.endPosition.row &&
      !/&&|\|\||\?/.test(cond.text),
    callsFunction: cond !== null && callsFunction(cond),
  };
  if (!then) return layout;
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
    if (clear && elseFirst) layout.elseLine = elseFirst.startPosition.row + 1;
  } else if (alwaysExits(then)) {
    const next = nextStatement(ifNode);
    if (next && PLAIN_NEXT.has(next.type) && hasCode(next) && next.startPosition.row > then.endPosition.row) {
      layout.afterExitLine = next.startPosition.row + 1;
    }
  }
  return layout;
}
