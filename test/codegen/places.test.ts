/**
 * The codegen workspace is never inside the tree it mirrors (the mirror would
 * copy itself, and clearing it would remove the user's files), nor a
 * directory of the user's: both refused before anything is written.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KernelSource } from '../../src/codegen/kernel-source.ts';
import { UserError } from '../../src/errors.ts';
import { tempDir } from '../helpers/cli.ts';

function tree(x: string): { tree: string; patch: string } {
  const t = join(x, 'linux');
  mkdirSync(join(t, 'scripts'), { recursive: true });
  mkdirSync(join(t, 'mm'));
  writeFileSync(join(t, 'Kbuild'), '');
  writeFileSync(join(t, 'scripts/config'), '');
  writeFileSync(join(t, 'mm/mincore.c'), 'int x;\n');
  writeFileSync(join(x, 'p.patch'), '--- a/mm/mincore.c\n+++ b/mm/mincore.c\n@@ -1 +1 @@\n-int x;\n+int y;\n');
  return { tree: t, patch: join(x, 'p.patch') };
}

test('a --work-dir inside the kernel tree is refused (exit 2) and nothing is created in the tree', () => {
  const x = tempDir();
  const t = tree(x);
  assert.throws(
    () => new KernelSource({ tree: t.tree, patch: t.patch, object: 'mm/mincore.o', workDir: join(t.tree, 'scratch'), env: {} }),
    (e: unknown) => e instanceof UserError && e.exitCode === 2 && /--work-dir \S+ is inside --src \S+linux; give a --work-dir outside the kernel tree/.test(e.message),
  );
  assert.deepEqual(readdirSync(t.tree).sort(), ['Kbuild', 'mm', 'scripts']);
});

test('a workspace directory holding the user\'s files is refused naming it', () => {
  const x = tempDir();
  const t = tree(x);
  const made = new KernelSource({ tree: t.tree, patch: t.patch, object: 'mm/mincore.o', workDir: join(x, 'wd'), env: {} });
  const workspace = made.notes.find((n) => n.startsWith('scratch tree and objects: '))!.slice('scratch tree and objects: '.length);
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'thesis.tex'), 'mine\n');
  assert.throws(
    () => new KernelSource({ tree: t.tree, patch: t.patch, object: 'mm/mincore.o', workDir: join(x, 'wd'), env: {} }),
    (e: unknown) => e instanceof UserError && e.exitCode === 2 && e.message.startsWith(`--work-dir ${workspace} holds files hintlab did not write`),
  );
});
