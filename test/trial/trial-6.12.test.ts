/**
 * hintlab trial on Debian's linux-source-6.12, end to end (slow: behind
 * HINTLAB_SLOW_TESTS=1; a full build of A, 10-25 minutes on 2 cores, then
 * B from A's objects, behaviour boots and six measuring boots). The patch
 * (./trial-patch.ts) puts unlikely() on the early -EINVAL returns of
 * sched_getparam() and sched_getscheduler() in kernel/sched/syscalls.c.
 *
 * Expected: the codegen step finds the patch inside
 * kernel/sched/build_policy.o (which #includes syscalls.c) and compares it
 * from the measured builds; behaviour is identical (a hint changes no
 * result); the A/B boots give instructions per call with 3 boots per
 * kernel; the lkml report stays within 72 columns. A rerun reuses every
 * step and boots nothing; the same patch edited (likely() on the second
 * hunk) rebuilds only B and redoes codegen, B's trace and the boots.
 *
 * The builds are kept in ~/.cache/hintlab/test-kernels/trial (the first
 * run builds A; a later run of this test reuses it); the database is the
 * test's own.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TrialDocument } from '../../src/trial/document.ts';
import { treeFingerprint } from '../../src/kernel/source.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { hintlabCache, sourceTree } from '../helpers/kernel-source.ts';
import { KERNEL_TARBALL } from '../codegen/kernel-tree.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../helpers/tools.ts';
import { writeTrialPatch } from './trial-patch.ts';

const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (a kernel build and eight boots): set HINTLAB_SLOW_TESTS=1'
    : requireAll(requireFile(KERNEL_TARBALL, 'linux-source-6.12'), requireKernelBuildTools(), requireTool('patch', 'patch'), requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('objdump', 'binutils'));

const PROFILES = 'getppid,sched_getattr,sched_getparam,sched_getscheduler';

async function trial(tree: string, patch: string, db: string, format: string): Promise<{ doc: TrialDocument; stderr: string; stdout: string }> {
  const base = ['trial', '--src', tree, '--patch', patch, '--out', join(hintlabCache, 'test-kernels', 'trial'), '--profile', PROFILES, '--db', db];
  const json = await runCli([...base, '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const shown = await runCli([...base, '--format', format]);
  assert.equal(shown.code, 0, shown.stderr);
  process.stderr.write(`${json.stderr}$ hintlab ${base.join(' ')} --format ${format}\n${shown.stdout}\n`);
  return { doc: JSON.parse(json.stdout) as TrialDocument, stderr: json.stderr, stdout: shown.stdout };
}

const states = (doc: TrialDocument) => doc.steps.map((s) => `${s.name}:${s.state}`);

test('a real trial on 6.12: the hint is found in build_policy.o, behaviour is identical, boots are counted; a rerun reuses everything; an edited patch redoes only what depends on B', { skip, timeout: 7_200_000 }, async () => {
  const tree = sourceTree();
  const before = treeFingerprint(tree);
  const dir = tempDir();
  try {
    const db = join(dir, 'trial.db');
    const patch = writeTrialPatch(tree, dir);
    const first = await trial(tree, patch, db, 'lkml');
    assert.ok(first.stdout.split('\n').every((l) => l.length <= 72));
    const d = first.doc;
    const policy = d.codegen.objects.find((o) => o.object === 'kernel/sched/build_policy.o');
    assert.deepEqual([policy?.reach, policy?.state], ['includes', 'compared']);
    assert.deepEqual(d.patches[0]!.applied?.map((f) => [f.file, f.hunks.length]), [['kernel/sched/syscalls.c', 2]]);
    assert.equal(d.behave.document.identical, true, 'a branch hint changes no result');
    assert.ok(d.behave.document.steps > 200);
    assert.deepEqual([d.measured.unit, d.measured.order.join(''), d.measured.comparison.subjects.map((s) => s.runs.map((r) => r.units).join('+'))], ['instructions/call', 'ABBAAB', ['3+3', '3+3', '3+3', '3+3']]);
    assert.equal(d.kernels.B.manifest.incremental?.label, 'A');
    assert.ok((d.kernels.B.manifest.objectsCompiled ?? 99) <= 10, 'B recompiles a handful of objects');

    // the second run of `trial` above (the lkml one) already reused every step
    const again = await trial(tree, patch, db, 'text');
    assert.deepEqual(states(again.doc), ['build-A:reused', 'build-B:reused', 'codegen:reused', 'behave:reused', 'vm:reused']);
    assert.deepEqual(again.doc.measured.runs, d.measured.runs);

    const edited = writeTrialPatch(tree, dir, 'sched-likely.patch', 'likely');
    const changed = await trial(tree, edited, db, 'lkml');
    assert.deepEqual(states(changed.doc), ['build-A:reused', 'build-B:done', 'codegen:done', 'behave:done', 'vm:done']);
    assert.equal(changed.doc.behave.document.a.reused, true, "A's trace comes from the store");
    assert.equal(treeFingerprint(tree), before, 'the tree is never written');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
