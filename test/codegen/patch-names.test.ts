/**
 * Patch file names read as patch(1) and git write them: git's C-quoted
 * names, a tab ending a name (diff -u's time stamp, git's tab after a name
 * with a space), hunk bodies skipped by their counts; an unquoted name with
 * a space and no tab is refused, since patch(1) would patch another file.
 * Every reader of names (the trial's files, the symlink check, per-hunk
 * patches, codegen's paths, the hints' written patch) goes through it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { patchedPaths } from '../../src/codegen/patch.ts';
import { UserError } from '../../src/errors.ts';
import { unifiedDiff } from '../../src/hints/patch.ts';
import { headerName, headerText } from '../../src/kernel/patch-names.ts';
import { checkPatchTargets, diffHunks, patchedFiles, readPatch } from '../../src/kernel/source.ts';
import { variantPatch } from '../../src/trial/hunks.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

const hunk = '@@ -1 +1 @@\n-x\n+y\n';

test('a git-quoted name, a name ended by a tab and a name with a space are read whole', () => {
  assert.deepEqual(patchedFiles(`--- "a/kernel/my\\040file.c"\n+++ "b/kernel/my\\040file.c"\n${hunk}`), ['kernel/my file.c']);
  assert.deepEqual(patchedFiles(`--- a/kernel/my file.c\t2026-12-03 10:00:00.000000000 +0000\n+++ b/kernel/my file.c\t2026-12-03 10:00:01.000000000 +0000\n${hunk}`), ['kernel/my file.c']);
  assert.deepEqual(patchedFiles(`--- "a/kernel/caf\\303\\251.c"\n+++ "b/kernel/caf\\303\\251.c"\n${hunk}`), ['kernel/café.c']);
  assert.deepEqual(patchedPaths(`diff --git a/x b/y\nrename from "kernel/old\\tname.c"\nrename to kernel/new name.c\n`), ['kernel/old\tname.c', 'kernel/new name.c']);
});

test('a name with a space and no tab after it is refused naming the patch and line, as patch(1) would read another file', () => {
  assert.throws(
    () => patchedFiles(`--- a/kernel/my file.c\n+++ b/kernel/my file.c\n${hunk}`, '--patch p.diff'),
    (e: unknown) => e instanceof UserError && e.exitCode === 2 && /^--patch p\.diff, line 1: the name 'a\/kernel\/my file\.c' holds a space and no tab ends it: patch\(1\) would read 'a\/kernel\/my'/.test(e.message),
  );
  assert.throws(() => patchedFiles(`--- "a/kernel/open\n+++ b/x\n${hunk}`), /not a complete C-quoted name/);
});

test('removed and added lines that look like headers inside a hunk are not taken for file names', () => {
  const diff = `--- a/kernel/sys.c\n+++ b/kernel/sys.c\n@@ -1,2 +1,2 @@\n--- not a file\n+++ not one either\n ctx\n`;
  assert.deepEqual(patchedFiles(diff), ['kernel/sys.c']);
  assert.deepEqual(diffHunks(diff), [{ file: 'kernel/sys.c', starts: [1] }]);
});

test('names written by hintlab are read back whole: quoted when special, a tab after a space', () => {
  for (const name of ['a/kernel/sys.c', 'a/kernel/my file.c', 'a/k/"q"\\x.c', 'a/k/tab\there.c', 'a/k/é.c']) assert.equal(headerName(headerText(name), 'test'), name);
  assert.equal(headerText('a/kernel/my file.c'), 'a/kernel/my file.c\t');
  const diff = unifiedDiff('kernel/my file.c', 'a\nb\n', 'a\nc\n');
  assert.match(diff, /^diff --git a\/kernel\/my file\.c b\/kernel\/my file\.c\n--- a\/kernel\/my file\.c\t\n\+\+\+ b\/kernel\/my file\.c\t\n/);
  assert.deepEqual(patchedFiles(diff), ['kernel/my file.c']);
});

test('a per-hunk patch of a file with a space applies with patch(1) to that file', { skip: requireTool('patch', 'patch') }, () => {
  const tree = join(dir, 'tree');
  mkdirSync(join(tree, 'kernel'), { recursive: true });
  writeFileSync(join(tree, 'kernel/my file.c'), 'x\n');
  const text = variantPatch([{ index: 1, file: 'kernel/my file.c', oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, body: ['-x', '+y'] }], new Set([1]));
  assert.deepEqual(diffHunks(text), [{ file: 'kernel/my file.c', starts: [1] }]);
  const r = spawnSync('patch', ['-p1', '--batch', '-d', tree], { input: text, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.equal(readFileSync(join(tree, 'kernel/my file.c'), 'utf8'), 'y\n');
});

test('the trial reads a spaced name whole, and the symlink check looks at the path patch(1) will write', () => {
  const tree = join(dir, 'links');
  mkdirSync(join(tree, 'd'), { recursive: true });
  mkdirSync(join(dir, 'elsewhere'), { recursive: true });
  // 'd' is a real directory; 'd x' is a link out of the tree
  symlinkSync(join(dir, 'elsewhere'), join(tree, 'd x'));
  const path = join(dir, 'spaced.patch');
  const text = `--- "a/d x/f.c"\n+++ "b/d x/f.c"\n${hunk}`;
  writeFileSync(path, text);
  assert.deepEqual(readPatch(path).files, ['d x/f.c']);
  assert.throws(() => checkPatchTargets(tree, { path, text }), /line 1: 'a\/d x\/f\.c' goes through .*d x, a symbolic link/);
});
