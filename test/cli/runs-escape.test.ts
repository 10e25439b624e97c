/** A stored error or command can hold what a server or a file said: `runs` shows it escaped, never raw. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { makeRun, storeRun } from '../compare/fixtures.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const base = [99.6, 100.2, 99.9, 100.4, 99.8, 100.1, 100.0, 99.7, 100.3, 100.0];

test('runs RUN and runs --verbose show a stored error with a terminal escape as \\x1b, not as the escape', async () => {
  const db = join(tempDir(), 'h.db');
  const store = Store.open(db);
  const id = storeRun(store, makeRun({ id: 1, label: 'A', values: { getppid: base } }), null);
  store.finishRun(id, 'failed', 'LAVA said: \x1b]0;owned\x07 device gone\nsecond line');
  store.close();
  for (const args of [['runs', '1'], ['runs', '--verbose']]) {
    const r = await runCli([...args, '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes('\x1b') && !r.stdout.includes('\x07'), `${args.join(' ')}: no raw escape`);
    assert.match(r.stdout, /error: LAVA said: \\x1b\]0;owned\\x07 device gone\nsecond line/);
  }
});
