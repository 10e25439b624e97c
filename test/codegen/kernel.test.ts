/**
 * The mincore unlikely() patch from the lkml thread on Debian's real
 * linux-source-6.12, at -O2 and -Os, through the whole pipeline. A few
 * minutes on the first run (extract the tree, configure two output
 * directories); runs whenever Debian's linux-source-6.12 and the kernel
 * build tools are installed (CI installs them).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CodegenResult } from '../../src/codegen/types.ts';
import { cli, fixture, hashTree, tempDir } from './helpers.ts';
import { KERNEL_TARBALL, testKernelTree } from './kernel-tree.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../helpers/tools.ts';

const skip = requireAll(requireFile(KERNEL_TARBALL, 'linux-source-6.12'), requireKernelBuildTools(), requireTool('patch', 'patch'));

describe('codegen on linux-source-6.12 mm/mincore.o', { skip }, () => {
  it('the hint changes only __do_sys_mincore at -O2, and the tree is left as it was', { timeout: 30 * 60_000 }, async () => {
    const tree = testKernelTree();
    const before = hashTree(tree);
    const r = await cli(['codegen', '--src', tree, '--patch', fixture('mincore-unlikely-6.12.patch'), '--obj', 'mm/mincore.o', '--opt', 'O2,Os', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as CodegenResult;
    assert.deepEqual(doc.subject.kind === 'kernel' && doc.subject.config, { kind: 'defconfig' });
    const [o2, os] = doc.cells;
    assert.ok(o2?.state === 'compared' && os?.state === 'compared');
    // The syscall's body is __do_sys_mincore; the patch touches nothing else.
    const hinted = o2.functions.find((f) => f.name === '__do_sys_mincore');
    assert.match(hinted?.class ?? 'missing', /^(layout|changed)$/);
    for (const cell of [o2, os]) {
      for (const f of cell.functions) if (f.name !== '__do_sys_mincore') assert.equal(f.class, 'identical', `${cell.opt} ${f.name}`);
    }
    assert.equal(hashTree(tree), before);
  });

  it('a patch that breaks the build shows the compiler error, not the make log', { timeout: 10 * 60_000 }, async () => {
    const tree = testKernelTree();
    const patch = join(tempDir(), 'broken.patch');
    writeFileSync(patch, '--- a/mm/mincore.c\n+++ b/mm/mincore.c\n@@ -241,2 +241,2 @@\n \tif (start & ~PAGE_MASK)\n-\t\treturn -EINVAL;\n+\t\treturn -EINVAL\n');
    const r = await cli(['codegen', '--src', tree, '--patch', patch, '--obj', 'mm/mincore.o']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /build failed: gcc \S+ -O2 \(after the patch\):\n(  .*\n)*  mm\/mincore\.c:\d+:\d+: error: /);
    assert.ok(r.stdout.split('\n').length < 40, r.stdout);
  });
});
