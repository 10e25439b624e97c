import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { shellWords, wrapCommand, wrapProse } from '../../src/report/wrap.ts';

/** The argv bash gives a (possibly multi-line) command: the real shell is the reference. */
function bashArgv(command: string): string[] {
  const out = execFileSync('bash', ['-c', `set -- ${command}\nprintf '%s\\0' "$@"`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

test('prose wraps at spaces with a hanging indent', () => {
  assert.deepEqual(wrapProse('aaa bbb ccc ddd', 8, '', '  '), ['aaa bbb', '  ccc', '  ddd']);
});

test('a no-break space keeps a number with its unit and prints as a space', () => {
  assert.deepEqual(wrapProse('CI +1.5 to +2.5\u00a0%', 15), ['CI +1.5 to', '+2.5 %']);
});

test('a word longer than the line is cut, never left overflowing', () => {
  const lines = wrapProse(`Kernel: ${'x'.repeat(30)}`, 12, '', '  ');
  assert.deepEqual(lines, ['Kernel:', '  xxxxxxxxxx', '  xxxxxxxxxx', '  xxxxxxxxxx']);
});

test('shell words keep their quotes as written', () => {
  assert.deepEqual(shellWords(`hintlab bench --label 'a b' --x "c d" e\\ f`), ['hintlab', 'bench', '--label', "'a b'", '--x', '"c d"', 'e\\ f']);
});

test('a short command stays on one line', () => {
  assert.deepEqual(wrapCommand('hintlab compare 1 2 3', 72, '  '), ['  hintlab compare 1 2 3']);
});

test('an option stays on the line of its value', () => {
  assert.deepEqual(wrapCommand('hintlab bench -p getppid,sched_getattr --rounds 10 --inject-seccomp 64 --label seccomp64', 60, '  ', '      '), [
    '  hintlab bench -p getppid,sched_getattr --rounds 10 \\',
    '      --inject-seccomp 64 --label seccomp64',
  ]);
});

test('wrapped commands fit the width and run as the same argv in bash', () => {
  const long = 'y'.repeat(150);
  const commands = [
    `hintlab bench --cpu 1 --rounds 15 --ops 20000 --profile getppid --profile sched_getattr --profile read --label base-line`,
    `hintlab vm run --kernel /srv/kernels/${long}/bzImage --label x`,
    `hintlab bench --label '${long} with spaces'`,
    `hintlab bench --label "${long} dq"`,
    `hintlab bench --note ${'z'.repeat(60)}\\ ${'w'.repeat(60)}`,
    `hintlab bench --label 'it'\\''s ${long}'`,
  ];
  for (const cmd of commands) {
    const lines = wrapCommand(cmd, 72, '  ', '      ');
    for (const l of lines) assert.ok(l.length <= 72, `${l.length} columns: ${l}`);
    assert.ok(lines.length > 1 || cmd.length <= 70);
    assert.deepEqual(bashArgv(lines.join('\n')), bashArgv(cmd), lines.join('\n'));
  }
});

test('a word longer than the line breaks after a comma, never inside a token', () => {
  const word = 'sched_policy=0,sched_flags=0,sched_nice=0,sched_priority=0,deadline=0,period=0';
  assert.deepEqual(wrapProse(`out: ${word}`, 30), ['out:', 'sched_policy=0,sched_flags=0,', 'sched_nice=0,sched_priority=0,', 'deadline=0,period=0']);
});
