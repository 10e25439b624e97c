/** Flag values checked before anything runs: labels, empty profiles, bounded integers. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../helpers/cli.ts';

test('labels that are empty or hold newlines or control characters are refused, naming the flag', async () => {
  const db = join(tempDir(), 'h.db');
  const bench = ['bench', '--db', db, '--profile', 'getppid'];
  const cases: [string[], RegExp][] = [
    [[...bench, '--label', ''], /--label is empty: give a name/],
    [[...bench, '--label', '  '], /--label is empty/],
    [[...bench, '--label', 'A\nB'], /--label 'A\\nB' contains a control character \(U\+000A/],
    [[...bench, '--label', 'A\tB'], /--label 'A\\tB' contains a control character \(U\+0009/],
    [[...bench, '--label', 'A\u001b[31m'], /--label .* contains a control character \(U\+001B/],
    [['macro', '--db', db, '--stressor', 'cpu', '--label', 'x\ny'], /--label 'x\\ny' contains a control character/],
    [['macro', '--db', db, '--stressor', 'cpu', '--label', ''], /--label is empty/],
    [['kernel', 'build', '--src', '/nonexistent', '--out', tempDir(), '--label', 'a\rb'], /--label 'a\\rb' contains a control character/],
    [['vm', '--db', db, '--kernel', 'A=/nonexistent', '--label-prefix', 'v\n'], /--label-prefix 'v\\n' contains a control character/],
    [[...bench, '--label', 'x'.repeat(100 * 1024)], /--label is 102400 characters long; a label is at most 64 /],
    [[...bench, '--label-b', 'é'.repeat(65)], /--label-b is 65 characters long; a label is at most 64 /],
  ];
  for (const [argv, message] of cases) {
    const res = await runCli(argv);
    assert.equal(res.code, 2, `${JSON.stringify(argv)}: ${res.stderr}`);
    assert.match(res.stderr, message);
  }
  const list = await runCli(['runs', '--db', db]);
  assert.match(list.stderr, /no results database at/, 'nothing was stored (not even a database created)');
});

test("--profile '' is refused instead of running every profile", async () => {
  const db = join(tempDir(), 'h.db');
  for (const value of ['', ' ', ',']) {
    const res = await runCli(['bench', '--db', db, '--profile', value]);
    assert.equal(res.code, 2, res.stderr);
    assert.match(res.stderr, /--profile is empty: name a profile \(known profiles: getppid, .*\), or 'all'/);
  }
});

test('--inject-seccomp above the kernel limit of 4096 BPF instructions is refused before the run starts', async () => {
  const db = join(tempDir(), 'h.db');
  const res = await runCli(['bench', '--db', db, '--profile', 'getppid', '--inject-seccomp', '4097']);
  assert.equal(res.code, 2, res.stderr);
  assert.match(res.stderr, /--inject-seccomp must be at most 4096 \(the kernel's BPF_MAXINSNS/);
  const list = await runCli(['runs', '--db', db]);
  assert.match(list.stderr, /no results database at/, 'no run was started');
});

test('a label of exactly 64 characters is accepted', async () => {
  const db = join(tempDir(), 'h.db');
  const label = 'L'.repeat(64);
  const res = await runCli(['bench', '--db', db, '--profile', 'getppid', '--ops', '200', '--warmups', '0', '--rounds', '1', '--processes', '1', '--label', label]);
  assert.equal(res.code, 0, res.stderr);
  assert.match(res.stdout, new RegExp(`run #1 '${label}'`));
});
