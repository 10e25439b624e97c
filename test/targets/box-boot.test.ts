/**
 * Booting a kernel on a box, above the ssh connection: the facts the box
 * reports, the choice between kexec and the one-shot GRUB entry (and the
 * message when neither works), the exact commands sent for each (root and
 * sudo, systemd and not), the wait for a new boot and what it says when
 * the box never goes down or never comes back, and the check of the kernel
 * that came back. The connection is scripted; the kexec path on a real
 * (qemu) box is test/session/qemu-box.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { chooseMethod, grubEntryScript, kexecLoadCommand, startBoot, testCmdline } from '../../src/targets/box-boot.ts';
import { type BoxFacts, type BoxShell, missingPrivilege, ownCmdline, parseFacts } from '../../src/targets/box-facts.ts';
import { BoxDidNotReturn, mismatch, waitForNewBoot } from '../../src/targets/box-wait.ts';
import type { ExecResult } from '../../src/targets/ssh-connection.ts';

const ROOT_FACTS = [
  'release=6.1.0-57-cloud-amd64',
  'version=#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)',
  'cmdline=BOOT_IMAGE=/vmlinuz-6.1.0-57-cloud-amd64 root=UUID=1234 ro quiet hintlab.boot=s1-2-aaaa',
  'bootId=11111111-2222-3333-4444-555555555555',
  'hostname=box1',
  'user=root',
  'uid=0',
  'kexec=/usr/sbin/kexec',
  'kexecKernel=ok',
  'grubReboot=',
  'bootImage=/boot/vmlinuz-6.1.0-57-cloud-amd64',
  'bootInitrd=/boot/initrd.img-6.1.0-57-cloud-amd64',
  '',
].join('\n');

/** What the script's block appends to custom.cfg, run by sh here with /boot on / and a made-up UUID. */
function customCfgOf(script: string): string {
  const block = script.slice(script.indexOf('\n{\n') + 1, script.indexOf('} >> /boot/grub/custom.cfg') + 1);
  const r = spawnSync('sh', ['-c', `d=/boot/hintlab; rel=$d; uuid=0b9c-uuid\n${block}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const facts = (over: Partial<BoxFacts> = {}): BoxFacts => ({ ...parseFacts(ROOT_FACTS), ...over });
const ok = (stdout = ''): ExecResult => ({ code: 0, stdout: Buffer.from(stdout), stderr: '' });

/** A shell that answers each command with the first rule whose pattern matches, and keeps what it was sent. */
function scriptedShell(rules: [RegExp, ExecResult][]): BoxShell & { sent: string[]; puts: string[] } {
  const sent: string[] = [];
  const puts: string[] = [];
  return {
    sent,
    puts,
    async exec(command) {
      sent.push(command);
      return rules.find(([re]) => re.test(command))?.[1] ?? ok();
    },
    async put(_data, path) {
      puts.push(path);
    },
  };
}

test("the box's facts are read from its key=value lines, sudo left out for root", () => {
  const f = parseFacts(ROOT_FACTS);
  assert.equal(f.release, '6.1.0-57-cloud-amd64');
  assert.equal(f.uid, 0);
  assert.equal(f.sudo, null);
  assert.equal(f.kexec, '/usr/sbin/kexec');
  assert.equal(f.grubReboot, null);
  assert.equal(f.systemd, false);
  assert.equal(f.bootInitrd, '/boot/initrd.img-6.1.0-57-cloud-amd64');
  const lab = parseFacts(ROOT_FACTS.replace('uid=0', 'uid=1000').replace('user=root', 'user=lab') + 'sudo_kexec=1\n');
  assert.deepEqual(lab.sudo, { kexec: true, reboot: false, systemctl: false, 'grub-reboot': false });
});

test('a box answer without its release is refused, naming what is missing', () => {
  assert.throws(() => parseFacts('uid=0\ncmdline=x\nbootId=y\n'), /did not say its release/);
});

test("a test kernel's command line is the box's own without BOOT_IMAGE= and old tokens, then the extra text, then the token", () => {
  assert.equal(ownCmdline('BOOT_IMAGE=/vmlinuz root=UUID=1234 ro hintlab.boot=old quiet'), 'root=UUID=1234 ro quiet');
  assert.equal(testCmdline('BOOT_IMAGE=/vmlinuz root=UUID=1234 ro hintlab.boot=old', ' mitigations=off ', 's3-1-beef'), 'root=UUID=1234 ro mitigations=off hintlab.boot=s3-1-beef');
});

test('a user without sudo for kexec is told to log in as root or given the exact sudoers line', () => {
  const lab = facts({ uid: 1000, user: 'lab', sudo: { kexec: false, reboot: true, systemctl: false, 'grub-reboot': false } });
  const msg = missingPrivilege(lab, ['kexec', 'reboot'], 'ssh://lab@box1');
  assert.match(msg ?? '', /user lab may not run kexec through 'sudo -n'/);
  assert.match(msg ?? '', /lab ALL=\(root\) NOPASSWD: \/usr\/sbin\/kexec, \/usr\/sbin\/reboot/);
  assert.equal(missingPrivilege(facts(), ['kexec'], 'box'), null);
});

test('kexec is chosen where it works; the one-shot GRUB entry where kexec is missing; neither gives both reasons', () => {
  assert.equal(chooseMethod(facts(), 'box1'), 'kexec');
  assert.equal(chooseMethod(facts({ kexec: null, grubReboot: '/usr/sbin/grub-reboot', grubCustomCfg: true }), 'box1'), 'grub-reboot');
  assert.throws(
    () => chooseMethod(facts({ kexecKernel: 'disabled', grubReboot: null }), 'box1'),
    /box1 cannot boot another kernel: kexec is disabled on the box \(\/proc\/sys\/kernel\/kexec_load_disabled is 1\); and the fallback .* grub-reboot is not installed/,
  );
});

test('kexec -l gets the image, the initrd and the whole command line as one word; through sudo -n for another user', () => {
  const files = { image: '~/.cache/hintlab/boot/abc-vmlinuz', initrd: '/boot/initrd.img-6.1', cmdline: "root=UUID=1 ro dyndbg='file x +p' hintlab.boot=t" };
  const root = kexecLoadCommand(facts(), files);
  assert.match(root, / kexec -l "\$HOME"\/\.cache\/hintlab\/boot\/abc-vmlinuz --initrd=\/boot\/initrd\.img-6\.1 --command-line='root=UUID=1 ro dyndbg='\\''file x \+p'\\'' hintlab\.boot=t'$/);
  assert.match(kexecLoadCommand(facts({ uid: 1000 }), files), / sudo -n kexec -l /);
});

test('a kexec boot loads, then starts the kernel detached a second later (kexec -e; systemctl kexec under systemd), the watchdog cancelled first', async () => {
  const files = { image: '/tmp/k', initrd: null, cmdline: 'root=/dev/sda1 hintlab.boot=t1' };
  const shell = scriptedShell([]);
  const start = await startBoot(shell, facts(), files, 't1', 'hintlab A', 'box1', 'CANCEL; ');
  assert.deepEqual({ method: start.method, command: start.command, fellBack: start.fellBack }, { method: 'kexec', command: 'kexec -e', fellBack: null });
  assert.equal(shell.sent.length, 2);
  assert.match(shell.sent[0]!, /kexec -l \/tmp\/k --command-line=/);
  assert.match(shell.sent[1]!, /^CANCEL; .*setsid sh -c 'sleep 1; sync; kexec -e; /);
  const systemd = scriptedShell([]);
  assert.equal((await startBoot(systemd, facts({ systemd: true }), files, 't1', 'hintlab A', 'box1')).command, 'systemctl kexec');
  assert.match(systemd.sent[1]!, /sleep 1; sync; systemctl kexec;/);
});

test('kexec -l refused (a locked-down kernel) falls back to the one-shot GRUB entry and a reboot, keeping kexec\'s words', async () => {
  const shell = scriptedShell([[/kexec -l/, { code: 1, stdout: Buffer.alloc(0), stderr: 'kexec_load failed: Operation not permitted\n' }]]);
  const f = facts({ grubReboot: '/usr/sbin/grub-reboot', grubCustomCfg: true });
  const start = await startBoot(shell, f, { image: '/tmp/k', initrd: '/tmp/i', cmdline: 'root=/dev/sda1 ro hintlab.boot=s1-1-ab' }, 's1-1-ab', 'hintlab B 6.1', 'box1');
  assert.equal(start.method, 'grub-reboot');
  assert.equal(start.fellBack, 'kexec_load failed: Operation not permitted');
  assert.equal(start.command, 'grub-reboot hintlab-s1-1-ab && reboot');
  const grub = shell.sent[1]!;
  assert.match(grub, /cp \/tmp\/k "\$d\/vmlinuz-s1-1-ab"/);
  assert.match(grub, /cp \/tmp\/i "\$d\/initrd-s1-1-ab"/);
  assert.match(grub, /\} >> \/boot\/grub\/custom\.cfg\ngrub-reboot hintlab-s1-1-ab$/);
  assert.equal(
    customCfgOf(grub),
    [
      '### hintlab begin hintlab-s1-1-ab',
      "menuentry 'hintlab B 6.1' --id hintlab-s1-1-ab {",
      '  search --no-floppy --fs-uuid --set=root 0b9c-uuid',
      '  linux /boot/hintlab/vmlinuz-s1-1-ab root=/dev/sda1 ro hintlab.boot=s1-1-ab',
      '  initrd /boot/hintlab/initrd-s1-1-ab',
      '}',
      '### hintlab end hintlab-s1-1-ab',
      '',
    ].join('\n'),
  );
  assert.match(shell.sent[2]!, /sleep 1; sync; reboot;/);
});

test('kexec -l refused with no GRUB to fall back to fails with kexec\'s words and the command to try by hand', async () => {
  const shell = scriptedShell([[/kexec -l/, { code: 255, stdout: Buffer.alloc(0), stderr: 'Cannot determine the file type of /tmp/k\n' }]]);
  await assert.rejects(startBoot(shell, facts(), { image: '/tmp/k', initrd: null, cmdline: 'x' }, 't', 'A', 'box1'), /kexec -l on box1 failed: Cannot determine the file type of \/tmp\/k\nby hand: .*kexec -l \/tmp\/k/);
});

test('the GRUB entry is written relative to the filesystem holding /boot, found by its UUID', () => {
  const script = grubEntryScript({ image: '/tmp/k', initrd: null, cmdline: 'ro' }, 'tok', "it's");
  assert.match(script, /findmnt -n -o UUID -T \/boot/);
  assert.match(script, /if \[ "\$mnt" = \/ \]; then rel=\$d; else rel=\$\{d#"\$mnt"\}; fi/);
  assert.match(script, /search --no-floppy --fs-uuid --set=root \$uuid/);
  assert.doesNotMatch(script, /initrd \$rel/);
});

/** A box that answers logins by script: each entry is one attempt's outcome. */
type Login = BoxShell & { n: number };

function scriptedLogins(outcomes: ({ bootId: string } | Error)[]) {
  let i = 0;
  const closed: number[] = [];
  return {
    closed,
    connect: async (): Promise<Login> => {
      const o = outcomes[Math.min(i++, outcomes.length - 1)]!;
      if (o instanceof Error) throw o;
      return Object.assign(scriptedShell([[/uname -r/, ok(ROOT_FACTS.replace(/bootId=.*/, `bootId=${o.bootId}`))]]), { n: i });
    },
    close: async (c: Login) => void closed.push(c.n),
  };
}

const waitBase = { name: 'box1', oldBootId: 'old', command: 'kexec -e', pauseMs: 1, abort: new AbortController().signal };

test('the wait skips answers on the old boot, counts failed logins as down, and returns the login on the new boot', async () => {
  const logins = scriptedLogins([{ bootId: 'old' }, new Error('cannot reach box1 (ssh: Connection refused)'), { bootId: 'new' }]);
  const seen: string[] = [];
  const got = await waitForNewBoot<Login>({ ...waitBase, ...logins, startedAt: Date.now(), boundMs: 60_000, onAttempt: (_ms, w) => seen.push(w) });
  assert.equal(got.facts.bootId, 'new');
  assert.equal(got.attempts, 3);
  assert.notEqual(got.downAfterMs, null);
  assert.deepEqual(logins.closed, [1]);
  assert.equal(seen[0], 'answered on its old boot (boot id old)');
  assert.equal(seen[1], 'ssh: Connection refused');
  assert.match(seen[2]!, /up on a new boot \(6\.1\.0-57-cloud-amd64\)/);
});

test('a box that never answers again is reported with how long hintlab waited, that it went down, and the last ssh error', async () => {
  const logins = scriptedLogins([new Error('cannot reach box1 (ssh: Connection timed out during banner exchange)')]);
  const err = await waitForNewBoot<Login>({ ...waitBase, ...logins, startedAt: Date.now(), boundMs: 50 }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof BoxDidNotReturn);
  assert.equal(err.wentDown, true);
  assert.match(err.message, /box1 did not answer on a new boot within 0\.1 s of kexec -e: hintlab waited \d+\.\d s \(\d+ logins\)\. It went down \(the first login that failed began \d+\.\d s after kexec -e\); the last thing seen: ssh at \d+\.\d s: Connection timed out during banner exchange/);
});

test('a box that keeps answering on its old boot never went down, and the boot log on the box says why', async () => {
  const logins = scriptedLogins([{ bootId: 'old' }]);
  const err = await waitForNewBoot<Login>({ ...waitBase, ...logins, startedAt: Date.now(), boundMs: 60_000, downBoundMs: 10, bootLog: async () => 'kexec_load failed\nexit status 1\n' }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof BoxDidNotReturn);
  assert.equal(err.wentDown, false);
  assert.match(err.message, /box1 never went down after kexec -e: it kept answering on its old boot for .* kexec -e left this on the box: kexec_load failed \| exit status 1/);
});

test('the kernel that came back must carry the token and the release and build the image names', () => {
  const f = facts();
  const want = { what: 'kernel B did not come up', release: '6.1.0-57-cloud-amd64', version: '#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)', token: 's1-2-aaaa' };
  assert.equal(mismatch(f, want), null);
  assert.match(mismatch(f, { ...want, release: '6.1.0-47-cloud-amd64' }) ?? '', /kernel B did not come up: uname -r says 6\.1\.0-57-cloud-amd64, expected 6\.1\.0-47-cloud-amd64/);
  assert.match(mismatch(f, { ...want, version: '#2 SMP PREEMPT_DYNAMIC Tue' }) ?? '', /uname -v says '#1 SMP .*', expected '#2 SMP PREEMPT_DYNAMIC Tue' \(the same release, another build\)/);
  assert.match(mismatch(f, { ...want, token: 's1-3-bbbb' }) ?? '', /carries another boot's token \(hintlab\.boot=s1-2-aaaa\), expected hintlab\.boot=s1-3-bbbb/);
  assert.match(mismatch(f, { ...want, token: null }) ?? '', /still carries hintlab\.boot=s1-2-aaaa: this is a boot hintlab started, not the default entry/);
});
