/**
 * B from A on Debian's linux-source-6.12 (slow: behind HINTLAB_SLOW_TESTS=1).
 * A is tinyconfig + hintlab's fragment at -O2 (kept in the cache and reused
 * when nothing changed); B adds a loop to sched_getscheduler() and is built
 * with --from A into a fresh directory. Checked independently of the code
 * under test: B's manifest names A, a handful of "CC" lines in B's log,
 * B's sched_getscheduler grew (nm -S) and its image differs, and both A's
 * directory and the source tree are exactly as before (fingerprints).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { KernelManifest } from '../../src/kernel/manifest.ts';
import { treeFingerprint } from '../../src/kernel/source.ts';
import { KERNEL_TARBALL, testKernelTree } from '../codegen/kernel-tree.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { compiledObjects, schedSlowdownPatch } from '../helpers/sched-patch.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../helpers/tools.ts';

const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (a kernel build, then an incremental one): set HINTLAB_SLOW_TESTS=1'
    : requireAll(requireFile(KERNEL_TARBALL, 'linux-source-6.12'), requireKernelBuildTools(), requireTool('patch', 'patch'), requireTool('nm', 'binutils'));

const cache = join(process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), '.cache'), 'hintlab', 'test-kernels');

const manifestOf = (dir: string): KernelManifest => JSON.parse(readFileSync(join(dir, 'hintlab-kernel.json'), 'utf8')) as KernelManifest;

/** The size in bytes of a symbol of a vmlinux, from `nm -S`. */
function symbolSize(vmlinux: string, name: string): number {
  const nm = spawnSync('nm', ['-S', vmlinux], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.equal(nm.status, 0, nm.stderr);
  const line = nm.stdout.split('\n').find((l) => l.endsWith(` ${name}`));
  assert.ok(line, `${name} is not in ${vmlinux}`);
  return parseInt(line.split(' ')[1]!, 16);
}

test('B built --from A recompiles a handful of objects, says so in its manifest, and leaves A and the tree as they were', { skip, timeout: 3_600_000 }, async () => {
  const tree = testKernelTree();
  const treeBefore = treeFingerprint(tree);
  const dir = tempDir();
  const a = join(cache, 'inc-A');
  const b = join(dir, 'B');
  try {
    const patch = schedSlowdownPatch(tree, dir);
    const builtA = await runCli(['kernel', 'build', '--src', tree, '--out', a, '--label', 'A']);
    assert.equal(builtA.code, 0, builtA.stderr);
    const aBefore = treeFingerprint(a);
    const builtB = await runCli(['kernel', 'build', '--src', tree, '--patch', patch, '--from', a, '--out', b, '--label', 'B']);
    assert.equal(builtB.code, 0, builtB.stderr);

    const mA = manifestOf(a);
    const mB = manifestOf(b);
    assert.deepEqual(mB.incremental, { dir: a, label: 'A', inputKey: mA.inputKey });
    assert.equal(mB.configSha256, mA.configSha256, 'B has A\'s configuration');
    assert.match(mB.release ?? '', /^6\.12\.\d+$/);
    const compiled = compiledObjects(join(b, 'build.log'));
    assert.ok(compiled.includes('kernel/sched/build_policy.o'), `syscalls.c is compiled inside build_policy.c: ${compiled.join(', ')}`);
    assert.ok(compiled.length <= 10, `${compiled.length} objects recompiled: ${compiled.join(', ')}`);
    assert.notDeepEqual(readFileSync(join(b, 'bzImage')), readFileSync(join(a, 'bzImage')));
    const syscall = '__x64_sys_sched_getscheduler';
    const sizeA = symbolSize(join(a, 'work/src/hintlab-obj/vmlinux'), syscall);
    const sizeB = symbolSize(join(b, 'work/src/hintlab-obj/vmlinux'), syscall);
    assert.ok(sizeB > sizeA, `B's ${syscall} (${sizeB} bytes) should hold the loop A's (${sizeA} bytes) has not`);
    assert.equal(treeFingerprint(a), aBefore, "A's directory changed while B was built from it");
    assert.equal(treeFingerprint(tree), treeBefore, 'the source tree changed');
    process.stderr.write(`${builtA.stdout}${builtB.stderr}${builtB.stdout}objects recompiled in B: ${compiled.join(' ')}\n` +
      `${syscall}: ${sizeA} bytes in A, ${sizeB} in B\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
