/**
 * A complete A/B/A session on real kernel sources (slow: behind
 * HINTLAB_SLOW_TESTS=1). Debian's linux-source-6.12 is built twice with
 * `hintlab kernel build` (tinyconfig + the built-in fragment, -O2): as
 * shipped, and with a patch of this test's own that adds a 100-iteration
 * loop to sched_getscheduler(). Both boot under TCG with --icount in ABA
 * order; `hintlab compare` must call sched_getscheduler slower and nothing
 * else, and the source tree must come out untouched.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Comparison } from '../../src/compare/types.ts';
import { treeFingerprint } from '../../src/kernel/source.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hintlabCache, KERNEL_TARBALL, sourceTree } from '../helpers/kernel-source.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../helpers/tools.ts';

const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (two kernel builds and three boots): set HINTLAB_SLOW_TESTS=1'
    : requireAll(requireFile(KERNEL_TARBALL, 'linux-source-6.12'), requireKernelBuildTools(), requireTool('patch', 'patch'), requireTool('qemu-system-x86_64', 'qemu-system-x86'));

const cache = join(hintlabCache, 'test-kernels');
const FILE = 'kernel/sched/syscalls.c';
const ANCHOR = 'SYSCALL_DEFINE1(sched_getscheduler, pid_t, pid)\n{\n\tstruct task_struct *p;\n\tint retval;\n\n\tif (pid < 0)\n\t\treturn -EINVAL;\n';

/** A unified diff (made by diff -u, so it fits whatever 6.12.y Debian ships) adding work to sched_getscheduler. */
function slowdownPatch(tree: string, dir: string): string {
  const original = readFileSync(join(tree, FILE), 'utf8');
  assert.ok(original.includes(ANCHOR), `${FILE} no longer has the expected sched_getscheduler opening`);
  const work = '\n\t/* test load: 100 iterations the compiler must keep */\n\tfor (int i = 0; i < 100; i++)\n\t\tbarrier();\n';
  mkdirSync(join(dir, 'a/kernel/sched'), { recursive: true });
  mkdirSync(join(dir, 'b/kernel/sched'), { recursive: true });
  writeFileSync(join(dir, 'a', FILE), original);
  writeFileSync(join(dir, 'b', FILE), original.replace(ANCHOR, ANCHOR + work));
  const diff = spawnSync('diff', ['-u', `a/${FILE}`, `b/${FILE}`], { cwd: dir, encoding: 'utf8' });
  assert.equal(diff.status, 1, diff.stderr);
  const patch = join(dir, 'sched_getscheduler-loop.patch');
  writeFileSync(patch, diff.stdout);
  return patch;
}

test('A/B/A on two real 6.12 kernels: compare reports only the patched syscall slower', { skip, timeout: 3_600_000 }, async () => {
  const tree = sourceTree();
  const before = treeFingerprint(tree);
  const dir = tempDir();
  try {
    const patch = slowdownPatch(tree, dir);
    const t0 = Date.now();
    const a = await runCli(['kernel', 'build', '--src', tree, '--out', join(cache, 'A'), '--label', 'A']);
    assert.equal(a.code, 0, a.stderr);
    const b = await runCli(['kernel', 'build', '--src', tree, '--patch', patch, '--out', join(cache, 'B'), '--label', 'B']);
    assert.equal(b.code, 0, b.stderr);
    const built = Date.now();
    assert.equal(treeFingerprint(tree), before, 'the source tree changed during the builds');
    // nothing changed: the second build of A is the first one, reused
    const again = await runCli(['kernel', 'build', '--src', tree, '--out', join(cache, 'A'), '--label', 'A']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /up to date/);
    const manifestB = JSON.parse(readFileSync(join(cache, 'B', 'hintlab-kernel.json'), 'utf8')) as { patches: { files: string[] }[]; opt: string };
    assert.deepEqual([manifestB.patches[0]?.files, manifestB.opt], [[FILE], 'O2']);

    const db = join(dir, 'aba.db');
    const profiles = 'getppid,sched_getscheduler,sched_getparam';
    const vm = await runCli(['vm', '--kernel', `A=${join(cache, 'A')}`, '--kernel', `B=${join(cache, 'B')}`, '--order', 'ABA', '--icount', '--accel', 'tcg',
      '--profile', profiles, '--ops', '20000', '--warmups', '1', '--rounds', '8', '--db', db]);
    assert.equal(vm.code, 0, vm.stderr);
    const booted = Date.now();
    const cmp = await runCli(['compare', 'vm-A-1', 'vm-B-1', 'vm-A-2', '--db', db, '--json']);
    assert.equal(cmp.code, 0, cmp.stderr);
    const doc = JSON.parse(cmp.stdout) as Comparison;
    const verdicts = Object.fromEntries(doc.subjects.map((s) => [s.subject, s.verdict.verdict]));
    assert.equal(verdicts.sched_getscheduler, 'slower');
    assert.notEqual(verdicts.getppid, 'slower');
    assert.notEqual(verdicts.sched_getparam, 'slower');
    assert.deepEqual(doc.regressions, ['sched_getscheduler']);
    const text = await runCli(['compare', 'vm-A-1', 'vm-B-1', 'vm-A-2', '--db', db]);
    process.stderr.write(`${a.stderr}${a.stdout}${b.stderr}${b.stdout}${vm.stderr}${vm.stdout}${text.stdout.split('\n\n').slice(0, 2).join('\n\n')}\nbuilds ${((built - t0) / 1000).toFixed(0)} s, boots ${((booted - built) / 1000).toFixed(0)} s\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
