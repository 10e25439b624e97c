/**
 * Booting kernels on a real box over ssh: the qemu test box
 * (test/helpers/qemu-box.ts, TCG) reached through its forwarded port with
 * the system OpenSSH. One kexec round trip: the box's other kernel booted
 * by kexec and checked (token, release, build), its watchdog armed, then
 * back to the box's own kernel by a plain reboot, checked. The watchdog
 * rebooting a box left on a test kernel, and the whole session (A/B/A, a
 * dropped connection, kill -9) are ./qemu-session.test.ts, behind
 * HINTLAB_SLOW_TESTS=1 (minutes).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildProbe, type ProbeBuild } from '../../src/launch/probe-build.ts';
import { SshBox } from '../../src/targets/ssh-box.ts';
import { requireBox, startQemuBox, type QemuBox } from '../helpers/qemu-box.ts';
import { descendants, named } from '../helpers/procs.ts';

const skip = requireBox();
let box: QemuBox;
let probe: ProbeBuild;

before(async () => {
  if (skip) return;
  box = await startQemuBox();
  probe = buildProbe({ static: true });
});
after(async () => (box as QemuBox | undefined)?.stop());

const never = new AbortController().signal;
const connect = (watchdogSeconds: number | null, lines: string[] = []) =>
  SshBox.connect(box.url, { probe, configFile: box.config }, { watchdogSeconds, bootTimeoutSeconds: 240, onProgress: (l) => lines.push(l) });

/** The box's kernel as plain ssh sees it. */
const onBox = () => {
  const r = box.ssh('uname -r; cat /proc/cmdline; cat /proc/sys/kernel/random/boot_id');
  assert.equal(r.code, 0, r.stderr);
  const [release, cmdline, bootId] = r.stdout.trim().split('\n');
  return { release, cmdline, bootId };
};

test('the box boots its other kernel by kexec (checked: token, release, build), then returns to its own by a reboot (checked)', { skip }, async () => {
  const before = onBox();
  assert.equal(before.release, box.own.release);
  const lines: string[] = [];
  const b = await connect(30, lines);
  try {
    assert.equal(b.isHome, true);
    const t0 = Date.now();
    const report = await b.boot({ label: 'A', image: box.other.image, initrd: box.initrd, token: 't1-1-beef' }, never);
    const took = Date.now() - t0;
    assert.equal(report.method, 'kexec');
    assert.equal(report.command, 'kexec -e');
    assert.equal(report.release, box.other.release);
    assert.equal(report.watchdogSeconds, 30);
    const now = onBox();
    assert.equal(now.release, box.other.release);
    assert.equal(now.cmdline, `${box.append} hintlab.boot=t1-1-beef`);
    assert.notEqual(now.bootId, before.bootId);
    assert.match(box.ssh('cat ~/.cache/hintlab/watchdog/log').stdout, /armed: reboots the box when the heartbeat is quiet for 30 s/);
    assert.ok(lines.some((l) => /^kernel A: copied at ~\/\.cache\/hintlab\/boot\/[0-9a-f]{16}-vmlinuz-/.test(l)), lines.join('\n'));
    console.log(`kexec boot: ${(took / 1000).toFixed(1)} s in all (image and initrd ${(report.copyMs / 1000).toFixed(1)} s, wait for ssh on the new boot ${(report.waitedMs / 1000).toFixed(1)} s, ${report.attempts} logins)`);

    const t1 = Date.now();
    const home = await b.returnHome(never);
    assert.ok(home);
    assert.equal(home.method, 'reboot');
    assert.equal(home.release, box.own.release);
    assert.equal(home.watchdogSeconds, null);
    assert.equal(b.isHome, true);
    const back = onBox();
    assert.deepEqual([back.release, back.cmdline], [box.own.release, box.append]);
    console.log(`reboot home: ${((Date.now() - t1) / 1000).toFixed(1)} s (wait for ssh ${(home.waitedMs / 1000).toFixed(1)} s)`);
  } finally {
    await b.close();
  }
  assert.deepEqual(named(descendants(process.pid).filter((p) => p.comm === 'ssh')), '', 'an ssh process outlived the box connection');
});
