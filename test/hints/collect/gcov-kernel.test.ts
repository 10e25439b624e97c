/**
 * The host half of collection on real tools: the kbuild patch applied by
 * patch(1) to a scratch tree, and .gcda bytes turned into gcov JSON by the
 * system's gcc and gcov next to a build's .gcno.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { UserError } from '../../../src/errors.ts';
import { coverageSettings, parseProfileDirs, profilePatch } from '../../../src/hints/collect/kernel.ts';
import { objectRelative, placeGcda, runGcov } from '../../../src/hints/collect/run-gcov.ts';
import { readGcovJson } from '../../../src/hints/gcov.ts';
import { tempDir } from '../../helpers/cli.ts';
import { requireTool } from '../../helpers/tools.ts';

const dir = tempDir('hintlab-collect-');
after(() => rmSync(dir, { recursive: true, force: true }));

function tree(): string {
  const src = join(dir, `tree-${Math.random().toString(36).slice(2)}`);
  mkdirSync(join(src, 'kernel/sched'), { recursive: true });
  mkdirSync(join(src, 'fs'), { recursive: true });
  writeFileSync(join(src, 'kernel/sched/Makefile'), '# SPDX-License-Identifier: GPL-2.0\n\nobj-y += core.o\nobj-y += fair.o\n');
  writeFileSync(join(src, 'fs/Kbuild'), 'obj-y += select.o\n');
  writeFileSync(join(src, 'fs/Makefile'), 'not used: Kbuild wins\n');
  return src;
}

test('the profiling patch puts GCOV_PROFILE := y first in each kbuild file and applies with patch -p1', { skip: requireTool('patch', 'patch') }, () => {
  const src = tree();
  const patch = join(dir, 'p.diff');
  writeFileSync(patch, profilePatch(src, ['kernel/sched', 'fs']));
  execFileSync('patch', ['-p1', '--batch', '--fuzz=0', '-d', src, '-i', patch]);
  assert.equal(readFileSync(join(src, 'kernel/sched/Makefile'), 'utf8'), 'GCOV_PROFILE := y\n# SPDX-License-Identifier: GPL-2.0\n\nobj-y += core.o\nobj-y += fair.o\n');
  assert.equal(readFileSync(join(src, 'fs/Kbuild'), 'utf8'), 'GCOV_PROFILE := y\nobj-y += select.o\n');
  assert.equal(readFileSync(join(src, 'fs/Makefile'), 'utf8'), 'not used: Kbuild wins\n');
});

test('a directory that opts out of gcov, or does not exist, is refused with the file and line', () => {
  const src = tree();
  writeFileSync(join(src, 'kernel/sched/Makefile'), 'obj-y += core.o\nGCOV_PROFILE := n\n');
  assert.throws(() => profilePatch(src, ['kernel/sched']), (e: unknown) => e instanceof UserError && /kernel\/sched\/Makefile:2 says 'GCOV_PROFILE := n'/.test(e.message));
  assert.throws(() => profilePatch(src, ['mm']), /--profile-dirs mm: .*mm does not exist/);
});

test('--profile-dirs takes tree-relative directories only', () => {
  assert.deepEqual(parseProfileDirs('kernel/sched/, ./fs,mm,fs'), ['kernel/sched', 'fs', 'mm']);
  assert.throws(() => parseProfileDirs('/abs'), /relative to the top of the tree/);
  assert.throws(() => parseProfileDirs('fs/../mm'), /relative to the top of the tree/);
  assert.throws(() => parseProfileDirs(','), /--profile-dirs is empty/);
});

test('whole-tree profiling asks for GCOV_PROFILE_ALL, per-directory profiling does not', () => {
  assert.deepEqual(coverageSettings({ kind: 'all' }).map((s) => s.name), ['DEBUG_FS', 'GCOV_KERNEL', 'GCOV_PROFILE_ALL']);
  assert.deepEqual(coverageSettings({ kind: 'dirs', dirs: ['fs'] }).map((s) => s.name), ['DEBUG_FS', 'GCOV_KERNEL']);
});

test('guest paths map into the object directory; anything else is refused', () => {
  assert.equal(objectRelative('/sys/kernel/debug/gcov/b/work/obj/kernel/sched/core.gcda', '/b/work/obj'), 'kernel/sched/core.gcda');
  assert.throws(() => objectRelative('/sys/kernel/debug/gcov/other/obj/fs/select.gcda', '/b/work/obj'), /not a \.gcda file of this build/);
  assert.throws(() => objectRelative('/sys/kernel/debug/gcov/b/work/obj/../x.gcda', '/b/work/obj'), /not a \.gcda file of this build/);
});

const PROGRAM = `int main(int argc, char **argv)
{
	int odd = 0;
	(void)argv;
	for (int i = 0; i < 1000 + argc; i++)
		if (i % 2)
			odd++;
	return odd == 500 ? 0 : 1;
}
`;

test('received .gcda bytes beside the build .gcno give gcov JSON with the counts the program ran', { skip: requireTool('gcov', 'gcc') }, () => {
  // a "build": object dir with .gcno only, as after a kernel build; the counts come back as bytes
  const src = join(dir, 'prog');
  const obj = join(src, 'obj/sub');
  mkdirSync(obj, { recursive: true });
  writeFileSync(join(src, 'count.c'), PROGRAM);
  execFileSync('gcc', ['--coverage', '-O2', '-c', join(src, 'count.c'), '-o', join(obj, 'count.o')], { cwd: src });
  execFileSync('gcc', ['--coverage', join(obj, 'count.o'), '-o', join(src, 'count')]);
  assert.equal(spawnSync(join(src, 'count')).status, 0);
  const gcda = readFileSync(join(obj, 'count.gcda'));
  unlinkSync(join(obj, 'count.gcda'));
  const guestPath = `/sys/kernel/debug/gcov${join(src, 'obj')}/sub/count.gcda`;
  const scratch = join(dir, 'scratch');
  const { placed, noGcno } = placeGcda(
    [{ guestPath, data: gcda }, { guestPath: `/sys/kernel/debug/gcov${join(src, 'obj')}/sub/gone.gcda`, data: gcda }],
    join(src, 'obj'),
    join(scratch, 'obj'),
  );
  assert.deepEqual(noGcno, ['sub/gone.gcda']);
  const out = join(dir, 'out');
  const written = runGcov(placed, join(scratch, 'obj'), join(scratch, 'json'), out);
  assert.deepEqual(written, ['sub/count.gcov.json.gz']);
  assert.equal(existsSync(join(obj, 'count.gcda')), false, 'the build directory is left as it was');
  const doc = readGcovJson(join(out, written[0]!));
  const file = doc.files.find((f) => f.path.endsWith('count.c'));
  // line 6 is `if (i % 2)`: 1001 iterations with argc 1; line 7 ran for the 500 odd i
  assert.equal(file?.lines.get(6)?.count, 1001);
  assert.equal(file.lines.get(7)?.count, 500);
});
