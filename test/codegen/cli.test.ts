import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CodegenResult } from '../../src/codegen/types.ts';
import { cli, fixture, hashTree, tempDir } from './helpers.ts';
import { requireTool } from '../helpers/tools.ts';

const pair = ['--before', fixture('early-return.c'), '--after', fixture('early-return-statement.c')];

describe('hintlab codegen on plain C files', () => {
  it('prints the matrix, the diff and the summary sentence; a missing compiler is a skipped column', async () => {
    const r = await cli(['codegen', ...pair, '--cc', 'gcc,clang-99', '--opt', 'O2,Os']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^check_range +changed [+-]\d+ insn [+-]\d+ B +changed .* +skipped +skipped$/m);
    assert.match(r.stdout, /--- gcc 12\.2\.0 -O2: check_range \(changed\)\n@@ /);
    assert.match(r.stdout, /skipped clang-99 -O2: 'clang-99' is not installed/);
    assert.match(r.stdout, /summary: gcc 12\.2 -O2: check_range changed \([+-]\d+ instructions, [+-]\d+ bytes\)/);
  });

  it('--json carries every cell and function class', async () => {
    const r = await cli(['codegen', ...pair, '--json']);
    const doc = JSON.parse(r.stdout) as CodegenResult;
    assert.equal(doc.schema, 2);
    assert.equal(doc.cells[0]?.state, 'compared');
    assert.equal(doc.cells[0].functions[0]?.class, 'changed');
  });

  it('two files that differ only in a 3-byte nopl are identical (padding), said apart from a layout change', async () => {
    const padding = ['--before', fixture('padding-before.c'), '--after', fixture('padding-after.c')];
    const r = await cli(['codegen', ...padding]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^check_range +identical \(padding\)$/m);
    assert.match(r.stdout, /summary: gcc 12\.2 -O2: check_range identical \(padding: only alignment nops differ\)\./);
    assert.doesNotMatch(r.stdout, /reordered|layout/);
    const doc = JSON.parse((await cli(['codegen', ...padding, '--json'])).stdout) as CodegenResult;
    const fn = doc.cells[0]?.state === 'compared' ? doc.cells[0].functions[0] : undefined;
    assert.equal(fn?.class, 'padding');
    // The nopl is one instruction of 3 bytes (0f 1f 00).
    assert.equal(fn.instructions.after - fn.instructions.before, 1);
  });

  it('a file that does not compile shows the compiler error line and exits 1', async () => {
    const r = await cli(['codegen', '--before', fixture('early-return.c'), '--after', fixture('broken.c')]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /build failed: gcc 12\.2\.0 -O2 \(after the patch\):\n(  .*\n)*  .*broken\.c:\d+:\d+: error: expected ';'/);
    assert.match(r.stderr, /1 of 1 cells did not build/);
  });

  it('a missing objdump names binutils', async () => {
    const r = await cli(['codegen', ...pair, '--objdump', 'no-such-objdump']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /'no-such-objdump' not found.*apt-get install -y binutils/);
  });

  it('bad flags name the flag', async () => {
    assert.match((await cli(['codegen', ...pair, '--opt', 'O9'])).stderr, /--opt: unknown level 'O9'/);
    assert.match((await cli(['codegen', '--before', fixture('early-return.c')])).stderr, /--before and --after go together/);
    assert.match((await cli(['codegen', ...pair, '--src', '/tmp'])).stderr, /not both/);
  });
});

describe('hintlab codegen on a kernel tree: bad input', () => {
  it('a patch that does not apply is reported before any build, and the tree is left as it was', { skip: requireTool('patch', 'patch') }, async () => {
    const tree = join(tempDir(), 'linux');
    mkdirSync(join(tree, 'mm'), { recursive: true });
    mkdirSync(join(tree, 'scripts'));
    writeFileSync(join(tree, 'Kbuild'), '');
    writeFileSync(join(tree, 'scripts', 'config'), '');
    writeFileSync(join(tree, 'mm', 'mincore.c'), 'int x;\n');
    const before = hashTree(tree);
    const r = await cli(['codegen', '--src', tree, '--patch', fixture('mincore-unlikely-6.12.patch'), '--obj', 'mm/mincore.o', '--work-dir', tempDir()]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /mincore-unlikely-6\.12\.patch does not apply/);
    assert.match(r.stderr, /Hunk #1 FAILED at 238/);
    assert.equal(hashTree(tree), before);
  });

  it('an object without a source, or a directory that is not a kernel tree, says so', async () => {
    const notKernel = tempDir();
    const r = await cli(['codegen', '--src', notKernel, '--patch', fixture('mincore-unlikely-6.12.patch'), '--obj', 'mm/mincore.o']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not a Linux kernel source tree/);
  });

  it('a missing --before file is a usage error (exit 2) and leaves no temporary directory behind', async () => {
    const tmp = tempDir();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp; // os.tmpdir() reads it at each call
    try {
      const r = await cli(['codegen', '--before', join(tmp, 'missing.c'), '--after', fixture('early-return.c')]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--before .*missing\.c: no such file/);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    assert.deepEqual(readdirSync(tmp), []);
  });
});
