/** The behave command's listing and refusals, before anything boots. */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli, tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('--list names every built-in scenario with its steps, --show prints one with its line numbers', async () => {
  const list = await runCli(['behave', '--list']);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^getppid {16}4 steps\n/);
  assert.match(list.stdout, /\naffinity-two-cpus {6}4 steps {2}peer {2}needs 2 CPUs\n/);
  const show = await runCli(['behave', '--show', 'getppid']);
  assert.equal(show.stdout.split('\n')[0], '   2  scenario getppid');
  assert.equal(show.stdout.split('\n')[2], '   4  repeat 2 getppid');
});

test('bad arguments are refused naming the flag and the fix', async () => {
  const one = await runCli(['behave', '--kernel', `A=${dir}`]);
  assert.deepEqual([one.code, one.stderr], [2, 'hintlab: give exactly two kernels, --kernel A=PATH --kernel B=PATH (got 1)\n']);
  const image = join(dir, 'bzImage');
  writeFileSync(image, Buffer.concat([Buffer.alloc(0x202), Buffer.from('HdrS'), Buffer.alloc(64)]));
  const unknown = await runCli(['behave', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--scenario', 'no-such', '--db', join(dir, 'x.db')]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^hintlab: --scenario no-such: no built-in scenario has that name and no such file exists \(built-in: getppid, sched_getattr, /);
  const scn = join(dir, 'bad.scn');
  writeFileSync(scn, 'scenario mine\nsched_getattr pid=peer\n');
  const bad = await runCli(['behave', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--scenario', scn, '--db', join(dir, 'x.db')]);
  assert.deepEqual([bad.code, bad.stderr], [2, `hintlab: ${scn}:2: pid=peer needs a 'peer' line right after 'scenario mine'\n`]);
  const both = await runCli(['behave', '--json', '--lkml']);
  assert.equal(both.code, 2);
});

test('input quoted in a message reaches the terminal escaped: ESC and OSC in a file, a NUL in a name, a directory named as a file', async () => {
  const image = join(dir, 'bzImage');
  writeFileSync(image, Buffer.concat([Buffer.alloc(0x202), Buffer.from('HdrS'), Buffer.alloc(64)]));
  const behave = (scenario: string) => runCli(['behave', '--kernel', `A=${image}`, '--kernel', `B=${image}`, '--scenario', scenario, '--db', join(dir, 'x.db')]);
  // an OSC sequence that would retitle the terminal, then ESC[2J that would clear it
  const osc = join(dir, 'osc.scn');
  writeFileSync(osc, 'scenario mine\n\x1b]0;owned\x07getppid\x1b[2J\n');
  const a = await behave(osc);
  assert.deepEqual([a.code, a.stderr], [2, `hintlab: ${osc}:2: a control character (U+001B at column 1); a scenario file is plain text: names and calls are letters, digits, '.', '_' and '-'\n`]);
  const nul = join(dir, 'nul.scn');
  writeFileSync(nul, 'scenario mine\ngetppid\0x\n');
  const b = await behave(nul);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /^hintlab: \S+nul\.scn:2: a control character \(U\+0000 at column 8\);/);
  // a file name with an escape sequence, not found: named with \x1b written out
  const c = await behave(join(dir, 'red\x1b[31mname'));
  assert.equal(c.code, 2);
  assert.ok(!c.stderr.includes('\x1b'), c.stderr);
  assert.match(c.stderr, /red\\x1b\[31mname: no built-in scenario/);
  const d = await behave(dir);
  assert.deepEqual([d.code, d.stderr], [2, `hintlab: --scenario ${dir}: it is a directory; give a scenario file inside it, or a built-in scenario's name\n`]);
});
