/**
 * One coverage boot against scripted guests (a VmLauncher that replays
 * console lines): what the guest is asked to do, and how a crash, a timeout
 * or a broken transfer is reported.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { test } from 'node:test';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guestArgs, runCoverageGuest, type GuestWorkload } from '../../../src/hints/collect/guest.ts';
import { storeBranchAll } from '../../../src/hints/collect/collect.ts';
import { profilesWorkload, staticElfProblem } from '../../../src/hints/collect/workload.ts';
import type { BootEnd, BootRequest, VmLauncher } from '../../../src/launch/qemu.ts';
import { buildProbe } from '../../../src/launch/probe-build.ts';
import { readFileSync } from 'node:fs';
import { tempDir } from '../../helpers/cli.ts';
import { fakeGuestStream } from './fake-guest.ts';

const cacheDir = tempDir();
const probeFile = join(cacheDir, 'probe');
writeFileSync(probeFile, 'not really a probe');

function scripted(lines: string[], end: BootEnd): VmLauncher & { argv: string[] } {
  const seen = { argv: [] as string[] };
  return Object.assign(seen, {
    async boot(req: BootRequest) {
      seen.argv = req.argv;
      for (const l of lines) req.onLine(l);
      return { end, consoleTail: lines.slice(-25), stderrTail: [], elapsedMs: 1234 };
    },
  });
}

async function run(launcher: VmLauncher, workload: GuestWorkload = profilesWorkload()) {
  return runCoverageGuest(
    { kernelImage: '/k/bzImage', probeBinary: probeFile, workload, accel: 'tcg', timeoutSeconds: 60 },
    { launcher, abort: new AbortController().signal, cacheDir },
  );
}

test('the guest runs every profile with a quarter of its calls, resets the counters, then dumps debugfs gcov', () => {
  const args = guestArgs(profilesWorkload());
  assert.deepEqual(args.slice(0, 8), ['--cpu', '0', '--other-cpu', '1', '--warmups', '0', '--rounds', '2']);
  assert.ok(args.includes('getppid:25000'), 'getppid runs 100000 / 4 calls per round');
  assert.ok(args.includes('select-1000:125'), 'select-1000 runs 500 / 4 calls');
  assert.deepEqual(args.slice(-3), ['--reset-gcov', '--dump-gcov', '/sys/kernel/debug/gcov']);
  assert.deepEqual(guestArgs({ kind: 'program', path: '/tmp/w', data: Buffer.alloc(0) }), ['--exec', '/workload', '--reset-gcov', '--dump-gcov', '/sys/kernel/debug/gcov']);
});

test('a branch profiler boot resets nothing and dumps trace_stat, where branch_all is', () => {
  const args = guestArgs(profilesWorkload(), 'branch-profiler');
  assert.ok(!args.includes('--reset-gcov') && !args.includes('--dump-gcov'));
  assert.deepEqual(args.slice(-2), ['--dump-files', '/sys/kernel/debug/tracing/trace_stat']);
  assert.deepEqual(args.slice(0, -2), guestArgs(profilesWorkload()).slice(0, -3), 'the same workload as the gcov boot');
});

test('branch_all is kept from the files a branch profiler boot sent; without it the run is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-branch-all-'));
  try {
    const at = (name: string) => ({ guestPath: `/sys/kernel/debug/tracing/trace_stat/${name}`, data: Buffer.from(name) });
    assert.equal(storeBranchAll([at('branch_annotated'), at('branch_all')], dir, '/b'), 'branch_all');
    assert.deepEqual(readdirSync(dir), ['branch_all']);
    assert.equal(readFileSync(join(dir, 'branch_all'), 'utf8'), 'branch_all');
    assert.throws(() => storeBranchAll([at('branch_annotated')], dir, '/b'), /sent no trace_stat\/branch_all .*is CONFIG_PROFILE_ALL_BRANCHES set in \/b\/config\?/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the initramfs holds /init, its arguments, /sys and the program', async () => {
  const launcher = scripted([], { kind: 'exited', code: 0, signal: null });
  await run(launcher, { kind: 'program', path: '/tmp/w', data: Buffer.from('PROGRAM') });
  const image = gunzipSync(readFileSync(launcher.argv[launcher.argv.indexOf('-initrd') + 1]!)).toString('latin1');
  assert.ok(image.includes('PROGRAM') && image.includes('not really a probe'));
  for (const name of ['dev/console', 'proc', 'sys', 'hintlab.args', 'init', 'workload', 'TRAILER!!!']) assert.ok(image.includes(`${name}\0`), name);
  assert.ok(image.includes('--exec\n/workload\n--reset-gcov\n--dump-gcov\n/sys/kernel/debug/gcov\n'));
});

test('a complete boot hands back the files and the kernel release, under TCG when asked', async () => {
  const launcher = scripted(fakeGuestStream([{ path: '/sys/kernel/debug/gcov/o/fs/select.gcda', data: Buffer.from('x') }]), { kind: 'exited', code: 0, signal: null });
  const r = await run(launcher);
  assert.equal(r.state, 'complete', r.state === 'failed' ? r.reason : '');
  assert.equal(r.kernel, '6.12.57');
  assert.equal(r.files.length, 1);
  assert.equal(r.accel.accel, 'tcg');
  assert.deepEqual(launcher.argv.slice(launcher.argv.indexOf('-accel'), launcher.argv.indexOf('-accel') + 2), ['-accel', 'tcg']);
  assert.ok(!launcher.argv.includes('-icount'));
});

test('a guest that panics is reported with the panic line and the last console lines', async () => {
  const lines = ['[    1.2] BUG: kernel NULL pointer dereference, address: 0000000000000008', '[    1.3] Kernel panic - not syncing: Fatal exception'];
  const r = await run(scripted(lines, { kind: 'exited', code: 0, signal: null }));
  assert.equal(r.state, 'failed');
  const reason = r.reason;
  assert.match(reason, /the probe never started in the guest \(no hello line\); the kernel reported: \[    1\.2\] BUG: kernel NULL pointer/);
  assert.match(reason, /last console lines:\n  \| \[    1\.2\] BUG/);
  assert.match(reason, /qemu command: qemu-system-x86_64 /);
});

test('a timeout during the transfer says so, without a screen of base64', async () => {
  const all = fakeGuestStream([{ path: '/sys/kernel/debug/gcov/o/big.gcda', data: Buffer.alloc(40 * 512, 7) }]);
  const cut = all.slice(0, all.findIndex((l) => l.includes(' off=10240 ')));
  const r = await run(scripted(cut, { kind: 'timeout', seconds: 60 }));
  assert.equal(r.state, 'failed');
  const reason = r.reason;
  assert.match(reason, /no complete result within 60 s \(--timeout\), during the \.gcda transfer; qemu was killed/);
  assert.match(reason, /\(\d+ file transfer chunk lines not shown\)/);
  assert.doesNotMatch(reason, /data=/);
});

test('a transfer with a lost chunk fails even though the guest powered off cleanly', async () => {
  const lines = fakeGuestStream([{ path: '/sys/kernel/debug/gcov/o/a.gcda', data: Buffer.alloc(2000, 1) }]).filter((l) => !l.includes(' off=512 '));
  const r = await run(scripted(lines, { kind: 'exited', code: 0, signal: null }));
  assert.match(r.state === 'failed' ? r.reason : '', /a\.gcda: bytes 512-1023 are missing/);
});

test('only static x86_64 executables can be the guest workload', () => {
  assert.equal(staticElfProblem(readFileSync(buildProbe({ static: true }).path)), null);
  assert.match(staticElfProblem(readFileSync('/bin/sh')) ?? '', /dynamically linked/);
  assert.match(staticElfProblem(Buffer.from('#!/bin/sh\necho hi\n'.padEnd(80))) ?? '', /not an ELF executable/);
});
