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
import { readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Comparison } from '../../src/compare/types.ts';
import { treeFingerprint } from '../../src/kernel/source.ts';
import { testKernelTree } from '../codegen/kernel-tree.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { SCHED_FILE, schedSlowdownPatch } from '../helpers/sched-patch.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../helpers/tools.ts';

const TARBALL = '/usr/src/linux-source-6.12.tar.xz';
const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (two kernel builds and three boots): set HINTLAB_SLOW_TESTS=1'
    : requireAll(requireFile(TARBALL, 'linux-source-6.12'), requireKernelBuildTools(), requireTool('patch', 'patch'), requireTool('qemu-system-x86_64', 'qemu-system-x86'));

const cache = join(process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache'), 'hintlab', 'test-kernels');

test('A/B/A on two real 6.12 kernels: compare reports only the patched syscall slower', { skip, timeout: 3_600_000 }, async () => {
  const tree = testKernelTree();
  const before = treeFingerprint(tree);
  const dir = tempDir();
  try {
    const patch = schedSlowdownPatch(tree, dir);
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
    assert.deepEqual([manifestB.patches[0]?.files, manifestB.opt], [[SCHED_FILE], 'O2']);

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
