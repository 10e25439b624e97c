/**
 * `hintlab hints collect` refusing bad input before (or while) building:
 * each error names the flag or file and the fix, and the source tree is
 * left as it was. The build failure runs real make and gcc on a small
 * stand-in tree whose `tinyconfig` target compiles a broken C file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, tempDir } from '../../helpers/cli.ts';
import { requireAll, requireTool } from '../../helpers/tools.ts';

/** collect checks for qemu before building, and patches the copy of the tree with patch(1). */
const BUILD = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('patch', 'patch'));

function fakeTree(): string {
  const src = join(tempDir('hintlab-fake-linux-'), 'linux');
  mkdirSync(join(src, 'kernel/sched'), { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n\ntinyconfig:\n\t$(CC) -c $(CURDIR)/init/broken.c -o /dev/null\n');
  mkdirSync(join(src, 'init'));
  writeFileSync(join(src, 'init/broken.c'), 'int main(void)\n{\n\treturn 0\n}\n');
  writeFileSync(join(src, 'kernel/sched/Makefile'), 'obj-y += core.o\n');
  return src;
}

const collect = (args: string[]) => runCli(['hints', 'collect', ...args], { env: { ...process.env, XDG_CACHE_HOME: tempDir(), XDG_DATA_HOME: tempDir() } });

test('a directory that is not a kernel tree is refused naming --src', async () => {
  const r = await collect(['--src', tempDir()]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--src \S+: no Makefile; point --src at the top of a Linux source tree/);
});

test('a profile directory the tree does not have is refused', async () => {
  const r = await collect(['--src', fakeTree(), '--profile-dirs', 'kernel/sched,mm']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--profile-dirs mm: .*\/mm does not exist/);
});

test('a dynamically linked workload program is refused with how to build it', async () => {
  const r = await collect(['--src', fakeTree(), '--workload', '/bin/sh']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--workload \/bin\/sh: it is dynamically linked .* build it with 'gcc -static'/);
});

test('a stress-ng stressor the installed stress-ng lacks is refused with the closest name, before any build', { skip: requireTool('stress-ng', 'stress-ng') }, async () => {
  const env = { ...process.env, XDG_CACHE_HOME: tempDir(), XDG_DATA_HOME: tempDir() };
  const r = await runCli(['hints', 'collect', '--src', fakeTree(), '--profile-dirs', 'kernel/sched', '--workload', 'stress-ng:fifx,yield'], { env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--workload stress-ng:fifx,yield: stress-ng \S+ has no stressor 'fifx' \(did you mean 'fifo'\?\)/);
  assert.deepEqual(readdirSync(env.XDG_CACHE_HOME), [], 'nothing was built');
});

test('--stressor-seconds without a stress-ng workload is refused', async () => {
  const r = await collect(['--src', fakeTree(), '--stressor-seconds', '5']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--stressor-seconds applies to --workload stress-ng\[:STRESSOR,\.\.\.\] only; drop it for --workload profiles/);
});

test('an output inside the tree, or a directory of other files, is refused', async () => {
  const src = fakeTree();
  const inside = await collect(['--src', src, '--out', join(src, 'cov')]);
  assert.match(inside.stderr, /--out \S+ is inside --src/);
  const foreign = tempDir();
  writeFileSync(join(foreign, 'notes.txt'), 'mine');
  const r = await collect(['--src', src, '--out', foreign]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /holds files hintlab did not write \(no hintlab-coverage\.json\)/);
  assert.deepEqual(readdirSync(foreign), ['notes.txt']);
});

test('a build failure shows the compiler error line and writes nothing into the tree or the output', { skip: BUILD }, async () => {
  const src = fakeTree();
  const out = join(tempDir(), 'cov');
  const buildDir = join(tempDir(), 'build');
  const r = await collect(['--src', src, '--profile-dirs', 'kernel/sched', '--accel', 'tcg', '--out', out, '--build-dir', buildDir]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /make tinyconfig failed \(make exit 2\):\n.*init\/broken\.c:3:17: error: expected .;. before .}. token/);
  assert.match(r.stderr, /full log: \S+build\.log/);
  assert.deepEqual(readdirSync(src).sort(), ['Makefile', 'init', 'kernel']);
  assert.deepEqual(readdirSync(join(src, 'kernel/sched')), ['Makefile']);
  assert.equal(existsSync(out), false);
});

test('a tree given through a symlink is copied, never patched through the link', { skip: BUILD }, async () => {
  const src = fakeTree();
  const link = join(tempDir(), 'linux-link');
  symlinkSync(src, link);
  const r = await collect(['--src', link, '--profile-dirs', 'kernel/sched', '--accel', 'tcg', '--out', join(tempDir(), 'cov'), '--build-dir', join(tempDir(), 'build')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /make tinyconfig failed/);
  // the profiling patch was applied before make ran: to the copy only
  assert.equal(readFileSync(join(src, 'kernel/sched/Makefile'), 'utf8'), 'obj-y += core.o\n');
});

test('--branch-profiler with --profile-dirs is refused: the branch profiler counts the whole kernel', async () => {
  const r = await collect(['--src', fakeTree(), '--branch-profiler', '--profile-dirs', 'kernel/sched']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--branch-profiler counts every `if` of the kernel: drop --profile-dirs/);
});
