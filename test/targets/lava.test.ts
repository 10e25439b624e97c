/**
 * The LAVA target against a fake REST server (test/helpers/fake-lava.ts):
 * the address, the job it writes, the log it reads, the progress it
 * reports, and how a job's end becomes the target's end in LAVA's words.
 * The real server is test/vm/lava.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseLavaAddress, redactLavaTokens } from '../../src/targets/lava/address.ts';
import { LavaClient, parseLavaLog } from '../../src/targets/lava/client.ts';
import { END_PROMPT, lavaJobDefinition } from '../../src/targets/lava/job.ts';
import { serveFiles } from '../../src/targets/lava/serve.ts';
import { lavaTarget, type LavaProgress } from '../../src/targets/lava/target.ts';
import { tempDir } from '../helpers/cli.ts';
import { type FakeLava, startFakeLava } from '../helpers/fake-lava.ts';

const dir = tempDir();
const probe = { path: join(dir, 'probe') };
writeFileSync(probe.path, 'PROBE-BYTES');
const kernel = join(dir, 'vmlinuz');
writeFileSync(kernel, 'KERNEL');
let fake: FakeLava;
before(async () => {
  fake = await startFakeLava();
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const spec = { label: 'A', image: kernel, icount: true, cpus: 1, memoryMiB: 256 };
const job = { program: 'probe' as const, args: ['--profile', 'getppid'], timeoutSeconds: 120 };

function target(token = 'good-token', progress: LavaProgress[] = []) {
  const client = new LavaClient(parseLavaAddress(`lava://${token}@${fake.url}/qemu`, {}));
  return lavaTarget(spec, { client, probe, cacheDir: dir, pollMs: 5, onProgress: (p) => progress.push(p) });
}

test('a LAVA address: server, device type, tags, a token from the URL or the environment, never in its name', () => {
  const a = parseLavaAddress('lava://s3cret@lab.example:8080/qemu?tags=icount,big', {});
  assert.deepEqual(a, { base: 'http://lab.example:8080', name: 'lava://lab.example:8080/qemu?tags=icount,big', token: 's3cret', deviceType: 'qemu', tags: ['icount', 'big'], serve: null });
  assert.equal(parseLavaAddress('lava://lab/qemu?serve=10.0.0.5:8765&tags=x', {}).serve, '10.0.0.5:8765');
  assert.equal(parseLavaAddress('lava://lab/qemu?serve=10.0.0.5:8765', {}).name, 'lava://lab/qemu', 'where files are served is no part of the lab\'s name');
  assert.equal(parseLavaAddress('lava+https://admin:t0k@lab/qemu', {}).base, 'https://lab');
  assert.equal(parseLavaAddress('lava+https://admin:t0k@lab/qemu', {}).token, 't0k');
  assert.equal(parseLavaAddress('lava://lab/qemu', { HINTLAB_LAVA_TOKEN: 'envtok' }).token, 'envtok');
  assert.throws(() => parseLavaAddress('lava://lab/', {}), /device type is missing/);
  assert.throws(() => parseLavaAddress('ssh://root@box', {}), /not a LAVA address; use lava:\/\//);
  assert.throws(() => parseLavaAddress('lava://lab/qemu?device=x', {}), /unknown LAVA option 'device' \(tags=a,b or serve=HOST:PORT\)/);
  assert.deepEqual(redactLavaTokens(['vm', '--target', 'lava://s3cret@lab/qemu', '--target=lava://a:b@lab/qemu']), ['vm', '--target', 'lava://***@lab/qemu', '--target=lava://***@lab/qemu']);
});

test("the job boots kernel and initramfs with the qemu method, ends at the kernel's reboot line after the probe's last, and carries icount in its qemu context", () => {
  const def = JSON.parse(lavaJobDefinition({ name: 'hintlab vm-A-1', deviceType: 'qemu', tags: ['x'], kernelUrl: 'file:///k', initrdUrl: 'file:///i', icount: true, cpus: 1, memoryMiB: 256, timeoutSeconds: 600 }));
  assert.deepEqual(def.context.extra_options, ['-no-reboot', '-smp 1', '-icount shift=0,sleep=off', '-rtc base=2020-01-01T00:00:00,clock=vm']);
  assert.equal(def.context.memory, 256);
  assert.deepEqual(def.tags, ['x']);
  assert.equal(def.actions[0].deploy.images.kernel.url, 'file:///k');
  assert.match(def.actions[0].deploy.images.kernel.image_arg, /-append "console=ttyS0,115200 panic=-1 loglevel=6 nokaslr"/);
  assert.deepEqual(def.actions[1].boot.prompts, [END_PROMPT]);
  assert.equal(def.actions.length, 2, 'no test action: no overlay, no shell in the guest');
  const plain = JSON.parse(lavaJobDefinition({ name: 'n', deviceType: 'qemu', kernelUrl: 'k', initrdUrl: 'i', icount: false, cpus: 2, memoryMiB: 256, timeoutSeconds: 60 }));
  assert.deepEqual(plain.context.extra_options, ['-no-reboot', '-smp 2']);
});

test("LAVA's log lines: YAML flow mappings with double-quoted escapes; a result entry keeps its mapping", () => {
  const text = [
    '- {"dt": "2026-12-03T09:30:01.1", "lvl": "target", "msg": "@hl1 round profile=getppid #0a0b0c0d"}',
    '- {"dt": "2026-12-03T09:30:01.2", "lvl": "target", "msg": "tab\\there \\x1b[0m\\u00e9 \\"q\\""}',
    '- {"dt": "2026-12-03T09:30:02", "lvl": "results", "msg": {"case": "job", "result": "fail"}}',
    '- {broken',
    '',
  ].join('\n');
  const entries = parseLavaLog(text);
  assert.equal(entries.length, 4);
  assert.equal(entries[0]!.msg, '@hl1 round profile=getppid #0a0b0c0d');
  assert.equal(entries[1]!.msg, 'tab\there \x1b[0mé "q"');
  assert.deepEqual(entries[2]!.msg, { case: 'job', result: 'fail' });
  assert.equal(entries[3]!.lvl, 'unparsed');
});

test('a complete job: queued, running on its device, the console streamed in order, the job stored as facts', async () => {
  fake.next.push({ console: ['Linux version 6.1.0', 'init: "quoted" and \\" kept', '@hl1 hello proto=1', '@hl1 poweroff status=0'], queued: 2 });
  const progress: LavaProgress[] = [];
  const lines: string[] = [];
  const exit = await target('good-token', progress).run(job, (l) => lines.push(l), new AbortController().signal);
  const id = fake.jobs.at(-1)!.id;
  assert.deepEqual(lines, ['Linux version 6.1.0', 'init: "quoted" and \\" kept', '@hl1 hello proto=1', '@hl1 poweroff status=0']);
  assert.deepEqual(exit.end, { kind: 'exited', code: 0, signal: null });
  assert.deepEqual(exit.labJob, { server: `lava://${fake.url}/qemu`, deviceType: 'qemu', jobId: id, url: `http://${fake.url}/scheduler/job/${id}`, device: 'qemu01', health: 'Complete', qemu: '/usr/bin/qemu-system-x86_64 -cpu qemu64 -nographic -m 256 -kernel /k -initrd /i', kernelSha256: createHash('sha256').update('KERNEL').digest('hex') });
  assert.deepEqual(progress.map((p) => p.kind), ['submitted', 'running', 'finished']);
  const def = JSON.parse(fake.jobs.at(-1)!.definition);
  assert.match(def.actions[0].deploy.images.ramdisk.url, /^file:\/\/.*\.cpio\.gz$/);
  assert.equal(def.actions[0].deploy.images.kernel.url, `file://${kernel}`);
});

test('an incomplete job ends as a target gone away, in LAVA\'s words, with the job URL and the console', async () => {
  fake.next.push({ console: ['Linux version 6.1.0', 'Kernel panic - not syncing: VFS'], health: 'Incomplete', failureComment: 'kernel-messages: Kernel panic', errors: ['Job error: kernel panic'] });
  fake.next.push({ console: ['qemu: linux kernel too old to load a ram disk'], health: 'Incomplete', failureComment: 'InfrastructureError: The Infrastructure is not working correctly.', jobError: { error_type: 'Infrastructure', error_msg: 'Connection closed' } });
  const exit = await target().run(job, () => {}, new AbortController().signal);
  const id = fake.jobs.at(-1)!.id;
  assert.deepEqual(exit.end, { kind: 'lost', reason: `LAVA job http://${fake.url}/scheduler/job/${id} on qemu01 ended Incomplete: kernel-messages: Kernel panic` });
  const text = exit.describe('the target went away');
  assert.match(text, new RegExp(`LAVA job: http://${fake.url.replace('.', '\\.')}/scheduler/job/${id} \\(device qemu01, Incomplete\\)`));
  assert.match(text, /\| Kernel panic - not syncing: VFS/);
  assert.match(text, /LAVA said:\n {2}\| Job error: kernel panic/);
  // LAVA's verdict on the job comes before its generic failure comment
  const infra = await target().run(job, () => {}, new AbortController().signal);
  assert.match((infra.end as { reason: string }).reason, /^LAVA job \S+ on qemu01 ended Incomplete: Infrastructure: Connection closed$/);
});

test('a job cancelled in LAVA says so; a Ctrl-C cancels the job in LAVA and waits until it is over', async () => {
  fake.next.push({ console: ['Linux version 6.1.0'], health: 'Canceled', failureComment: 'Canceled by admin' });
  const byLava = await target().run(job, () => {}, new AbortController().signal);
  assert.match((byLava.end as { reason: string }).reason, /^LAVA job http:\/\/\S+\/scheduler\/job\/\d+ on qemu01 was cancelled in LAVA: Canceled by admin$/);

  fake.next.push({ console: Array.from({ length: 50 }, (_, i) => `line ${i}`) });
  const ctl = new AbortController();
  const exit = await target().run(job, (l) => l === 'line 2' && ctl.abort(), ctl.signal);
  assert.deepEqual(exit.end, { kind: 'aborted' });
  assert.equal(fake.jobs.at(-1)!.cancelled, true);
  assert.equal(fake.jobs.at(-1)!.health, 'Canceled');
});

test('a bad token is refused before anything runs, naming the server and the fix', async () => {
  const client = new LavaClient(parseLavaAddress(`lava://wrong@${fake.url}/qemu`, {}));
  await assert.rejects(client.checkDeviceType('qemu'), new RegExp(`LAVA server http://${fake.url.replace('.', '\\.')} refused the token \\(listing devices of type qemu\\): Invalid token\\.; give a valid token`));
  await assert.rejects(target('wrong').run(job, () => {}, new AbortController().signal), /refused the token \(submitting a job\): Invalid token\./);
});

test('a device type with no usable device is one message listing what LAVA has', async () => {
  const client = new LavaClient(parseLavaAddress(`lava://good-token@${fake.url}/qemu`, {}));
  assert.deepEqual((await client.checkDeviceType('qemu')).map((d) => d.hostname), ['qemu01']);
  fake.devices[0]!.health = 'Retired';
  try {
    await assert.rejects(client.checkDeviceType('qemu'), /has no usable device of type 'qemu' \(devices: qemu01 \(Retired\)\)/);
  } finally {
    fake.devices[0]!.health = 'Good';
  }
  fake.workers[0]!.state = 'Offline';
  try {
    await assert.rejects(client.checkDeviceType('qemu'), /no usable device of type 'qemu' \(devices: qemu01 \(Good, worker w1 offline\)\)/);
  } finally {
    fake.workers[0]!.state = 'Online';
  }
  const nobody = new LavaClient(parseLavaAddress('lava://t@127.0.0.1:1/qemu', {}));
  await assert.rejects(nobody.checkDeviceType('qemu'), /LAVA server http:\/\/127\.0\.0\.1:1 did not answer \(listing devices of type qemu, 3 tries\): ECONNREFUSED; check the server in --target/);
});

test('files served for a worker on another machine: only the ones a job names, by content, until closed', async () => {
  const files = await serveFiles('127.0.0.1:0');
  const url = files.url(kernel);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{16}\/vmlinuz$/);
  assert.equal(await (await fetch(url)).text(), 'KERNEL');
  assert.equal((await fetch(url.replace(/\/vmlinuz$/, '/probe'))).status, 404);
  assert.equal((await fetch(new URL('/etc/passwd', url))).status, 404);
  await files.close();
  await assert.rejects(fetch(url));
  await assert.rejects(serveFiles('nohostport'), /serve=nohostport: give HOST:PORT/);
});

test('a queued job whose devices all went away is cancelled, in LAVA\'s words, instead of waiting for ever', async () => {
  fake.next.push({ console: [], queued: 1_000_000 });
  const client = new LavaClient(parseLavaAddress(`lava://good-token@${fake.url}/qemu`, {}));
  const t = lavaTarget(spec, { client, probe, cacheDir: dir, pollMs: 5, queueCheckMs: 20 });
  const running = t.run(job, () => {}, new AbortController().signal);
  await new Promise((r) => setTimeout(r, 30));
  fake.devices[0]!.health = 'Maintenance';
  try {
    const exit = await running;
    assert.equal(exit.end.kind, 'lost');
    assert.match((exit.end as { reason: string }).reason, /^LAVA job http:\/\/\S+\/scheduler\/job\/\d+ was cancelled while queued: LAVA server \S+ has no usable device of type 'qemu' \(devices: qemu01 \(Maintenance\)\)/);
    assert.equal(fake.jobs.at(-1)!.cancelled, true);
  } finally {
    fake.devices[0]!.health = 'Good';
  }
});

test('a server that stops answering mid-job: the run fails with its words, and the job is asked to cancel', async () => {
  fake.next.push({ console: Array.from({ length: 20 }, (_, i) => `line ${i}`), brokenAfter: 3 });
  await assert.rejects(target().run(job, () => {}, new AbortController().signal), /LAVA reading job \d+ failed at http:\/\/\S+\/api\/v0\.2\/jobs\/\d+\/: HTTP 500: Server Error \(500\) \(LAVA job http:\/\/\S+\/scheduler\/job\/\d+ was asked to cancel\)/);
  assert.equal(fake.jobs.at(-1)!.cancelled, true);
});
