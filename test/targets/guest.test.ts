/**
 * The guest target over a scripted launcher: the job becomes the
 * initramfs (probe as /init, its arguments, its files with their
 * directories), the image is cached by content, and failures carry the
 * console, qemu's words and the command line. The real qemu path is covered
 * by test/vm/cloud-kernel.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import { guestTarget, kvmTrial } from '../../src/targets/guest.ts';
import type { BootEnd, BootRequest, VmLauncher } from '../../src/launch/qemu.ts';
import { tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = { path: join(dir, 'probe') };
writeFileSync(probe.path, 'PROBE-BYTES');

function launcher(lines: string[], end: BootEnd = { kind: 'exited', code: 0, signal: null }, stderr: string[] = []): VmLauncher & { reqs: BootRequest[] } {
  const reqs: BootRequest[] = [];
  return {
    reqs,
    async boot(req) {
      reqs.push(req);
      for (const l of lines) req.onLine(l);
      return { end, consoleTail: lines, stderrTail: stderr, elapsedMs: 1200 };
    },
  };
}

const spec = { label: 'A', image: '/boot/A', accel: 'tcg' as const, icount: false, cpus: 2, memoryMiB: 512 };

test('a job boots once with its arguments and files in the initramfs, under the job timeout', async () => {
  const l = launcher(['hello from the guest']);
  const target = guestTarget(spec, { probe, launcher: l, cacheDir: dir });
  const job = { program: 'probe' as const, args: ['--run-plan', '/hintlab.plan'], files: [{ path: 'usr/lib/x/libfoo.so', data: Buffer.from('LIB') }, { path: 'hintlab.plan', data: Buffer.from('PLAN') }], timeoutSeconds: 77 };
  const lines: string[] = [];
  const exit = await target.run(job, (x) => lines.push(x), new AbortController().signal);
  assert.deepEqual(lines, ['hello from the guest']);
  assert.deepEqual(exit.end, { kind: 'exited', code: 0, signal: null });
  assert.equal(exit.elapsedMs, 1200);
  const argv = l.reqs[0]!.argv;
  assert.equal(l.reqs[0]!.timeoutSeconds, 77);
  assert.equal(argv[argv.indexOf('-kernel') + 1], '/boot/A');
  assert.deepEqual(exit.command, argv);
  const cpio = gunzipSync(readFileSync(argv[argv.indexOf('-initrd') + 1]!)).toString('latin1');
  for (const member of ['hintlab.args', 'init', 'sys', 'usr', 'usr/lib', 'usr/lib/x', 'usr/lib/x/libfoo.so', 'hintlab.plan']) assert.ok(cpio.includes(`${member}\0`), member);
  assert.ok(cpio.includes('--run-plan\n/hintlab.plan\n') && cpio.includes('PROBE-BYTES') && cpio.includes('LIB'));
  assert.ok(cpio.indexOf('usr/lib/x\0') < cpio.indexOf('usr/lib/x/libfoo.so\0'), 'directories come before their files');
  // the same job again reuses the image
  await target.run(job, () => {}, new AbortController().signal);
  assert.equal(l.reqs[1]!.argv[argv.indexOf('-initrd') + 1], argv[argv.indexOf('-initrd') + 1]);
});

test('describe names the panic, shows the console without transfer chunks, what qemu said and the command', async () => {
  const lines = ['[ 0.1] booting', frameLine('@hl1 chunk id=0 off=0 data=AAAA'), '[ 1.2] Kernel panic - not syncing: test'];
  const target = guestTarget(spec, { probe, launcher: launcher(lines, { kind: 'exited', code: 0, signal: null }, ['qemu: warning']), cacheDir: dir });
  const exit = await target.run({ program: 'probe', args: [] }, () => {}, new AbortController().signal);
  const text = exit.describe('the boot failed');
  assert.match(text, /^the boot failed; the kernel reported: \[ 1\.2\] Kernel panic - not syncing: test\nlast console lines:\n {2}\| \[ 0\.1\] booting\n {2}\| \[ 1\.2\] Kernel panic/);
  assert.match(text, /\(1 file transfer chunk lines not shown\)\nqemu said:\n {2}\| qemu: warning\nqemu command: qemu-system-x86_64 /);
});

test('a guest runs only the probe as /init', async () => {
  const target = guestTarget(spec, { probe, launcher: launcher([]), cacheDir: dir });
  await assert.rejects(target.run({ program: { path: '/bin/true' }, args: [] }, () => {}, new AbortController().signal), /runs the probe as \/init, not \/bin\/true/);
});

test('the KVM trial boot: null when the probe listed its profiles under KVM, else why not', async () => {
  const good = launcher([frameLine('@hl1 profile name=getppid call=getppid cpus=1 params= description=x')]);
  assert.equal(await kvmTrial('/boot/A', { probe, launcher: good, cacheDir: dir }, new AbortController().signal), null);
  assert.ok(good.reqs[0]!.argv.includes('kvm'));
  assert.equal(good.reqs[0]!.timeoutSeconds, 20);
  const hung = launcher(['[ 0.1] booting'], { kind: 'timeout', seconds: 20 });
  assert.equal(await kvmTrial('/boot/A', { probe, launcher: hung, cacheDir: dir }, new AbortController().signal), 'no probe output within 20 s; last console line: [ 0.1] booting');
});
