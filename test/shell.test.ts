import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { shellLine, shellWord } from '../src/shell.ts';

test('plain words stay as they are; others are single-quoted', () => {
  assert.equal(shellWord('--profile'), '--profile');
  assert.equal(shellWord('a b'), "'a b'");
  assert.equal(shellWord("it's"), "'it'\\''s'");
});

test('a quoted line given to sh comes back as the same arguments', () => {
  const argv = ['printf', '%s\\n', 'a b', "it's", '$HOME', 'x;y', '*'];
  const r = spawnSync('sh', ['-c', shellLine(argv)], { encoding: 'utf8' });
  assert.equal(r.stdout, ['a b', "it's", '$HOME', 'x;y', '*'].map((w) => `${w}\n`).join(''));
});
