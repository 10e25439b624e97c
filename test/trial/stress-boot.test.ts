/**
 * A trial's stress step for real: Debian's cloud kernel as both A and B,
 * booted in A B B A A B order under TCG -icount with the host's stress-ng
 * in every guest, the rounds stored per boot (each boot one unit) in
 * bogo-ops per guest second, compared per stressor. The same kernel on
 * both sides: no stressor may read a difference. Skipped, saying so,
 * without qemu, stress-ng or a cached cloud kernel.
 *
 * HINTLAB_STRESS_STRESSORS (comma-separated) picks the stressors (default
 * yield,futex,fifo); the lkml block is printed on stderr.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { processExecutor } from '../../src/macro/executor.ts';
import { stressLkml } from '../../src/report/trial-stress.ts';
import { Store } from '../../src/store/store.ts';
import type { TrialDocument, TrialKernel } from '../../src/trial/document.ts';
import type { TrialDeps, TrialRequest, TrialServices } from '../../src/trial/request.ts';
import { measureStress, planStress, stressStep } from '../../src/trial/stress.ts';
import { planVmMacro, runVmMacro } from '../../src/vm/macro.ts';
import { qemuLauncher } from '../../src/launch/qemu.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (six stress-ng boots under icount, about 10 minutes): set HINTLAB_SLOW_TESTS=1'
    : requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('stress-ng', 'stress-ng'), requireCloudKernel(vmlinuz));
const STRESSORS = (process.env.HINTLAB_STRESS_STRESSORS ?? 'yield,futex,fifo').split(',');

test('the stress step with the cloud kernel as A and B: six icount boots, bogo-ops per guest second, no stressor differs', { skip, timeout: 3_600_000 }, async () => {
  assert.ok(vmlinuz && existsSync(vmlinuz), `${vmlinuz} does not exist`);
  const dir = tempDir();
  const store = Store.open(join(dir, 'stress.db'));
  try {
    const req = {
      repeat: 3, kvm: false, timeoutSeconds: 600, thresholdPct: 1, command: 'hintlab trial (stress step)', hintlabVersion: 'test',
      invocation: { argv: ['trial', '--stressor', STRESSORS.join(',')], cwd: dir },
      stress: { stressors: STRESSORS, sets: [], instances: '1', seconds: 1, repeats: 2 },
    } as unknown as TrialRequest;
    const kernel = (role: 'A' | 'B'): TrialKernel => ({ role, dir: vmlinuz, image: vmlinuz, state: 'reused', manifest: null as unknown as TrialKernel['manifest'] });
    const lines: string[] = [];
    const deps: TrialDeps = { store, launcher: qemuLauncher(), probe: buildProbe({ static: true }), abort: new AbortController().signal, onDetail: (l) => lines.push(l) };
    const services = { planVmMacro, runVmMacro } as unknown as TrialServices;
    const plan = (await planStress(req, processExecutor(), planVmMacro))!;
    const started = Date.now();
    const step = await stressStep(req, deps, services, 1, plan, kernel('A'), kernel('B'));
    const seconds = (Date.now() - started) / 1000;
    const stressors = measureStress(deps, req, step.result);
    const block = stressLkml({ stressors } as TrialDocument, true);
    process.stderr.write(`${lines.join('\n')}\n[stress] ${seconds.toFixed(1)} s: ${step.summary}\n\n${block.join('\n')}\n`);
    assert.equal(step.state, 'done');
    assert.deepEqual([stressors.unit, stressors.icount, stressors.order.join('')], ['icount-bogo-ops/s', true, 'ABBAAB']);
    const c = stressors.comparison;
    assert.deepEqual(c.subjects.map((s) => s.subject), STRESSORS.map((s) => `${s}@1`));
    assert.deepEqual(c.subjects.map((s) => s.runs.map((r) => r.units)), STRESSORS.map(() => [3, 3]), 'three boots per kernel, each one unit');
    assert.deepEqual(c.regressions, [], 'the same kernel cannot regress');
    // icount repeats a rate exactly boot to boot: the same kernel reads identical (or, were a boot to differ, no difference)
    for (const s of c.subjects) assert.ok(['identical', 'no difference proven'].includes(s.verdict.verdict), `${s.subject}: ${s.verdict.verdict} (${s.verdict.reason})`);
    assert.ok(block.every((l) => l.length <= 72));

  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
