/** Which command modules a command line loads (only its own, so start-up stays short), and how its errors reach the terminal. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CliIO } from '../../src/cli/io.ts';
import { buildProgram, commandsFor } from '../../src/cli/main.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const io: CliIO = { stdout: () => {}, stderr: () => {}, isTTY: false, env: {}, cwd: process.cwd() };

test('a bare --version loads no command module', () => {
  assert.deepEqual(commandsFor(['--version']), []);
  assert.deepEqual(commandsFor(['-V']), []);
});

test('every command of the full program is registered when its own module alone is loaded', async () => {
  const all = (await buildProgram(io)).commands.map((c) => c.name());
  assert.ok(all.length >= 9, `only ${all.length} commands: ${all.join(', ')}`);
  for (const name of all) {
    assert.equal(commandsFor([name, '--help']).length, 1, `${name} loads more than its own module`);
    const alone = await buildProgram(io, [name, '--help']);
    assert.ok(alone.commands.some((c) => c.name() === name), `${name} is missing when only its module is loaded`);
  }
});

test('a mistyped command loads every module, so the error can suggest the right one', async () => {
  assert.equal(commandsFor(['rnus']).length, commandsFor(['--help']).length);
  const program = await buildProgram(io, ['rnus']);
  assert.ok(program.commands.some((c) => c.name() === 'runs'));
});

test('a message quoting a run reference with an escape sequence shows it escaped, never raw', async () => {
  const db = `${tempDir()}/r.db`;
  Store.open(db).close();
  const r = await runCli(['export', 'x\x1b[2J\x1b]0;t\x07', '--db', db]);
  assert.ok(!/[\x00-\x08\x0b-\x1f]/.test(r.stderr), JSON.stringify(r.stderr));
  assert.match(r.stderr, /'x\\x1b\[2J\\x1b\]0;t\\x07'/);
});
