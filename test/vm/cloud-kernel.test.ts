/**
 * A real Debian cloud kernel booted twice under TCG with --icount: the same
 * kernel must give the same instructions per getppid call in both boots
 * (the icount clock advances one ns per guest instruction, so two boots
 * agree to about 0.01 %; the test allows 0.1 %).
 *
 * The vmlinuz comes from $HINTLAB_TEST_VMLINUZ (CI sets it from
 * test/fixtures/fetch-cloud-kernel.sh) or from that script's cache.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { measuredValues } from '../../src/model.ts';
import { median } from '../../src/stats/descriptive.ts';
import { Store } from '../../src/store/store.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireCloudKernel(vmlinuz));

test('two icount boots of the same Debian cloud kernel agree on getppid instructions per call within 0.1 %', { skip, timeout: 600_000 }, async () => {
  assert.ok(vmlinuz);
  assert.ok(existsSync(vmlinuz), `${vmlinuz} does not exist`);
  const dir = tempDir();
  try {
    const db = join(dir, 'vm.db');
    const r = await runCli(['vm', '--kernel', `K=${vmlinuz}`, '--order', 'KK', '--icount', '--accel', 'tcg', '--profile', 'getppid', '--ops', '20000', '--warmups', '1', '--rounds', '5', '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /accelerator: tcg/);
    const store = Store.open(db);
    try {
      const [a, b] = ['vm-K-1', 'vm-K-2'].map((l) => store.resolveRun(l));
      assert.ok(a && b);
      for (const run of [a, b]) {
        assert.equal(run.kind, 'vm');
        assert.equal(run.status, 'complete');
        assert.equal(run.unit, 'instructions/call');
        const env = run.environment as { vm: { accel: string; icount: boolean }; kernel: { release: { known: boolean; value?: string } } };
        assert.deepEqual([env.vm.accel, env.vm.icount], ['tcg', true]);
        // the guest's own uname, from the probe's hello line: the vmlinuz's release
        assert.ok(env.kernel.release.known && vmlinuz.endsWith(`vmlinuz-${env.kernel.release.value}`), JSON.stringify(env.kernel.release));
      }
      const ma = median(measuredValues(a, 'getppid') as [number, ...number[]]);
      const mb = median(measuredValues(b, 'getppid') as [number, ...number[]]);
      // a syscall round trip is a few hundred instructions, never a handful or millions
      assert.ok(ma > 50 && ma < 20_000, `getppid costs ${ma} instructions per call`);
      assert.ok(Math.abs(mb - ma) / ma < 0.001, `boot 1: ${ma} instr/call, boot 2: ${mb} instr/call`);
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
