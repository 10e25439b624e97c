/**
 * Exit statuses of every command: a usage error exits 2, a failure 1. The
 * commands are walked from the program itself, so a new command or flag is
 * covered without touching this file.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Command, CommanderError } from 'commander';
import type { CliIO } from '../../src/cli/io.ts';
import { UserError } from '../../src/errors.ts';
import { buildProgram } from '../../src/cli/main.ts';
import { Store } from '../../src/store/store.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const silent: CliIO = { stdout: () => {}, stderr: () => {}, isTTY: false, env: {}, cwd: process.cwd() };

/** Every command with an action, as the words that name it: ['bench'], ['hints', 'collect'], ... */
function commandPaths(cmd: Command, path: string[] = []): { path: string[]; cmd: Command }[] {
  const own = path.length > 0 ? [{ path, cmd }] : [];
  return [...own, ...cmd.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]))];
}

const program = await buildProgram(silent);
const commands = commandPaths(program);
// a database nobody has: a command that got past its flags would say so with another message
const env = { HINTLAB_DB: join(tempDir(), 'none.db') };

test('the walk finds every top-level command and the subcommands', () => {
  const names = commands.map((c) => c.path.join(' '));
  for (const name of ['bench', 'runs', 'export', 'compare', 'report', 'codegen', 'hints', 'hints collect', 'vm', 'session', 'kernel build', 'behave', 'trial', 'macro']) {
    assert.ok(names.includes(name), `${name} missing from ${names.join(', ')}`);
  }
});

test('an unknown flag exits 2 naming it, in every command', async () => {
  for (const { path } of commands) {
    const r = await runCli([...path, '--no-such-flag'], { env });
    assert.equal(r.code, 2, `${path.join(' ')}: ${r.stderr}`);
    // a command with a mandatory flag names that one first
    assert.match(r.stderr, /unknown option '--no-such-flag'|required option '--[a-z-]+ <[a-z]+>' not specified/, path.join(' '));
  }
});

test('a flag given without its value exits 2 naming it, for every flag of every command that takes one', async () => {
  for (const { path, cmd } of commands) {
    for (const opt of cmd.options.filter((o) => o.required)) {
      const flag = opt.long ?? opt.short!;
      const r = await runCli([...path, flag], { env });
      assert.equal(r.code, 2, `${path.join(' ')} ${flag}: ${r.stderr}`);
      assert.match(r.stderr, /argument missing/, `${path.join(' ')} ${flag}`);
    }
  }
});

test('every value parser refuses nonsense as a usage error (exit 2), or keeps the text for the command to check', () => {
  const nonsense = '\u0007x';
  for (const { path, cmd } of commands) {
    for (const opt of cmd.options.filter((o) => o.parseArg !== undefined)) {
      let outcome: unknown;
      try {
        outcome = opt.parseArg!(nonsense, undefined as never);
      } catch (err) {
        const code = err instanceof UserError ? err.exitCode : err instanceof CommanderError ? 2 : `not a usage error: ${String(err)}`;
        assert.equal(code, 2, `${path.join(' ')} ${opt.flags}`);
        continue;
      }
      // a collector (repeatable flag, a file named once) hands the text on unchanged
      const kept = Array.isArray(outcome) ? outcome.includes(nonsense) : outcome === nonsense;
      assert.ok(kept, `${path.join(' ')} ${opt.flags} turned '${nonsense}' into ${JSON.stringify(outcome)}`);
    }
  }
});

test('bad flag values that only the command can check exit 2, and failures exit 1', async () => {
  const dir = tempDir();
  const db = join(dir, 'h.db');
  Store.open(db).close();
  const src = join(dir, 'a.c');
  writeFileSync(src, 'int f(int x) { return x; }\n');
  const cases: [argv: string[], code: number, says: RegExp][] = [
    [['codegen', '--before', join(dir, 'missing.c'), '--after', src], 2, /--before .*missing\.c: no such file/],
    [['codegen', '--src', join(dir, 'missing'), '--patch', src, '--obj', 'mm/x.o'], 2, /--src .*: no such directory/],
    [['codegen', '--before', src, '--after', src, '--objdump', 'no-such-objdump'], 1, /'no-such-objdump' not found/],
    [['report', 'A', 'B', '--db', db, '-o', join(dir, 'r.pdf')], 2, /-o .*r\.pdf: cannot tell the format from the extension '\.pdf'/],
    [['report', 'A', 'B', '--db', db, '-o', join(dir, 'r.html'), '--format', 'md'], 2, /--format md contradicts -o .*r\.html/],
    [['export', 'A', '--db', db, '-o', join(dir, 'r.json'), '--format', 'csv'], 2, /--format csv contradicts -o/],
    [['export', 'A', '--db', db], 2, /no run with id or label 'A'/],
    [['runs', '--db', join(dir, 'none.db')], 2, /no results database/],
    [['bench', '--precision', '2%', '--db', db], 2, /--precision applies to an A\/B invocation/],
  ];
  for (const [argv, code, says] of cases) {
    const r = await runCli(argv, { env });
    assert.equal(r.code, code, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, says, argv.join(' '));
  }
});

test('trial --src that is no kernel tree exits 2 before the results database is created', { skip: requireTool('qemu-system-x86_64', 'qemu-system-x86') }, async () => {
  const dir = tempDir();
  const patch = join(dir, 'p.patch');
  writeFileSync(patch, '--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n');
  const db = join(dir, 'trial.db');
  const r = await runCli(['trial', '--src', join(dir, 'missing'), '--patch', patch, '--db', db, '--out', join(dir, 'out')]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--src .*missing: no Makefile; point --src at the top of a Linux source tree/);
  assert.equal(existsSync(db), false, 'no database was created');
});
