/**
 * What an `if` condition already says about its branch: an annotation
 * (`likely`, `unlikely`, `__builtin_expect`, or a macro that holds one), or
 * a compile-time constant that a hint would only clutter.
 */
import type { Node } from 'web-tree-sitter';
import type { Annotation, SkipReason } from './types.ts';

/** Hint macros and the direction they claim for a true condition. */
const HINTS: Record<string, boolean> = {
  likely: true,
  unlikely: false,
  likely_notrace: true,
  unlikely_notrace: false,
};

/**
 * Kernel macros and helpers whose definition already wraps the test in
 * unlikely(): wrapping them again is noise, so they count as annotated.
 */
const HINTED_INSIDE = new Set([
  'WARN_ON',
  'WARN_ON_ONCE',
  'WARN',
  'WARN_ONCE',
  'WARN_RATELIMIT',
  'IS_ERR',
  'IS_ERR_OR_NULL',
  'IS_ERR_VALUE',
  'signal_pending',
  'fatal_signal_pending',
]);

/** Tests the compiler folds away: a hint on them changes nothing. */
const COMPILE_TIME_RE =
  /\b(static_branch_likely|static_branch_unlikely|static_branch_enabled|static_key_false|static_key_true|static_key_enabled|IS_ENABLED|IS_BUILTIN|IS_MODULE|IS_REACHABLE|__builtin_constant_p|__same_type)\b/;

export interface ConditionVerdict {
  annotation: Annotation;
  skip: SkipReason | null;
}

/** Classify a parenthesized `if` condition that parsed without errors. */
export function classifyCondition(cond: Node): ConditionVerdict {
  const inner = cond.namedChildren.find((c) => c && c.type !== 'comment');
  if (!inner) return { annotation: { kind: 'none' }, skip: 'parse-error' };
  const whole = wholeAnnotation(inner, false);
  if (whole) return { annotation: whole, skip: null };
  const partial = partialAnnotation(inner);
  if (partial) return { annotation: { kind: 'partial', macro: partial }, skip: 'partial-annotation' };
  if (COMPILE_TIME_RE.test(cond.text) || isConstantExpression(inner)) {
    return { annotation: { kind: 'none' }, skip: 'compile-time' };
  }
  return { annotation: { kind: 'none' }, skip: null };
}

function calleeName(node: Node): string | null {
  if (node.type !== 'call_expression') return null;
  const fn = node.childForFieldName('function');
  return fn && fn.type === 'identifier' ? fn.text : null;
}

function wholeAnnotation(node: Node, negated: boolean): Annotation | null {
  if (node.type === 'parenthesized_expression') {
    const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
    return inner ? wholeAnnotation(inner, negated) : null;
  }
  if (node.type === 'unary_expression' && node.childForFieldName('operator')?.text === '!') {
    const arg = node.childForFieldName('argument');
    return arg ? wholeAnnotation(arg, !negated) : null;
  }
  const name = calleeName(node);
  if (name === null) return null;
  let expectTrue: boolean | undefined = HINTS[name];
  if (name === '__builtin_expect') {
    const args = node.childForFieldName('arguments')?.namedChildren.filter((c) => c && c.type !== 'comment') ?? [];
    const expected = args[1]?.text.trim();
    if (expected === '0' || expected === '1') expectTrue = expected === '1';
  } else if (HINTED_INSIDE.has(name)) {
    expectTrue = false;
  }
  if (expectTrue === undefined) return null;
  const at = node.startPosition;
  return { kind: 'whole', macro: name, expectTrue: negated ? !expectTrue : expectTrue, at: { row: at.row, column: at.column } };
}

function partialAnnotation(node: Node): string | null {
  for (const call of node.descendantsOfType('call_expression')) {
    const name = call ? calleeName(call) : null;
    if (name && (name in HINTS || name === '__builtin_expect')) return name;
  }
  return null;
}

/**
 * Only literals, `sizeof(...)` and ALL_CAPS names (constant macros):
 * `PAGE_SIZE > 4096`, `sizeof(long) == 8`, `0`.
 */
function isConstantExpression(node: Node): boolean {
  if (node.type === 'sizeof_expression') return true;
  if (node.type === 'identifier') return /^[A-Z][A-Z0-9_]*$/.test(node.text);
  if (node.type === 'field_identifier' || node.type === 'string_literal') return false;
  return node.namedChildren.every((c) => c === null || c.type === 'comment' || isConstantExpression(c));
}
