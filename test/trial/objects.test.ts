/**
 * The objects a patch touches, read from kbuild's own .cmd files copied
 * from real 6.12 builds (./fixtures/kbuild/README): a .c file #included
 * into another object is found through that object's dependency list, a
 * header reaches every object that includes it, host programs and archives
 * are left out, and the earlier layout's absolute paths read the same.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { cmdFiles, objectsTouching, parseCmdFile } from '../../src/trial/objects.ts';
import { tempDir } from '../helpers/cli.ts';

const FIXTURES = new URL('./fixtures/kbuild/', import.meta.url).pathname;
const fixture = (name: string): string => gunzipSync(readFileSync(join(FIXTURES, name))).toString('utf8');

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

/** The current layout: the object directory inside the tree copy, the .cmd files where kbuild put them. */
const tree = join(dir, 'work/src');
const obj = join(tree, 'hintlab-obj');
for (const name of readdirSync(FIXTURES).filter((n) => n.includes('%'))) {
  const path = join(obj, name.replace(/\.gz$/, '').replaceAll('%', '/'));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, fixture(name));
}

test('6.12\'s kernel/sched/syscalls.c has no object of its own: it is found inside build_policy.o, which #includes it', () => {
  assert.deepEqual(objectsTouching(obj, tree, ['kernel/sched/syscalls.c']), [
    { object: 'kernel/sched/build_policy.o', reach: 'includes', files: ['kernel/sched/syscalls.c'] },
  ]);
});

test('an object built from a patched file comes before those that only include a patched header', () => {
  assert.deepEqual(objectsTouching(obj, tree, ['mm/mincore.c', 'include/linux/sched.h']), [
    { object: 'mm/mincore.o', reach: 'source', files: ['mm/mincore.c', 'include/linux/sched.h'] },
    { object: 'kernel/sched/build_policy.o', reach: 'header', files: ['include/linux/sched.h'] },
  ]);
});

test('host programs (scripts/, tools/) and archives are not objects of the kernel', () => {
  assert.deepEqual(cmdFiles(obj).map((f) => f.slice(obj.length + 1)), ['kernel/sched/.build_policy.o.cmd', 'mm/.mincore.o.cmd']);
  assert.deepEqual(objectsTouching(obj, tree, ['scripts/kconfig/conf.c']), []);
  assert.equal(parseCmdFile(fixture('kernel%sched%.built-in.a.cmd.gz'), obj, tree), null);
});

test('a file no object reads touches nothing', () => {
  assert.deepEqual(objectsTouching(obj, tree, ['Documentation/scheduler/sched-eevdf.rst']), []);
});

test('the dependency list is read whole, relative to the tree, without kconfig wildcards or generated files', () => {
  const rec = parseCmdFile(fixture('kernel%sched%.build_policy.o.cmd.gz'), obj, tree)!;
  assert.equal(rec.object, 'kernel/sched/build_policy.o');
  assert.equal(rec.source, 'kernel/sched/build_policy.c');
  // the file's first and last entries; 745 distinct '  ../' lines (grep -E '^  \.\./' | sort -u | wc -l);
  // the .c files build_policy.c #includes, in its order (the source itself is not listed as a dependency)
  assert.equal(rec.deps[0], 'include/linux/compiler-version.h');
  assert.equal(rec.deps.at(-1), 'include/linux/sched/debug.h');
  assert.equal(rec.deps.length, 745);
  assert.deepEqual(rec.deps.filter((d) => d.endsWith('.c')), [
    'kernel/sched/idle.c', 'kernel/sched/rt.c', 'kernel/sched/cpudeadline.c', 'kernel/sched/pelt.c', 'kernel/sched/cputime.c', 'kernel/sched/deadline.c', 'kernel/sched/syscalls.c',
  ]);
  assert.ok(!rec.deps.some((d) => d.includes('wildcard') || d.startsWith('include/config/') || d.includes('generated')));
});

test('a build of the earlier layout (absolute paths in its .cmd files) reads the same', () => {
  const legacyTree = '/root/.cache/hintlab/test-kernels/behave-A/work/src';
  const legacy = parseCmdFile(fixture('legacy-build_policy.o.cmd.gz'), '/root/.cache/hintlab/test-kernels/behave-A/work/obj', legacyTree)!;
  const current = parseCmdFile(fixture('kernel%sched%.build_policy.o.cmd.gz'), obj, tree)!;
  assert.equal(legacy.source, 'kernel/sched/build_policy.c');
  assert.ok(legacy.deps.includes('kernel/sched/syscalls.c'));
  // 745 distinct lines under the absolute tree in that file too, none left absolute
  assert.equal(legacy.deps.length, 745);
  assert.equal(legacy.deps.filter((d) => d.startsWith('/')).length, 0);
  assert.deepEqual(legacy.deps.filter((d) => d.endsWith('.c')), current.deps.filter((d) => d.endsWith('.c')));
});
