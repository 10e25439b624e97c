/**
 * hintlab behave end to end on real qemu boots of the Debian cloud kernel
 * (TCG, icount, one CPU): the same kernel as A and B, with --fresh booted
 * three times (A, B, A again), gives identical traces with every step
 * judged (the runner is deterministic across boots); a rerun reuses the
 * stored traces and boots nothing.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { BehaveDocument } from '../../src/behave/compare.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireCloudKernel(vmlinuz));
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('the cloud kernel booted as A, B and A again gives identical traces with every step judged, and a rerun reuses all three', { skip, timeout: 300_000 }, async () => {
  const db = join(dir, 'behave.db');
  const kernels = ['--kernel', `A=${vmlinuz}`, '--kernel', `B=${vmlinuz}`, '--db', db];
  const first = await runCli(['behave', ...kernels, '--fresh', '--json']);
  assert.equal(first.code, 0, first.stderr);
  const doc = JSON.parse(first.stdout) as BehaveDocument;
  assert.deepEqual([doc.identical, doc.a.reused, doc.b.reused, doc.aAgain?.reused, doc.divergences, doc.notJudged], [true, false, false, false, [], []]);
  assert.deepEqual(doc.scenarios.filter((s) => s.state === 'not-run').map((s) => s.name), ['affinity-two-cpus']);
  assert.ok(doc.steps > 200, `${doc.steps} steps`);
  assert.match(doc.a.kernelRelease ?? '', /cloud-amd64$/);
  const again = await runCli(['behave', ...kernels]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /kernel A: trace reused from .*\nkernel B: trace reused from .*\nkernel A again: trace reused from /);
  assert.ok(again.stdout.startsWith(`behaviour: ${doc.steps} steps identical on A (booted twice) and B (scenarios: getppid, sched_getattr, `), again.stdout);
  const lkml = await runCli(['behave', ...kernels, '--lkml']);
  for (const line of lkml.stdout.trimEnd().split('\n')) assert.ok(line.length <= 72, line);
  process.stderr.write(`${first.stderr}${again.stdout}`);
});
