/**
 * kill -9 and Ctrl-C of `hintlab vm` while a real Debian cloud kernel boots
 * under TCG: qemu, and the supervisor it runs under, must be gone within a
 * few seconds.
 *
 * The vmlinuz comes from $HINTLAB_TEST_VMLINUZ (CI sets it from
 * test/fixtures/fetch-cloud-kernel.sh) or from that script's cache.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { QEMU_BINARY } from '../../src/launch/qemu.ts';
import { tempDir, CLI_FROM_SOURCE } from '../helpers/cli.ts';
import { cachedCloudKernel } from '../helpers/cloud-kernel.ts';
import { descendants, named, survivorsAfter, waitForTree, type Proc } from '../helpers/procs.ts';

const vmlinuz = cachedCloudKernel();
const haveQemu = spawnSync(QEMU_BINARY, ['--version']).status === 0;
const skip = !haveQemu
  ? `${QEMU_BINARY} is not installed (apt-get install qemu-system-x86)`
  : vmlinuz
    ? false
    : 'no cloud kernel: set HINTLAB_TEST_VMLINUZ or run test/fixtures/fetch-cloud-kernel.sh (needs apt access)';

interface Boot {
  hintlab: ChildProcessWithoutNullStreams;
  /** Every process below hintlab two seconds into the boot, qemu among them. */
  started: Proc[];
  stderr: () => string;
}

/** Start `hintlab vm` on the cloud kernel, let qemu boot for two seconds, then `act`; hintlab is killed and its files removed after. */
async function whileBooting(act: (boot: Boot) => Promise<void>): Promise<void> {
  assert.ok(vmlinuz);
  const dir = tempDir();
  const args = ['vm', '--kernel', `K=${vmlinuz}`, '--order', 'K', '--accel', 'tcg', '--icount', '--profile', 'getppid', '--db', join(dir, 'vm.db')];
  const hintlab = spawn(process.execPath, [...CLI_FROM_SOURCE, ...args]);
  let stderr = '';
  hintlab.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    assert.ok(hintlab.pid);
    const isQemu = (p: Proc): boolean => p.comm.startsWith('qemu-system');
    await waitForTree(hintlab.pid, (procs) => procs.some(isQemu), 120_000);
    await sleep(2000);
    const started = descendants(hintlab.pid);
    assert.ok(started.some(isQemu), named(started));
    assert.equal(hintlab.exitCode, null, `hintlab vm ended too early: ${stderr}`);
    await act({ hintlab, started, stderr: () => stderr });
  } finally {
    hintlab.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

test('kill -9 of hintlab vm in the middle of a boot leaves no qemu running', { skip, timeout: 300_000 }, () =>
  whileBooting(async ({ hintlab, started }) => {
    const exited = new Promise((r) => hintlab.on('exit', r));
    hintlab.kill('SIGKILL');
    await exited;
    assert.equal(named(await survivorsAfter(started, 10_000)), '');
  }));

test('Ctrl-C of hintlab vm in the middle of a boot stops qemu, marks the boot interrupted and exits 130', { skip, timeout: 300_000 }, () =>
  whileBooting(async ({ hintlab, started, stderr }) => {
    const exited = new Promise<number | null>((r) => hintlab.on('exit', (code) => r(code)));
    hintlab.kill('SIGINT');
    assert.equal(await exited, 130, stderr());
    assert.match(stderr(), /interrupted/);
    assert.equal(named(await survivorsAfter(started, 10_000)), '');
  }));
