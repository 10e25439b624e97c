/**
 * Function names on a real `gcc --coverage -O2` profile
 * (fixtures/userspace/names.c): gcov's function records name a function
 * defined through a macro, and `if`s inside macro blocks
 * (`for_each_item(i) { ... }`, `scoped_guard (lock) { ... }`) belong to the
 * function around them, with or without a profile.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cParser, scanSource } from '../../src/hints/parse.ts';
import { hintlab, markerLine } from './helpers.ts';

const FIXTURE = new URL('./fixtures/userspace/names.c', import.meta.url).pathname;
const SOURCE = readFileSync(FIXTURE, 'utf8');
const line = (m: string): number => markerLine(SOURCE, m);

let dir = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hintlab-names-'));
  copyFileSync(FIXTURE, join(dir, 'names.c'));
  execFileSync('gcc', ['--coverage', '-O2', '-o', 'names', 'names.c'], { cwd: dir });
  execFileSync(join(dir, 'names'), ['100000'], { cwd: dir, stdio: 'ignore' });
  execFileSync('gcov', ['-j', '-b', 'names.c'], { cwd: dir, stdio: 'ignore' });
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('function names', () => {
  test('the parser sees through macro blocks inside a function', async () => {
    const sites = scanSource(await cParser(), 'names.c', SOURCE).sites;
    const fn = (m: string): string | undefined => sites.find((s) => s.line === line(m))?.fn;
    assert.deepEqual([fn('EACH'), fn('GUARD')], ['walk', 'walk']);
    // Without a profile, a function defined through a macro keeps the macro's name.
    assert.equal(fn('DEF'), 'DEFINE_HANDLER');
  });

  test("with a profile, every row is named after gcov's function record", async () => {
    const r = await hintlab(['hints', `w=${join(dir, 'names.gcov.json.gz')}`, '--src', dir, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const rows = (JSON.parse(r.stdout) as { rows: { line: number; function: string }[] }).rows;
    assert.deepEqual(
      rows.map((x) => [x.line, x.function]).sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [line('DEF'), 'handle_odd'],
        [line('EACH'), 'walk'],
        [line('GUARD'), 'walk'],
      ],
    );
  });
});
