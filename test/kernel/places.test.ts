/**
 * Where a build writes and what it clears: a --src inside, equal to (through
 * a symlink) or above the build directory is refused before anything is
 * removed; an --out holding files hintlab did not write is refused, one an
 * earlier hintlab made is still used; an --out that is a file is a usage
 * error. Real trees of real files, checked after the refusal.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { buildKernel, kernelBuildDir } from '../../src/kernel/build.ts';
import type { KernelBuildRequest } from '../../src/kernel/inputs.ts';
import { checkOwnedDir, MARKER_FILE } from '../../src/kernel/owned-dir.ts';
import { tempDir } from '../helpers/cli.ts';

function tree(at: string): string {
  mkdirSync(join(at, 'kernel'), { recursive: true });
  writeFileSync(join(at, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\n');
  writeFileSync(join(at, 'kernel/sys.c'), 'int getppid(void) { return 1; }\n');
  return at;
}

const request = (src: string, out: string): KernelBuildRequest => ({ src, out, patches: [], fragment: null, base: 'tinyconfig', opt: 'O2', label: 'A', jobs: 1 });
const build = (src: string, out: string) => buildKernel(request(src, out), { abort: new AbortController().signal });

async function refusedWith(p: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof UserError && e.exitCode === 2 && message.test(e.message));
}

function intact(src: string): void {
  assert.deepEqual(readdirSync(src).sort(), ['Makefile', 'kernel']);
  assert.equal(readFileSync(join(src, 'kernel/sys.c'), 'utf8'), 'int getppid(void) { return 1; }\n');
}

test('a --src inside the build directory (OUT/work/src, the copy build clears) is refused and every file of the tree stays', async () => {
  const x = tempDir();
  const src = tree(join(x, 'work', 'src'));
  await refusedWith(build(src, x), new RegExp(`--src ${src} is inside --out ${x}, which hintlab clears`));
  intact(src);
});

test('a --src that is a symlink to the build directory\'s tree copy is refused by its real path', async () => {
  const x = tempDir();
  const real = tree(join(x, 'out', 'work', 'src'));
  const link = join(x, 'linux');
  symlinkSync(real, link);
  await refusedWith(build(link, join(x, 'out')), /--src \S+linux \(really \S+\/out\/work\/src\) is inside --out/);
  intact(real);
});

test('an --out whose work/src holds the user\'s files (no marker, no earlier build) is refused naming it; the files stay', async () => {
  const x = tempDir();
  const src = tree(join(x, 'linux'));
  const out = join(x, 'out');
  cpSync(src, join(out, 'work', 'src'), { recursive: true });
  await refusedWith(build(src, out), new RegExp(`--out ${out} holds files hintlab did not write \\(it has no ${MARKER_FILE}`));
  intact(join(out, 'work', 'src'));
});

test('an --out that is a file is a usage error, not an internal EEXIST', async () => {
  const x = tempDir();
  const src = tree(join(x, 'linux'));
  writeFileSync(join(x, 'file'), 'mine\n');
  await refusedWith(build(src, join(x, 'file')), /--out \S+file exists and is not a directory/);
  assert.equal(readFileSync(join(x, 'file'), 'utf8'), 'mine\n');
});

test('a build directory is taken when new, empty, marked, or made by an earlier hintlab (a manifest, or work/detached.json)', () => {
  const x = tempDir();
  const ok = (dir: string) => assert.doesNotThrow(() => checkOwnedDir(kernelBuildDir(dir)));
  ok(join(x, 'new'));
  mkdirSync(join(x, 'empty'));
  ok(join(x, 'empty'));
  mkdirSync(join(x, 'marked', 'work', 'src'), { recursive: true });
  writeFileSync(join(x, 'marked', MARKER_FILE), '');
  ok(join(x, 'marked'));
  mkdirSync(join(x, 'old', 'work', 'src'), { recursive: true });
  writeFileSync(join(x, 'old', 'work', 'detached.json'), '[]');
  ok(join(x, 'old'));
  mkdirSync(join(x, 'notes'));
  writeFileSync(join(x, 'notes', 'todo.txt'), 'mine\n');
  assert.throws(() => checkOwnedDir(kernelBuildDir(join(x, 'notes'))), /holds files hintlab did not write/);
  assert.ok(existsSync(join(x, 'notes', 'todo.txt')));
});
