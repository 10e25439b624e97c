/**
 * hintlab behave on real 6.12 kernels (slow: behind HINTLAB_SLOW_TESTS=1).
 * Debian's linux-source-6.12 is built with `hintlab kernel build --behave`
 * (tinyconfig + hintlab's fragment + DEBUG_FS, SCHED_DEBUG, UCLAMP_TASK) as
 * shipped and with each of three patches of this test's own
 * (./kernel-patches.ts); each patched kernel is compared with the shipped
 * one. Expected, exactly: the unlikely() hints change nothing; the
 * sched_getparam patch changes one error code of one argument class; the
 * uclamp patch changes nothing at the step that makes the request and
 * shows only at the later switch to SCHED_FIFO; a WARN_ON_ONCE() that
 * changes no result prints nothing on tinyconfig (no CONFIG_BUG) and is
 * reported as a kernel warning on B when B is built with --debug-checks.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { BehaveDocument } from '../../src/behave/compare.ts';
import type { Divergence } from '../../src/behave/judge.ts';
import { treeFingerprint } from '../../src/kernel/source.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hintlabCache, sourceTree } from '../helpers/kernel-source.ts';
import { KERNEL_TARBALL } from '../codegen/kernel-tree.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../helpers/tools.ts';
import { writePatch } from './kernel-patches.ts';

const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (six kernel builds and six boots): set HINTLAB_SLOW_TESTS=1'
    : requireAll(requireFile(KERNEL_TARBALL, 'linux-source-6.12'), requireKernelBuildTools(), requireTool('patch', 'patch'), requireTool('qemu-system-x86_64', 'qemu-system-x86'));

const kernels = join(hintlabCache, 'test-kernels');

async function build(tree: string, name: string, patch: string | null, flags: string[] = []): Promise<string> {
  const out = join(kernels, `behave-${name}`);
  const r = await runCli(['kernel', 'build', '--src', tree, '--behave', ...flags, ...(patch ? ['--patch', patch] : []), '--out', out, '--label', name === 'A' ? 'A' : 'B']);
  assert.equal(r.code, 0, r.stderr);
  process.stderr.write(`${r.stdout.split('\n')[0] ?? ''}\n`);
  return out;
}

async function behave(a: string, b: string, db: string): Promise<{ doc: BehaveDocument; text: string }> {
  const json = await runCli(['behave', '--kernel', `A=${a}`, '--kernel', `B=${b}`, '--db', db, '--json']);
  assert.equal(json.code, 0, json.stderr);
  const text = await runCli(['behave', '--kernel', `A=${a}`, '--kernel', `B=${b}`, '--db', db]);
  const lkml = await runCli(['behave', '--kernel', `A=${a}`, '--kernel', `B=${b}`, '--db', db, '--lkml']);
  process.stderr.write(`${json.stderr}$ hintlab behave --kernel A=${a} --kernel B=${b}\n${text.stdout}$ ... --lkml\n${lkml.stdout}\n`);
  return { doc: JSON.parse(json.stdout) as BehaveDocument, text: text.stdout };
}

const where = (d: Divergence) => (d.kind === 'splat' ? `splat on ${d.kernel}` : d.kind === 'end' ? `${d.scenario} end` : `${d.scenario} step ${d.step}`);

test('four patches against 6.12: no change found where there is none, one error code, one state seen a step later, one kernel warning', { skip, timeout: 7_200_000 }, async () => {
  const tree = sourceTree();
  const before = treeFingerprint(tree);
  const dir = tempDir();
  try {
    const db = join(dir, 'behave.db');
    const a = await build(tree, 'A', null);

    const same = await behave(a, await build(tree, 'unlikely', writePatch(tree, dir, 'unlikely')), db);
    assert.deepEqual([same.doc.identical, same.doc.divergences], [true, []]);
    assert.ok(same.doc.steps > 200);

    const efault = await behave(a, await build(tree, 'getparam-efault', writePatch(tree, dir, 'getparam-efault')), db);
    assert.deepEqual(efault.doc.divergences.map(where), ['sched_param step 3']);
    const d = efault.doc.divergences[0]!;
    assert.ok(d.kind === 'step');
    assert.deepEqual([d.call, d.differences], ['sched_getparam pid=self param=null', [{ field: 'errno', a: 'EINVAL', b: 'EFAULT' }]]);

    const uclamp = await behave(a, await build(tree, 'uclamp-default', writePatch(tree, dir, 'uclamp-default')), db);
    assert.deepEqual(uclamp.doc.divergences.map(where), ['uclamp step 2'], 'the request itself (step 1) looks the same');
    const u = uclamp.doc.divergences[0]!;
    assert.ok(u.kind === 'step');
    assert.deepEqual([u.call, u.differences], ['sched_setscheduler pid=self policy=FIFO prio=1', [{ field: 'self.umin', a: '0', b: '1024' }]]);
    assert.deepEqual(u.before.map((p) => p.call), ['sched_setattr pid=self flags=UTIL_CLAMP_MIN umin=0']);

    // tinyconfig has no CONFIG_BUG: WARN_ON_ONCE() prints nothing there, and nothing else differs
    const silent = await behave(a, await build(tree, 'getparam-warn', writePatch(tree, dir, 'getparam-warn')), db);
    assert.deepEqual(silent.doc.divergences, []);
    // with --debug-checks (BUG, lockdep, ...) the same patch warns on B's console: the warning is the divergence
    const warn = await behave(a, await build(tree, 'getparam-warn-debug', writePatch(tree, dir, 'getparam-warn'), ['--debug-checks']), db);
    assert.deepEqual(warn.doc.divergences.map(where), ['splat on B'], 'every step alike, the warning is the divergence');
    const w = warn.doc.divergences[0]!;
    assert.ok(w.kind === 'splat');
    assert.match(w.lines[0]!, /WARNING: CPU: 0 PID: \d+ at kernel\/sched\/syscalls\.c:\d+ /);

    assert.equal(treeFingerprint(tree), before, 'the source tree changed during the builds');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
