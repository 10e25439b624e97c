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
import { fileURLToPath } from 'node:url';
import { QEMU_BINARY } from '../../src/vm/qemu.ts';
import { tempDir } from '../helpers/cli.ts';
import { cachedCloudKernel } from '../helpers/cloud-kernel.ts';
import { descendants, named, survivorsAfter, waitForTree, type Proc } from '../helpers/procs.ts';

const BIN = fileURLToPath(new URL('../../bin/hintlab.js', import.meta.url));
const vmlinuz = cachedCloudKernel();
const haveQemu = spawnSync(QEMU_BINARY, ['--version']).status === 0;
const skip = !haveQemu
  ? `${QEMU_BINARY} is not installed (apt-get install qemu-system-x86)`
  : vmlinuz
    ? false
    : 'no cloud kernel: set HINTLAB_TEST_VMLINUZ or run test/fixtures/fetch-cloud-kernel.sh (needs apt access)';

/** Start `hintlab vm` on the cloud kernel and wait until qemu has been booting for two seconds. */
async function midBoot(dir: string): Promise<{ hintlab: ChildProcessWithoutNullStreams; started: Proc[]; stderr: () => string }> {
  assert.ok(vmlinuz);
  const args = ['vm', '--kernel', `K=${vmlinuz}`, '--order', 'K', '--accel', 'tcg', '--icount', '--profile', 'getppid', '--db', join(dir, 'vm.db')];
  const hintlab = spawn(process.execPath, [BIN, ...args]);
  let stderr = '';
  hintlab.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  assert.ok(hintlab.pid);
  const isQemu = (p: Proc): boolean => p.comm.startsWith('qemu-system');
  await waitForTree(hintlab.pid, (procs) => procs.some(isQemu), 120_000);
  // let the guest get into its boot before stopping hintlab
  await sleep(2000);
  const started = descendants(hintlab.pid);
  assert.ok(started.some(isQemu), named(started));
  assert.equal(hintlab.exitCode, null, `hintlab vm ended too early: ${stderr}`);
  return { hintlab, started, stderr: () => stderr };
}

test('kill -9 of hintlab vm in the middle of a boot leaves no qemu running', { skip, timeout: 300_000 }, async () => {
  const dir = tempDir();
  let hintlab: ChildProcessWithoutNullStreams | undefined;
  try {
    const boot = await midBoot(dir);
    hintlab = boot.hintlab;
    const exited = new Promise((r) => boot.hintlab.on('exit', r));
    hintlab.kill('SIGKILL');
    await exited;
    assert.equal(named(await survivorsAfter(boot.started, 10_000)), '');
  } finally {
    hintlab?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C of hintlab vm in the middle of a boot stops qemu, marks the boot interrupted and exits 130', { skip, timeout: 300_000 }, async () => {
  const dir = tempDir();
  let hintlab: ChildProcessWithoutNullStreams | undefined;
  try {
    const boot = await midBoot(dir);
    hintlab = boot.hintlab;
    const exited = new Promise<number | null>((r) => boot.hintlab.on('exit', (code) => r(code)));
    hintlab.kill('SIGINT');
    assert.equal(await exited, 130, boot.stderr());
    assert.match(boot.stderr(), /interrupted/);
    assert.equal(named(await survivorsAfter(boot.started, 10_000)), '');
  } finally {
    hintlab?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
