/**
 * `hints collect` replaces its --out at the end of a run and clears its
 * --build-dir's work/: a tree inside either is refused before anything is
 * built or removed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UserError } from '../../../src/errors.ts';
import { checkCollectInputs, RECORD_FILE } from '../../../src/hints/collect/collect.ts';
import { tempDir } from '../../helpers/cli.ts';

test('a --src inside an earlier coverage set given as --out is refused (the set is replaced whole)', () => {
  const out = tempDir();
  writeFileSync(join(out, RECORD_FILE), '{}');
  const src = join(out, 'linux');
  mkdirSync(src);
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\n');
  assert.throws(
    () => checkCollectInputs({ src, out, scope: { kind: 'all' }, buildDir: join(tempDir(), 'build') }),
    (e: unknown) => e instanceof UserError && e.exitCode === 2 && e.message.startsWith(`--src ${src} is inside --out ${out}, which hintlab clears`),
  );
});

test('a --src inside the coverage kernel\'s --build-dir (X/work/src, the copy the build clears) is refused before anything is built', () => {
  const x = tempDir();
  const src = join(x, 'work', 'src');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\n');
  assert.throws(
    () => checkCollectInputs({ src, out: join(tempDir(), 'set'), scope: { kind: 'all' }, buildDir: x }),
    (e: unknown) => e instanceof UserError && e.exitCode === 2 && e.message.startsWith(`--src ${src} is inside --build-dir ${x}, which hintlab clears`),
  );
  assert.ok(existsSync(join(src, 'Makefile')));
});
