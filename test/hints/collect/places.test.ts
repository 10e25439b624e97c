/**
 * `hints collect` replaces its --out at the end of a run: a tree inside that
 * --out (even one an earlier set made) is refused before anything is built.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
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
    () => checkCollectInputs({ src, out, scope: { kind: 'all' } }),
    (e: unknown) => e instanceof UserError && e.exitCode === 2 && e.message.startsWith(`--src ${src} is inside --out ${out}, which hintlab clears`),
  );
});
