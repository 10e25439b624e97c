/**
 * What a patch may name: files inside the tree, never through a symlink of
 * the tree, and no name planted in the tree is followed when a patched file
 * gets its own inode. Real trees, real symlinks, real patch(1).
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { AppliedPatch } from '../../src/codegen/patch.ts';
import { mirrorTree } from '../../src/codegen/workspace.ts';
import { checkPatchesApply, linkCopy } from '../../src/kernel/source.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const skip = requireTool('patch', 'patch');

/** A tree with kernel/sys.c, and `lnk` a symlink to a directory outside it holding x.c. */
function treeWithLink(x: string): { src: string; outside: string } {
  const src = join(x, 'linux');
  mkdirSync(join(src, 'kernel'), { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\n');
  writeFileSync(join(src, 'kernel/sys.c'), 'int a;\nint b;\nint c;\n');
  const outside = join(x, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'x.c'), 'int a;\nint b;\nint c;\n');
  symlinkSync(outside, join(src, 'lnk'));
  return { src, outside };
}

const diffOf = (file: string): string => `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,3 +1,3 @@\n int a;\n-int b;\n+int b2;\n int c;\n`;

function patchFile(x: string, name: string, text: string): string {
  writeFileSync(join(x, name), text);
  return join(x, name);
}

const refusal = (message: RegExp) => (e: unknown) => e instanceof UserError && e.exitCode === 2 && message.test(e.message);

test('a patch naming ../../etc/x is refused naming the patch file and the line', () => {
  const x = tempDir();
  const { src } = treeWithLink(x);
  const patch = patchFile(x, 'escape.patch', diffOf('../../etc/x'));
  assert.throws(() => checkPatchesApply(src, [patch]), refusal(new RegExp(`^--patch ${patch}, line 2: 'a/\\.\\./\\.\\./etc/x' names a file outside the source tree`)));
});

test('a patch through a symlink of the tree is refused naming the link; the file outside keeps its inode and content', { skip }, () => {
  const x = tempDir();
  const { src, outside } = treeWithLink(x);
  const before = statSync(join(outside, 'x.c'));
  const patch = patchFile(x, 'link.patch', diffOf('lnk/x.c'));
  assert.throws(() => checkPatchesApply(src, [patch]), refusal(new RegExp(`^--patch ${patch}, line 2: 'a/lnk/x.c' goes through ${src}/lnk, a symbolic link \\(to ${outside}\\)`)));
  // the copy has the same link: giving the patched file its own inode must not go through it either
  assert.throws(() => linkCopy(src, join(x, 'copy'), ['lnk/x.c']), /symbolic link/);
  const after = statSync(join(outside, 'x.c'));
  assert.deepEqual([after.ino, after.nlink, readFileSync(join(outside, 'x.c'), 'utf8')], [before.ino, before.nlink, 'int a;\nint b;\nint c;\n']);
});

test('a symlink planted in the tree at the copy\'s temporary name (FILE.hintlab-detach) is not written through', () => {
  const x = tempDir();
  const { src } = treeWithLink(x);
  const victim = join(x, 'root-only');
  writeFileSync(victim, 'secret\n');
  symlinkSync(victim, join(src, 'kernel/sys.c.hintlab-detach'));
  linkCopy(src, join(x, 'copy'), ['kernel/sys.c']);
  assert.equal(readFileSync(victim, 'utf8'), 'secret\n');
  assert.notEqual(statSync(join(x, 'copy/kernel/sys.c')).ino, statSync(join(src, 'kernel/sys.c')).ino, 'the patched file has its own inode');
});

test('codegen: a patch through a symlink of the tree is refused before the mirror is touched; the file outside stays', { skip }, async () => {
  const x = tempDir();
  const { src, outside } = treeWithLink(x);
  const before = statSync(join(outside, 'x.c'));
  const mirror = join(x, 'mirror');
  await mirrorTree(src, mirror);
  const patch = patchFile(x, 'link.patch', diffOf('lnk/x.c'));
  await assert.rejects(AppliedPatch.apply(mirror, src, patch), refusal(/line 2: 'a\/lnk\/x.c' goes through \S+\/lnk, a symbolic link/));
  const after = statSync(join(outside, 'x.c'));
  assert.deepEqual([after.ino, readFileSync(join(outside, 'x.c'), 'utf8')], [before.ino, 'int a;\nint b;\nint c;\n']);
});

test('codegen: a symlink planted in the tree at the mirror\'s temporary name (FILE.hintlab-tmp) is not written through', { skip }, async () => {
  const x = tempDir();
  const { src } = treeWithLink(x);
  const victim = join(x, 'root-only');
  writeFileSync(victim, 'secret\n');
  symlinkSync(victim, join(src, 'kernel/sys.c.hintlab-tmp'));
  const mirror = join(x, 'mirror');
  await mirrorTree(src, mirror);
  const applied = await AppliedPatch.apply(mirror, src, patchFile(x, 'ok.patch', diffOf('kernel/sys.c')));
  assert.equal(readFileSync(victim, 'utf8'), 'secret\n');
  assert.equal(readFileSync(join(mirror, 'kernel/sys.c'), 'utf8'), 'int a;\nint b2;\nint c;\n');
  applied.revert();
  assert.ok(lstatSync(join(src, 'kernel/sys.c.hintlab-tmp')).isSymbolicLink());
});
