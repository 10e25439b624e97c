/**
 * Classify how each function changed between two normalized objects:
 * - `identical`: the same normalized listing (labels, cold part and all);
 * - `padding`: the same listing once alignment nops are dropped: only the
 *   padding (and so the offsets after it) differs, the code is the same;
 * - `layout`: the same instructions placed differently. Compared as a
 *   multiset that ignores alignment nops, unconditional jumps between blocks
 *   of the function (they only glue blocks together) and the sense of
 *   conditional branches (moving a block out of line turns `je` into `jne`);
 * - `changed`: instructions added or removed;
 * - `added` / `removed`: the function exists on one side only.
 */
import { listing } from './normalize.ts';
import { unifiedDiff } from './textdiff.ts';
import type { FallThroughPath, FunctionDelta, NormFunction, NormInsn } from './types.ts';

/** Each x86 condition and its inverse share one key. */
const CONDITION_PAIRS: string[][] = [
  ['je', 'jz', 'jne', 'jnz'],
  ['ja', 'jnbe', 'jbe', 'jna'],
  ['jae', 'jnb', 'jnc', 'jb', 'jc', 'jnae'],
  ['jg', 'jnle', 'jle', 'jng'],
  ['jge', 'jnl', 'jl', 'jnge'],
  ['js', 'jns'],
  ['jo', 'jno'],
  ['jp', 'jpe', 'jnp', 'jpo'],
];
const CONDITION_KEY = new Map(CONDITION_PAIRS.flatMap((group) => group.map((m) => [m, group.join('|')] as const)));

/** The instruction as the placement-blind comparison sees it, or undefined to ignore it. */
function placementKey(insn: NormInsn): string | undefined {
  if (insn.kind === 'nop' || insn.kind === 'jump') return undefined;
  if (insn.kind !== 'cond-branch') return insn.text;
  const words = insn.text.split(' ');
  const mnemonic = words[words.length - 2] ?? '';
  return `${CONDITION_KEY.get(mnemonic) ?? mnemonic} <label>`;
}

function placementMultiset(fn: NormFunction): string[] {
  return fn.insns.flatMap((i) => placementKey(i) ?? []).sort();
}

const sameArray = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Follow the function from its entry assuming no conditional branch is taken,
 * counting instructions (nops included: they execute) until it returns,
 * leaves, traps, loops or runs off its end.
 */
export function fallThroughPath(fn: NormFunction): FallThroughPath {
  const visited = new Set<number>();
  let i = 0;
  let count = 0;
  for (;;) {
    const insn = fn.insns[i];
    if (!insn) return { end: 'falls-off-end', instructions: count };
    if (visited.has(i)) return { end: 'loop', instructions: count };
    visited.add(i);
    count++;
    switch (insn.kind) {
      case 'return':
        return { end: 'return', instructions: count };
      case 'trap':
        return { end: 'trap', instructions: count };
      case 'tail-call':
        return { end: 'tail-call', instructions: count, target: insn.text.split(' ').slice(1).join(' ') };
      case 'jump':
        i = insn.targetIndex ?? fn.insns.length;
        break;
      default:
        i++;
    }
  }
}

/** The function without its alignment nops; a label on a nop moves to the next instruction. */
function withoutNops(fn: NormFunction): NormFunction {
  const insns: NormInsn[] = [];
  let label: string | undefined;
  for (const insn of fn.insns) {
    if (insn.kind === 'nop') {
      label ??= insn.label;
      continue;
    }
    insns.push(label !== undefined && insn.label === undefined ? { ...insn, label } : insn);
    label = undefined;
  }
  return { ...fn, insns };
}

const countCold = (fn: NormFunction): number => fn.insns.filter((i) => i.part === 'cold').length;

/** Compare one function present on both sides. */
export function compareFunction(before: NormFunction, after: NormFunction, context = 2): FunctionDelta {
  const a = listing(before);
  const b = listing(after);
  if (sameArray(a, b)) return { name: before.name, class: 'identical', instructions: before.insns.length, sizeBytes: before.sizeBytes };
  if (sameArray(listing(withoutNops(before)), listing(withoutNops(after)))) {
    return {
      name: before.name,
      class: 'padding',
      instructions: { before: before.insns.length, after: after.insns.length },
      sizeBytes: { before: before.sizeBytes, after: after.sizeBytes },
      diff: unifiedDiff(a, b, context),
    };
  }
  return {
    name: before.name,
    class: sameArray(placementMultiset(before), placementMultiset(after)) ? 'layout' : 'changed',
    instructions: { before: before.insns.length, after: after.insns.length },
    sizeBytes: { before: before.sizeBytes, after: after.sizeBytes },
    coldInstructions: { before: countCold(before), after: countCold(after) },
    fallThrough: { before: fallThroughPath(before), after: fallThroughPath(after) },
    diff: unifiedDiff(a, b, context),
  };
}

/** Every function of either side, in the order of `before` then the added ones in the order of `after`. */
export function compareObjects(before: Map<string, NormFunction>, after: Map<string, NormFunction>): FunctionDelta[] {
  const out: FunctionDelta[] = [];
  for (const [name, fn] of before) {
    const other = after.get(name);
    out.push(other ? compareFunction(fn, other) : { name, class: 'removed', instructions: fn.insns.length, sizeBytes: fn.sizeBytes });
  }
  for (const [name, fn] of after) {
    if (!before.has(name)) out.push({ name, class: 'added', instructions: fn.insns.length, sizeBytes: fn.sizeBytes });
  }
  return out;
}
