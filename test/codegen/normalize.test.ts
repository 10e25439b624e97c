import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listing, normalizeObject, normalizeSymbolName } from '../../src/codegen/normalize.ts';
import { parseObjdump, parseRelocTarget, readObject } from '../../src/codegen/objdump.ts';
import { fixture, tempDir } from './helpers.ts';

describe('symbol names', () => {
  it('drop the numbers compilers add to clones and local statics', () => {
    assert.equal(normalizeSymbolName('mincore_pte_range.isra.0'), 'mincore_pte_range.isra');
    assert.equal(normalizeSymbolName('foo.constprop.0.isra.0'), 'foo.constprop.isra');
    assert.equal(normalizeSymbolName('foo.part.3.cold'), 'foo.part.cold');
    assert.equal(normalizeSymbolName('__key.12'), '__key');
    assert.equal(normalizeSymbolName('__UNIQUE_ID___addressable___SCK__cond_resched129'), '__UNIQUE_ID___addressable___SCK__cond_resched');
    assert.equal(normalizeSymbolName('ext4_fill_super'), 'ext4_fill_super');
  });

  it('relocation targets split into symbol and signed addend', () => {
    assert.deepEqual(parseRelocTarget('__x86_return_thunk-0x4'), { symbol: '__x86_return_thunk', addend: -4 });
    assert.deepEqual(parseRelocTarget('.rodata+0x40'), { symbol: '.rodata', addend: 64 });
    assert.deepEqual(parseRelocTarget('memset'), { symbol: 'memset', addend: 0 });
  });
});

describe('objdump text', () => {
  // Captured from objdump 2.40 on a kernel object (mm/mincore.o, 6.12 defconfig).
  const text = [
    'SYMBOL TABLE:',
    '0000000000000010 l     F .text\t0000000000000009 f',
    '0000000000000000         *UND*\t0000000000000000 __x86_return_thunk',
    '',
    'Disassembly of section .text:',
    '',
    '0000000000000000 <f-0x10>:',
    '   0:\tnop',
    '0000000000000010 <f>:',
    '  10:\ttest   %rdi,%rdi',
    '  13:\tje     14 <f+0x4>',
    '  14:\tjmp    19 <f+0x9>',
    '\t\t\t15: R_X86_64_PLT32\t__x86_return_thunk-0x4',
  ].join('\n');

  it('parses symbols, instructions and the relocation under its instruction', () => {
    const raw = parseObjdump(text);
    assert.deepEqual(raw.symbols[0], { name: 'f', section: '.text', addr: 16, sizeBytes: 9, isFunction: true, isSection: false });
    assert.deepEqual(raw.sections.get('.text')?.[3], { addr: 0x14, text: 'jmp    19 <f+0x9>', relocs: [{ offset: 0x15, type: 'R_X86_64_PLT32', symbol: '__x86_return_thunk', addend: -4 }] });
  });

  it('drops padding outside the symbol, labels branch targets and turns the thunk jump into a return', () => {
    const f = normalizeObject(parseObjdump(text)).get('f');
    assert.deepEqual(listing(f!), ['\ttest %rdi,%rdi', '\tje .L1', '.L1:', '\tjmp __x86_return_thunk']);
    assert.deepEqual(f!.insns.map((i) => i.kind), ['other', 'cond-branch', 'return']);
  });
});

describe('a real object with a cold part', () => {
  it('attaches cold_user.cold to cold_user and names the strings it passes', async () => {
    const obj = join(tempDir(), 'cold.o');
    execFileSync('gcc', ['-O2', '-c', fixture('cold.c'), '-o', obj]);
    const fns = normalizeObject(await readObject(obj));
    assert.deepEqual([...fns.keys()], ['cold_user']);
    const f = fns.get('cold_user')!;
    assert.deepEqual(f.symbols, ['cold_user', 'cold_user.cold']);
    const cold = f.insns.filter((i) => i.part === 'cold').map((i) => i.text);
    assert.ok(cold.some((t) => t.endsWith('<"negative">')), cold.join('\n'));
    assert.ok(cold.includes('call report'), cold.join('\n'));
    // The branch into the cold part and the jump back are labels of the same function.
    assert.ok(f.insns.some((i) => i.kind === 'cond-branch' && f.insns[i.targetIndex!]?.part === 'cold'));
  });
});
