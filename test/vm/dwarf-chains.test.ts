/**
 * Inline chains from the real addr2line: a small C program compiled with
 * `gcc -g -O2`, whose helper is inlined into main, read back frame by frame,
 * innermost first; and the textual rules (frames without a place dropped,
 * discriminators dropped, paths relative to the tree).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { inlineChains, parseInlineChains, sourcePlaces } from '../../src/vm/dwarf-lines.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const skip = requireTool('gcc', 'gcc') || requireTool('addr2line', 'binutils') || requireTool('nm', 'binutils');

test("an inlined helper's code is placed in the helper at its own line, then in main at the line of the call, from one addr2line run", { skip }, () => {
  const dir = tempDir();
  try {
    const prog = join(dir, 'prog');
    execFileSync('gcc', ['-g', '-O2', '-o', prog, join(import.meta.dirname, 'fixtures', 'inline-chain.c')], { cwd: dir });
    const nm = execFileSync('nm', ['-S', prog], { encoding: 'utf8' });
    const m = /^([0-9a-f]+) ([0-9a-f]+) T main$/m.exec(nm);
    assert.ok(m, `main in nm -S output:\n${nm}`);
    const start = BigInt(`0x${m[1]!}`);
    const addrs = Array.from({ length: Number(BigInt(`0x${m[2]!}`)) }, (_, i) => start + BigInt(i));
    const elf = { path: prog, roots: [join(import.meta.dirname, 'fixtures')] };
    const chains = inlineChains(elf, addrs);
    assert.ok(chains.known, chains.known ? '' : chains.reason);
    const inlined = [...chains.value.values()].filter((c) => c.length === 2);
    assert.ok(inlined.length > 0, 'some of main\'s bytes are the inlined helper');
    for (const chain of inlined) {
      assert.equal(chain[0]!.function, 'helper');
      assert.equal(chain[0]!.file, 'inline-chain.c');
      assert.ok(chain[0]!.line >= 5 && chain[0]!.line <= 10, `helper's own line, got ${chain[0]!.line}`);
      assert.deepEqual(chain[1], { function: 'main', file: 'inline-chain.c', line: 17 });
    }
    // what vm --cost reads from the same run: the innermost line, and the helper named as inlined
    const places = sourcePlaces(elf, addrs);
    assert.ok(places.known);
    const [addr, chain] = [...chains.value.entries()].find(([, c]) => c.length === 2)!;
    assert.deepEqual(places.value.get(addr), { file: 'inline-chain.c', line: chain[0]!.line, inlined: 'helper' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a chain drops frames without a function or a line and every discriminator, and is empty when nothing is known', () => {
  const text = [
    '0xffffffff81001234', 'copy_struct_to_user', '/b/A/work/src/hintlab-obj/../include/linux/uaccess.h:419 (discriminator 1)', '??', '??:0', '__do_sys_sched_getattr', '/b/A/work/src/kernel/sched/syscalls.c:1035',
    '0xffffffff81009999', '??', '??:0',
    '0xffffffff8100aaaa', 'f', 'kernel/x.c:?',
    '',
  ].join('\n');
  const chains = parseInlineChains(text, ['/b/A/work/src/hintlab-obj', '/b/A/work/src']);
  assert.deepEqual(chains.get(0xffffffff81001234n), [
    { function: 'copy_struct_to_user', file: 'include/linux/uaccess.h', line: 419 },
    { function: '__do_sys_sched_getattr', file: 'kernel/sched/syscalls.c', line: 1035 },
  ]);
  assert.deepEqual(chains.get(0xffffffff81009999n), []);
  assert.deepEqual(chains.get(0xffffffff8100aaaan), []);
});

test('an ELF without a line table gives no chains and says so', { skip }, () => {
  const dir = tempDir();
  try {
    const prog = join(dir, 'prog');
    execFileSync('gcc', ['-O2', '-o', prog, join(import.meta.dirname, 'fixtures', 'inline-chain.c')], { cwd: dir });
    const nm = execFileSync('nm', [prog], { encoding: 'utf8' });
    const main = BigInt(`0x${/^([0-9a-f]+) T main$/m.exec(nm)![1]!}`);
    const chains = inlineChains({ path: prog, roots: [] }, [main]);
    assert.ok(!chains.known);
    assert.match(chains.reason, /has no DWARF line table/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
