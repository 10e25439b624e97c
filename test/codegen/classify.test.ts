import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareFunction, fallThroughPath } from '../../src/codegen/classify.ts';
import { FilesSource } from '../../src/codegen/files.ts';
import { runMatrix } from '../../src/codegen/matrix.ts';
import type { FunctionDelta, InsnKind, NormFunction, OptLevel } from '../../src/codegen/types.ts';
import { fixture } from './helpers.ts';
import { requireTool } from '../helpers/tools.ts';

const CLANG = requireTool('clang-14', 'clang-14');

/** Classes of every function, per cell, for two fixtures compiled by the real compilers. */
async function classes(before: string, after: string, opts: OptLevel[], compilers = ['gcc', 'clang-14']): Promise<Map<string, Map<string, FunctionDelta['class']>>> {
  const result = await runMatrix(new FilesSource(fixture(before), fixture(after), []), { compilers, opts });
  const out = new Map<string, Map<string, FunctionDelta['class']>>();
  for (const cell of result.cells) {
    assert.equal(cell.state, 'compared', JSON.stringify(cell));
    out.set(`${cell.compiler.command} -${cell.opt}`, new Map(cell.functions.map((f) => [f.name, f.class])));
  }
  return out;
}

describe('classification of real compiler output', () => {
  it('a comment-only change is identical in every cell', { skip: CLANG }, async () => {
    const cells = await classes('early-return.c', 'early-return-comment.c', ['O2', 'Os', 'O3']);
    assert.equal(cells.size, 6);
    for (const [cell, fns] of cells) assert.deepEqual([...fns], [['check_range', 'identical']], cell);
  });

  it('unlikely() on an early error return under -O2 is layout or changed, never identical', { skip: CLANG }, async () => {
    const cells = await classes('early-return.c', 'early-return-unlikely.c', ['O2']);
    for (const [cell, fns] of cells) assert.match(fns.get('check_range') ?? '', /^(layout|changed)$/, cell);
  });

  it('an added statement is changed', { skip: CLANG }, async () => {
    const cells = await classes('early-return.c', 'early-return-statement.c', ['O2', 'Os']);
    for (const [cell, fns] of cells) assert.equal(fns.get('check_range'), 'changed', cell);
  });

  it('an added function is added, and the old one stays identical', async () => {
    const cells = await classes('early-return.c', 'early-return-function.c', ['O2'], ['gcc']);
    assert.deepEqual([...(cells.get('gcc -O2') ?? [])], [['check_range', 'identical'], ['check_range_twice', 'added']]);
  });
});

/** A hand-built function: each entry is [kind, target index for branches]. */
function fn(shape: [InsnKind, number?][], texts?: string[]): NormFunction {
  return {
    name: 'f',
    symbols: ['f'],
    section: '.text',
    sizeBytes: shape.length,
    insns: shape.map(([kind, targetIndex], i) => ({ kind, targetIndex, part: 'main', sizeBytes: 1, text: texts?.[i] ?? `${kind} ${targetIndex ?? i}` })),
  };
}

describe('fall-through path', () => {
  it('counts to the first return when no conditional branch is taken', () => {
    assert.deepEqual(fallThroughPath(fn([['other'], ['cond-branch', 4], ['other'], ['return'], ['other'], ['return']])), { end: 'return', instructions: 4 });
  });

  it('follows unconditional jumps, including into the cold part', () => {
    assert.deepEqual(fallThroughPath(fn([['jump', 3], ['return'], ['return'], ['other'], ['jump', 1]])), { end: 'return', instructions: 4 });
  });

  it('stops at a loop and says so', () => {
    assert.deepEqual(fallThroughPath(fn([['other'], ['jump', 0]])), { end: 'loop', instructions: 2 });
  });
});

describe('layout versus changed', () => {
  // test; je .L1; mov $-22; .L1: ret
  const before = fn([['other'], ['cond-branch', 3], ['other'], ['return']], ['test', 'je .L1', 'mov $-22', 'ret']);

  it('the same instructions with an inverted branch, a glue jump and padding are layout', () => {
    // test; jne .L1; .L2: ret; nop; .L1: mov $-22; jmp .L2
    const moved = fn([['other'], ['cond-branch', 4], ['return'], ['nop'], ['other'], ['jump', 2]], ['test', 'jne .L1', 'ret', 'nop', 'mov $-22', 'jmp .L2']);
    assert.equal(compareFunction(before, moved).class, 'layout');
  });

  it('a duplicated return is changed, with the counts and both fall-through paths', () => {
    // test; jne .L1; ret; .L1: mov $-22; ret
    const duplicated = fn([['other'], ['cond-branch', 3], ['return'], ['other'], ['return']], ['test', 'jne .L1', 'ret', 'mov $-22', 'ret']);
    const d = compareFunction(before, duplicated);
    assert.equal(d.class, 'changed');
    assert.deepEqual(d.instructions, { before: 4, after: 5 });
    assert.deepEqual(d.fallThrough, { before: { end: 'return', instructions: 4 }, after: { end: 'return', instructions: 3 } });
  });
});
