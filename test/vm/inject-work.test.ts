/**
 * `--inject-work` under icount: the probe's known work is exactly N
 * instructions per call. A real Debian cloud kernel booted twice under TCG
 * with -icount (one guest ns per guest instruction), once with no work and
 * once with N additions per getppid call: the second costs N more
 * instructions per call (the boots agree to ~0.01 % otherwise, and the timer
 * ticks of the longer rounds add well under one instruction per call).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
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
const N = 700;

test(`--inject-work ${N} adds exactly ${N} guest instructions per getppid call under --icount`, { skip, timeout: 600_000 }, async () => {
  const dir = tempDir();
  try {
    const db = join(dir, 'vm.db');
    const r = await runCli(['vm', '--kernel', `A=${vmlinuz}`, '--kernel', `B=${vmlinuz}`, '--order', 'AB', '--inject-work', `B=${N}`, '--icount', '--accel', 'tcg', '--profile', 'getppid', '--ops', '20000', '--warmups', '1', '--rounds', '5', '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    const store = Store.open(db);
    try {
      const [a, b] = ['vm-A-1', 'vm-B-1'].map((l) => store.resolveRun(l));
      assert.equal(a!.unit, 'instructions/call');
      assert.equal(b!.params.extra.injectWork, N);
      const ma = median(measuredValues(a!, 'getppid') as [number, ...number[]]);
      const mb = median(measuredValues(b!, 'getppid') as [number, ...number[]]);
      assert.ok(Math.abs(mb - ma - N) < 1, `A: ${ma} instr/call, B: ${mb} instr/call, difference ${mb - ma}, expected ${N}`);
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
