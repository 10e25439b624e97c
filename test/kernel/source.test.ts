/**
 * The user's tree must come out of a build exactly as it went in: real cp,
 * real patch(1), checked by inode, content and mtime.
 */
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { applyPatch, diffHunks, kernelVersion, linkCopy, patchedFiles, patchReport, readPatch, treeFingerprint } from '../../src/kernel/source.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const PATCH = `diff --git a/kernel/sys.c b/kernel/sys.c
index 1111111..2222222 100644
--- a/kernel/sys.c
+++ b/kernel/sys.c
@@ -1,4 +1,5 @@
 int getppid(void)
 {
+\tint work = 1;
 \treturn 1;
 }
`;

function fakeTree(root: string): string {
  const src = join(root, 'linux');
  mkdirSync(join(src, 'kernel'), { recursive: true });
  mkdirSync(join(src, 'include/config'), { recursive: true });
  writeFileSync(join(src, 'Makefile'), '# SPDX\nVERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\nNAME = Baby Opossum Posse\n');
  writeFileSync(join(src, 'kernel/sys.c'), 'int getppid(void)\n{\n\treturn 1;\n}\n');
  writeFileSync(join(src, 'kernel/other.c'), 'int x;\n');
  // an in-place configured tree, which make O= refuses
  writeFileSync(join(src, '.config'), 'CONFIG_X=y\n');
  writeFileSync(join(src, 'include/config/auto.conf'), 'CONFIG_X=y\n');
  return src;
}

test('the kernel version is read from the top Makefile', () => {
  const dir = tempDir();
  try {
    assert.equal(kernelVersion(fakeTree(dir)), '6.12.57');
    assert.throws(() => kernelVersion(dir), (e: unknown) => e instanceof UserError && /no Makefile/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the files a git diff touches are listed without their a/ b/ prefixes', () => {
  const diff = `${PATCH}--- /dev/null\n+++ b/kernel/new.c\t2024-01-01\n@@ -0,0 +1 @@\n+int y;\n`;
  assert.deepEqual(patchedFiles(diff), ['kernel/new.c', 'kernel/sys.c']);
});

test('patching the hard-link copy leaves the original tree byte-for-byte and inode-for-inode unchanged', { skip: requireTool('patch', 'patch') }, () => {
  const dir = tempDir();
  try {
    const src = fakeTree(dir);
    const before = treeFingerprint(src);
    const sysBefore = statSync(join(src, 'kernel/sys.c'));
    const patchFile = join(dir, 'work.patch');
    writeFileSync(patchFile, PATCH);
    const patch = readPatch(patchFile);
    const copy = join(dir, 'out', 'src');
    mkdirSync(join(dir, 'out'));
    linkCopy(src, copy, patch.files);
    assert.deepEqual(applyPatch(copy, patch), [{ file: 'kernel/sys.c', hunks: [{ hunk: 1, line: 1, offsetLines: 0, fuzz: 0 }] }]);

    assert.equal(readFileSync(join(copy, 'kernel/sys.c'), 'utf8'), 'int getppid(void)\n{\n\tint work = 1;\n\treturn 1;\n}\n');
    assert.equal(readFileSync(join(src, 'kernel/sys.c'), 'utf8'), 'int getppid(void)\n{\n\treturn 1;\n}\n');
    const sysAfter = statSync(join(src, 'kernel/sys.c'));
    assert.equal(sysAfter.ino, sysBefore.ino);
    assert.equal(sysAfter.mtimeMs, sysBefore.mtimeMs);
    assert.notEqual(statSync(join(copy, 'kernel/sys.c')).ino, sysAfter.ino);
    // untouched files are shared, not copied
    assert.equal(statSync(join(copy, 'kernel/other.c')).ino, statSync(join(src, 'kernel/other.c')).ino);
    // the in-place configuration is gone from the copy only
    assert.throws(() => statSync(join(copy, '.config')));
    assert.throws(() => statSync(join(copy, 'include/config')));
    assert.equal(readFileSync(join(src, '.config'), 'utf8'), 'CONFIG_X=y\n');
    assert.equal(treeFingerprint(src), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a patch that does not apply is refused with patch(1) output, the tree untouched', { skip: requireTool('patch', 'patch') }, () => {
  const dir = tempDir();
  try {
    const src = fakeTree(dir);
    const before = treeFingerprint(src);
    const patchFile = join(dir, 'bad.patch');
    writeFileSync(patchFile, PATCH.replace('\treturn 1;', '\treturn 2;'));
    const patch = readPatch(patchFile);
    const copy = join(dir, 'copy');
    linkCopy(src, copy, patch.files);
    assert.throws(() => applyPatch(copy, patch), (e: unknown) => e instanceof UserError && /bad\.patch does not apply[\s\S]*FAILED/.test(e.message));
    assert.equal(treeFingerprint(src), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that is not a diff is refused naming the flag and file', () => {
  const dir = tempDir();
  try {
    const f = join(dir, 'notes.txt');
    writeFileSync(f, 'just text\n');
    assert.throws(() => readPatch(f), (e: unknown) => e instanceof UserError && e.message.startsWith(`--patch ${f}: no '+++ b/...' lines`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a --src given as a symlink is copied, never written through: the tree keeps its .config and its sources', { skip: requireTool('patch', 'patch') }, () => {
  const dir = tempDir();
  try {
    const src = fakeTree(dir);
    const link = join(dir, 'linux-link');
    symlinkSync(src, link);
    const before = treeFingerprint(src);
    const patchFile = join(dir, 'work.patch');
    writeFileSync(patchFile, PATCH);
    const patch = readPatch(patchFile);
    const copy = join(dir, 'out', 'src');
    mkdirSync(join(dir, 'out'));
    linkCopy(link, copy, patch.files);
    applyPatch(copy, patch);
    assert.equal(lstatSync(copy).isSymbolicLink(), false, 'the copy is a directory of its own');
    assert.equal(readFileSync(join(src, 'kernel/sys.c'), 'utf8'), 'int getppid(void)\n{\n\treturn 1;\n}\n');
    assert.equal(readFileSync(join(src, '.config'), 'utf8'), 'CONFIG_X=y\n');
    assert.equal(treeFingerprint(src), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** 50 numbered lines; the patch changes lines 10 and 40 and adds two after 10. */
const NUMBERED = Array.from({ length: 50 }, (_, i) => `${i + 1}`).join('\n') + '\n';
const SHIFTING = `--- a/kernel/n.c
+++ b/kernel/n.c
@@ -8,5 +8,7 @@
 8
 9
-10
+ten
+ten2
+ten3
 11
 12
@@ -38,5 +40,5 @@
 38
 39
-40
+forty
 41
 42
`;

test('where each hunk applied is recorded from patch(1)\'s own report: the header\'s line, or the line it found with its offset', { skip: requireTool('patch', 'patch') }, () => {
  const dir = tempDir();
  try {
    const src = fakeTree(dir);
    writeFileSync(join(src, 'kernel/n.c'), NUMBERED);
    const patchFile = join(dir, 'shift.patch');
    writeFileSync(patchFile, SHIFTING);
    const patch = readPatch(patchFile);
    const exact = join(dir, 'exact');
    linkCopy(src, exact, patch.files);
    assert.deepEqual(applyPatch(exact, patch), [
      { file: 'kernel/n.c', hunks: [{ hunk: 1, line: 8, offsetLines: 0, fuzz: 0 }, { hunk: 2, line: 40, offsetLines: 0, fuzz: 0 }] },
    ]);
    // three lines more at the top of the file: both hunks apply 3 lines further down, no fuzz
    writeFileSync(join(src, 'kernel/n.c'), `a\nb\nc\n${NUMBERED}`);
    const shifted = join(dir, 'shifted');
    linkCopy(src, shifted, patch.files);
    assert.deepEqual(applyPatch(shifted, patch), [
      { file: 'kernel/n.c', hunks: [{ hunk: 1, line: 11, offsetLines: 3, fuzz: 0 }, { hunk: 2, line: 43, offsetLines: 3, fuzz: 0 }] },
    ]);
    assert.equal(readFileSync(join(shifted, 'kernel/n.c'), 'utf8').split('\n')[12], 'ten');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('patch(1) reports are read with fuzz, one-line offsets and negative offsets; diff sections keep their order', () => {
  const report = patchReport('patching file kernel/a.c\nHunk #2 succeeded at 640 with fuzz 1 (offset 1 line).\npatching file kernel/b.c\nHunk #1 succeeded at 7 (offset -2 lines).\n');
  assert.deepEqual(report.map((r) => [r.file, [...r.hunks]]), [
    ['kernel/a.c', [[2, { line: 640, offsetLines: 1, fuzz: 1 }]]],
    ['kernel/b.c', [[1, { line: 7, offsetLines: -2, fuzz: 0 }]]],
  ]);
  assert.deepEqual(diffHunks(`${SHIFTING}--- /dev/null\n+++ b/kernel/new.c\n@@ -0,0 +1,2 @@\n+a\n+b\n`), [
    { file: 'kernel/n.c', starts: [8, 40] },
    { file: 'kernel/new.c', starts: [1] },
  ]);
});
