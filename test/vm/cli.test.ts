/** Bad input to `hintlab vm` and `hintlab kernel build` is refused before anything runs, naming the flag and the fix. */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { bzImageStub, runCli, tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const image = bzImageStub(dir);
const db = join(dir, 'x.db');

test('hintlab vm refuses bad kernels, orders and flags with exit status 2', async () => {
  const cases: [string[], RegExp][] = [
    [['vm', '--db', db], /give at least one --kernel LABEL=PATH/],
    [['vm', '--kernel', `A=${image}`, '--kernel', `A=${image}`, '--db', db], /--kernel label 'A' is given twice/],
    [['vm', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--order', 'ABC', '--db', db], /step 'C' is not a --kernel label/],
    [['vm', '--kernel', `A=${image}`, '--accel', 'xen', '--db', db], /--accel must be auto, kvm or tcg, got 'xen'/],
    [['vm', '--kernel', `A=${image}`, '--icount', '--profile', 'sched_setaffinity-queued', '--db', db], /--icount guests have one CPU/],
    [['vm', '--kernel', `A=${image}`, '--profile', 'nosuch', '--db', db], /unknown profile 'nosuch'/],
    [['vm', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--repeat', '3', '--order', 'ABAB', '--db', db], /--repeat sets the boot order itself \(A B B A \.\.\.\); drop --order/],
    [['vm', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--repeat', '1', '--db', db], /--repeat must be an integer >= 2, got '1'/],
    [['vm', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--repeat', '3', '--macro', '--db', db], /--repeat pools boots of probe profiles; it does not work with --macro yet/],
    [['vm', '--kernel', `A=${image}`, '--detect', '0', '--db', db], /--detect must be a percentage > 0/],
  ];
  for (const [argv, re] of cases) {
    const r = await runCli(argv);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});

test('hintlab vm --icount refuses --accel kvm, after finding qemu', { skip: requireTool('qemu-system-x86_64', 'qemu-system-x86') }, async () => {
  const argv = ['vm', '--kernel', `A=${image}`, '--icount', '--accel', 'kvm', '--db', db];
  const r = await runCli(argv);
  assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
  assert.match(r.stderr, /needs TCG/);
});

test('hintlab kernel build refuses a missing tree, an output inside the tree, and a bad --opt', async () => {
  const tree = join(dir, 'linux');
  mkdirSync(tree);
  writeFileSync(join(tree, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n');
  const cases: [string[], RegExp][] = [
    [['kernel', 'build', '--src', join(dir, 'nope'), '--out', join(dir, 'o'), '--label', 'A'], /--src .*nope is not a directory/],
    [['kernel', 'build', '--src', tree, '--out', join(tree, 'out'), '--label', 'A'], /--out .* is inside --src/],
    [['kernel', 'build', '--src', tree, '--out', join(dir, 'o'), '--label', 'A', '--opt', 'O3'], /--opt must be O2 or Os, got 'O3'/],
    [['kernel', 'build', '--src', tree, '--out', join(dir, 'o'), '--label', 'A', '--patch', join(dir, 'missing.patch')], /--patch .*missing\.patch: no such file/],
  ];
  for (const [argv, re] of cases) {
    const r = await runCli(argv);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});
