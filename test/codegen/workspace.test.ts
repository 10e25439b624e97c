import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AppliedPatch, patchedPaths } from '../../src/codegen/patch.ts';
import { mirrorTree } from '../../src/codegen/workspace.ts';
import { UserError } from '../../src/errors.ts';
import { hashTree, tempDir } from './helpers.ts';
import { requireTool } from '../helpers/tools.ts';

/** A small tree configured and built in place, like a user's kernel tree. */
function userTree(): string {
  const tree = join(tempDir(), 'linux');
  mkdirSync(join(tree, 'mm'), { recursive: true });
  mkdirSync(join(tree, 'include', 'config'), { recursive: true });
  writeFileSync(join(tree, 'mm', 'mincore.c'), 'int a;\n\tif (start & ~PAGE_MASK)\n\t\treturn -EINVAL;\nint b;\n');
  writeFileSync(join(tree, 'mm', 'mincore.o'), 'object');
  writeFileSync(join(tree, 'mm', '.mincore.o.cmd'), 'cmd');
  writeFileSync(join(tree, '.config'), 'CONFIG_X=y\n');
  writeFileSync(join(tree, 'include', 'config', 'auto.conf'), 'x');
  symlinkSync('mincore.c', join(tree, 'mm', 'link.c'));
  return tree;
}

const PATCH = '--- a/mm/mincore.c\n+++ b/mm/mincore.c\n@@ -1,4 +1,4 @@\n int a;\n-\tif (start & ~PAGE_MASK)\n+\tif (unlikely(start & ~PAGE_MASK))\n \t\treturn -EINVAL;\n int b;\n';

describe('the scratch mirror', () => {
  it('hard-links sources and leaves out the in-tree config and build products', async () => {
    const tree = userTree();
    const mirror = join(tempDir(), 'src');
    await mirrorTree(tree, mirror);
    assert.equal(statSync(join(mirror, 'mm', 'mincore.c')).ino, statSync(join(tree, 'mm', 'mincore.c')).ino);
    assert.equal(readlinkSync(join(mirror, 'mm', 'link.c')), 'mincore.c');
    for (const p of ['.config', 'include/config', 'mm/mincore.o', 'mm/.mincore.o.cmd']) assert.equal(existsSync(join(mirror, p)), false, p);
  });

  it('follows the tree: a file replaced by an editor is re-linked, a deleted one removed, nothing else touched', async () => {
    const tree = userTree();
    const mirror = join(tempDir(), 'src');
    await mirrorTree(tree, mirror);
    writeFileSync(join(tree, 'mm', 'new.c'), 'int c;\n');
    renameSync(join(tree, 'mm', 'new.c'), join(tree, 'mm', 'mincore.c'));
    rmSync(join(tree, 'mm', 'link.c'));
    const stats = await mirrorTree(tree, mirror);
    assert.equal(readFileSync(join(mirror, 'mm', 'mincore.c'), 'utf8'), 'int c;\n');
    assert.equal(existsSync(join(mirror, 'mm', 'link.c')), false);
    // Left: include/, mm/, mm/mincore.c.
    assert.deepEqual(stats, { updated: 1, removed: 1, entries: 3 });
  });
});

describe('patching the mirror', { skip: requireTool('patch', 'patch') }, () => {
  it('lists the files a patch touches', () => {
    assert.deepEqual(patchedPaths(PATCH), ['mm/mincore.c']);
  });

  it('patches only the mirror and reverts it, leaving the tree byte for byte as it was', async () => {
    const tree = userTree();
    const before = hashTree(tree);
    const mirror = join(tempDir(), 'src');
    await mirrorTree(tree, mirror);
    const patchFile = join(tempDir(), 'hint.patch');
    writeFileSync(patchFile, PATCH);
    const applied = await AppliedPatch.apply(mirror, tree, patchFile);
    assert.match(readFileSync(join(mirror, 'mm', 'mincore.c'), 'utf8'), /unlikely\(start/);
    assert.equal(hashTree(tree), before);
    applied.revert();
    assert.equal(readFileSync(join(mirror, 'mm', 'mincore.c'), 'utf8'), readFileSync(join(tree, 'mm', 'mincore.c'), 'utf8'));
    assert.equal(hashTree(tree), before);
  });

  it('a patch that does not apply names the patch, the file and the failed hunk', async () => {
    const tree = userTree();
    const mirror = join(tempDir(), 'src');
    await mirrorTree(tree, mirror);
    const patchFile = join(tempDir(), 'stale.patch');
    writeFileSync(patchFile, PATCH.replace(/start & ~PAGE_MASK/g, 'addr & ~PAGE_MASK'));
    await assert.rejects(AppliedPatch.apply(mirror, tree, patchFile), (err: unknown) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, /stale\.patch does not apply/);
      assert.match(err.message, /mm\/mincore\.c/);
      assert.match(err.message, /Hunk #1 FAILED/);
      return true;
    });
    assert.equal(readFileSync(join(mirror, 'mm', 'mincore.c'), 'utf8'), readFileSync(join(tree, 'mm', 'mincore.c'), 'utf8'));
  });
});
