/**
 * A real Debian cloud kernel booted twice under TCG with `vm --macro`: the
 * probe runs the host's stress-ng (with the libraries ldd lists) in the
 * guest and the YAML files come back over the serial console as stored
 * rounds. About 12 s (two TCG boots of ~5 s each), so not behind
 * HINTLAB_SLOW_TESTS; skipped, saying so, only without a cached kernel.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('stress-ng', 'stress-ng'), requireCloudKernel(vmlinuz));

test('vm --macro: two TCG boots of a cloud kernel each store yield@1 twice from the guest stress-ng', { skip, timeout: 600_000 }, async () => {
  assert.ok(vmlinuz && existsSync(vmlinuz), `${vmlinuz} does not exist`);
  const hostVersion = /version (\d+\.\d+\.\d+)/.exec(execFileSync('stress-ng', ['--version'], { encoding: 'utf8' }))?.[1];
  const dir = tempDir();
  try {
    const db = join(dir, 'vm.db');
    const r = await runCli(['vm', '--kernel', `K=${vmlinuz}`, '--order', 'KK', '--accel', 'tcg', '--macro', '--stressor', 'yield', '--seconds', '1', '--repeats', '2', '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /median emu-bogo-ops\/s \(CV\)/);
    const store = Store.open(db);
    try {
      for (const label of ['vm-K-1', 'vm-K-2']) {
        const run = store.resolveRun(label);
        assert.ok(run);
        assert.deepEqual([run.kind, run.status, run.unit], ['vm', 'complete', 'emulated-bogo-ops/s']);
        assert.deepEqual(run.rounds.map((x) => [x.subject, x.index]), [['yield@1', 0], ['yield@1', 1]]);
        const env = run.environment as { stressNg: { version: string }; kernel: { release: { known: boolean; value?: string } } };
        assert.equal(env.stressNg.version, hostVersion);
        // the guest's own uname, from the probe's hello line: the vmlinuz's release
        assert.ok(env.kernel.release.known && vmlinuz.endsWith(`vmlinuz-${env.kernel.release.value}`), JSON.stringify(env.kernel.release));
        for (const round of run.rounds) {
          // wall-clock-time of a 1 s stress-ng run, as stress-ng measured it in the guest
          const wall = round.metrics.find((m) => m.name === 'wall-clock-time')?.value ?? 0;
          assert.ok(wall >= 1 && wall < 3, `wall-clock-time ${wall} s`);
          assert.ok(round.value > 0);
        }
      }
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
