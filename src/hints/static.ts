/**
 * `hintlab hints --static`: candidates found without any profile. Only one
 * pattern, the one maintainers accept without numbers most readily: an
 * argument check at the very start of a syscall implementation that returns
 * an errno or jumps to an error label.
 */
import type { Node } from 'web-tree-sitter';
import { isMacroBlock } from './flow.ts';

/** Function names of syscall implementations (SYSCALL_DEFINE bodies are named `__do_sys_*`). */
const SYSCALL_FN_RE = /^(__do_sys_|__do_compat_sys_|ksys_|do_sys_)/;
/** Labels that, by kernel convention, lead to an error exit. */
const ERROR_LABEL_RE = /(err|fail|bad|out|inval|fault|free|unlock|put|exit|drop|release)/i;
/** How many leading statements (declarations aside) count as "the start" of a function. */
const LEADING_STATEMENTS = 6;

function statements(block: Node): Node[] {
  return block.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
}

/** `return -EINVAL;`, `return -EFAULT;` ... */
function isErrnoReturn(stmt: Node): boolean {
  return stmt.type === 'return_statement' && /^return\s+-E[A-Z0-9]+\s*;$/.test(stmt.text.trim());
}

function isErrorGoto(stmt: Node): boolean {
  if (stmt.type !== 'goto_statement') return false;
  const label = stmt.childForFieldName('label')?.text ?? '';
  return ERROR_LABEL_RE.test(label);
}

/** The then-branch is one errno return or error goto, possibly in braces. */
function isErrorExit(then: Node): boolean {
  const body = then.type === 'compound_statement' ? statements(then) : [then];
  const only = body.length === 1 ? body[0] : undefined;
  return only !== undefined && (isErrnoReturn(only) || isErrorGoto(only));
}

/**
 * True for an `if` among the first statements of a syscall implementation
 * whose then-branch is an errno return or a goto to an error label.
 */
export function isEarlySyscallErrorExit(ifNode: Node, fn: string): boolean {
  if (!SYSCALL_FN_RE.test(fn)) return false;
  const body = ifNode.parent;
  if (!body || body.type !== 'compound_statement') return false;
  const owner = body.parent;
  const isFunctionBody =
    owner === null || (owner.type === 'function_definition' && !isMacroBlock(owner)) || owner.type === 'translation_unit' || owner.type === 'ERROR' || owner.type.startsWith('preproc_');
  if (!isFunctionBody) return false;
  const then = ifNode.childForFieldName('consequence');
  if (!then || !isErrorExit(then)) return false;
  const leading = statements(body).filter((s) => s.type !== 'declaration');
  const index = leading.findIndex((s) => s.startIndex === ifNode.startIndex);
  return index >= 0 && index < LEADING_STATEMENTS;
}
