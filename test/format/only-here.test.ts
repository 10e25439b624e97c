/**
 * Every number is written by src/format/: no other file of src/ calls
 * toFixed, toPrecision or toExponential (eslint's no-restricted-syntax says
 * the same while editing; this holds it in the test suite too).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

test('no file of src/ outside src/format/ calls toFixed, toPrecision or toExponential', () => {
  const calls = sources(SRC)
    .filter((file) => !relative(SRC, file).startsWith('format/'))
    .flatMap((file) => readFileSync(file, 'utf8').split('\n').map((line, i) => ({ line, at: `src/${relative(SRC, file)}:${i + 1}` })))
    .filter(({ line }) => /\.(toFixed|toPrecision|toExponential)\(/.test(line))
    .map(({ at, line }) => `${at}: ${line.trim()}`);
  assert.deepEqual(calls, []);
});
