/**
 * `vm` on a LAVA lab over the fake REST server (test/helpers/fake-lava.ts):
 * the boot order as jobs, each boot stored as a run with its job (id, URL,
 * device) and LAVA's kernel command line; with two devices under icount,
 * boots go in pairs and every step is still reported as its own boot; the
 * job guard leaves with the design; a
 * device type without devices, or a job LAVA ends Incomplete, fail in
 * LAVA's words. The real server is test/vm/lava.test.ts.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { findProfile } from '../../src/bench/profiles.ts';
import { measuredValues } from '../../src/model.ts';
import { readEnvironment } from '../../src/environment/read.ts';
import { Store } from '../../src/store/store.ts';
import type { VmKernel } from '../../src/vm/kernels.ts';
import { type ResumeStep, resumeSteps, stepsDone } from '../../src/vm/lava.ts';
import { runVmOnLava } from '../../src/vm/placed.ts';
import { parseLavaAddress } from '../../src/targets/lava/address.ts';
import { parsePlace } from '../../src/targets/place.ts';
import { repeatOrder, type StepResult, type VmRequest } from '../../src/vm/runner.ts';
import { tempDir } from '../helpers/cli.ts';
import { type FakeLava, probeConsole, startFakeLava } from '../helpers/fake-lava.ts';
import { descendants, named } from '../helpers/procs.ts';

const dir = tempDir();
const probePath = join(dir, 'probe');
writeFileSync(probePath, 'not a real binary: the fake lab never runs it');
const probe: ProbeBuild = { path: probePath, static: true, buildId: 'feedfacefeedface', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-static'] };
const kernel = (label: string): VmKernel => {
  const image = join(dir, `vmlinuz-${label}`);
  writeFileSync(image, `kernel ${label}`);
  return { label, image, manifest: null, configHash: { known: false, reason: 'test' } };
};
const kernels = [kernel('A'), kernel('B')];
let fake: FakeLava;
before(async () => {
  fake = await startFakeLava();
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

const console = probeConsole;

function request(over: Partial<VmRequest> = {}): VmRequest {
  return { kernels, steps: ['A', 'B', 'A'], profiles: [findProfile('getppid')!], ops: 1000, warmups: 0, rounds: 2, accel: 'auto', icount: true, timeoutSeconds: 60, labelPrefix: 'vm-', command: 'hintlab vm ...', hintlabVersion: '0.0.0', ...over };
}

async function onLava(req: VmRequest, store = Store.open(':memory:'), resume = false) {
  const steps: StepResult[] = [];
  let parallel = 0;
  const result = await runVmOnLava(req, { address: parseLavaAddress(`lava://good-token@${fake.url}/qemu`, {}), store, probe, abort: new AbortController().signal, cacheDir: dir, pollMs: 2, resume, onStepEnd: (s) => steps.push(s), onDevices: (_d, p) => (parallel = p) });
  return { store, result, steps, parallel };
}

// kernel A's boots measure 400 000 per round (400 instructions a call), B's 300 000
const byKernel = (definition: string) => ({ console: console(definition.includes('kernel A') ? 400_000 : 300_000) });

test('A B A as three LAVA jobs on one device: three runs in instructions/call, each with its job', async () => {
  fake.scriptFor = byKernel;
  const before = fake.jobs.length;
  const cancels = fake.cancels.length;
  const { store, result, steps, parallel } = await onLava(request());
  // the job guard (src/targets/lava/guard.ts) ran the design through and left with it, cancelling nothing
  assert.deepEqual(descendants(process.pid).filter((p) => p.comm === 'node'), [], `left running: ${named(descendants(process.pid))}`);
  assert.equal(fake.cancels.length, cancels);
  assert.equal(parallel, 1);
  assert.equal(result.unit, 'instructions/call');
  assert.deepEqual(steps.map((s) => [s.runLabel, s.state]), [['vm-A-1', 'complete'], ['vm-B-1', 'complete'], ['vm-A-2', 'complete']]);
  for (const [label, value] of [['vm-A-1', 400], ['vm-B-1', 300], ['vm-A-2', 400]] as const) {
    const run = store.resolveRun(label);
    assert.deepEqual(measuredValues(run, 'getppid'), [value, value]);
    const env = run.environment as { lava: { server: string; jobs: { jobId: number; url: string; device: string; health: string }[] }; kernel: { cmdline: { value: string } } };
    assert.equal(env.lava.server, `lava://${fake.url}/qemu`);
    assert.equal(env.lava.jobs.length, 1);
    assert.equal(env.lava.jobs[0]!.url, `http://${fake.url}/scheduler/job/${env.lava.jobs[0]!.jobId}`);
    assert.equal(env.lava.jobs[0]!.health, 'Complete');
    assert.equal(env.kernel.cmdline.value, 'console=ttyS0,115200 panic=-1 loglevel=6 nokaslr');
  }
  assert.equal(fake.jobs.length - before, 3);
  assert.match((JSON.parse(fake.jobs.at(-1)!.definition) as { job_name: string }).job_name, /^hintlab vm-A: kernel A, boot 2$/);
});

test('two devices under icount: A B B A A B runs in pairs, every boot reported as its own step, pooled runs as boots', async () => {
  fake.scriptFor = byKernel;
  fake.devices.push({ hostname: 'qemu02', health: 'Good', state: 'Idle', tags: [], worker_host: 'w1' });
  try {
    const { store, steps, parallel } = await onLava(request({ steps: repeatOrder(['A', 'B'], 3), poolBoots: true }));
    assert.equal(parallel, 2);
    assert.deepEqual(steps.map((s) => `${s.runLabel}#${s.bootIndex}:${s.state}`).sort(), ['vm-A#1:complete', 'vm-A#2:complete', 'vm-A#3:complete', 'vm-B#1:complete', 'vm-B#2:complete', 'vm-B#3:complete']);
    const a = store.resolveRun('vm-A');
    const b = store.resolveRun('vm-B');
    assert.equal(a.status, 'complete');
    assert.deepEqual(measuredValues(b, 'getppid'), [300, 300, 300, 300, 300, 300]);
    const devices = (a.environment as { lava: { jobs: { device: string }[] } }).lava.jobs.map((j) => j.device);
    assert.equal(devices.length, 3);
    assert.ok(devices.every((d) => d === 'qemu01' || d === 'qemu02'));
  } finally {
    fake.devices.pop();
  }
});

test('a job LAVA ends Incomplete fails its run with the job URL and LAVA\'s words; the next boot still runs', async () => {
  fake.scriptFor = undefined;
  fake.next.push({ console: ['Linux version 6.1.0'], health: 'Incomplete', failureComment: 'Unable to download file:///nowhere/vmlinuz' }, { console: console(300_000) });
  const { store, steps } = await onLava(request({ steps: ['A', 'B'] }));
  assert.deepEqual(steps.map((s) => s.state), ['failed', 'complete']);
  const failed = store.resolveRun('vm-A-1');
  assert.equal(failed.status, 'failed');
  assert.match(failed.error ?? '', /the target went away under the probe: LAVA job http:\/\/\S+\/scheduler\/job\/\d+ on qemu01 ended Incomplete: Unable to download file:\/\/\/nowhere\/vmlinuz/);
});

test('refused before any job: a device type without usable devices, --cost, --accel kvm, a real board type', async () => {
  const address = `lava://t@${fake.url}/qemu`;
  assert.throws(() => parsePlace('vm', { target: [address], accel: 'kvm' }, {}), /--accel kvm: on a LAVA lab the device decides/);
  assert.throws(() => parsePlace('vm', { target: [address], cost: true }, {}), /--cost needs hintlab's qemu plugin on this machine; it does not run on a LAVA lab: drop --cost or --target/);
  const jobs = fake.jobs.length;
  fake.devices[0]!.health = 'Maintenance';
  try {
    await assert.rejects(onLava(request()), /no usable device of type 'qemu' \(devices: qemu01 \(Maintenance\)\)/);
  } finally {
    fake.devices[0]!.health = 'Good';
  }
  const store = Store.open(':memory:');
  await assert.rejects(runVmOnLava(request(), { address: parseLavaAddress(`lava://t@${fake.url}/beaglebone-black`, {}), store, probe, abort: new AbortController().signal }), /qemu device types only so far/);
  assert.equal(fake.jobs.length, jobs, 'nothing was submitted');
});

test('--resume boots only what the same order has not stored complete: a failed boot runs again, a complete one does not', async () => {
  fake.scriptFor = undefined;
  fake.next.push({ console: console(400_000) }, { console: [], health: 'Canceled', failureComment: 'Canceled by admin' });
  const first = await onLava(request({ steps: ['A', 'B'] }));
  assert.deepEqual(first.steps.map((s) => s.state), ['complete', 'failed']);
  assert.deepEqual(stepsDone(first.store, request({ steps: ['A', 'B'] }), `lava://${fake.url}/qemu`, probe.buildId), [0]);
  // another order, another lab: nothing counts as done
  assert.deepEqual(stepsDone(first.store, request({ steps: ['A', 'B', 'A'] }), `lava://${fake.url}/qemu`, probe.buildId), []);
  assert.deepEqual(stepsDone(first.store, request({ steps: ['A', 'B'] }), 'lava://elsewhere/qemu', probe.buildId), []);
  const jobs = fake.jobs.length;
  fake.next.push({ console: console(300_000) });
  const again = await onLava(request({ steps: ['A', 'B'] }), first.store, true);
  assert.deepEqual(again.steps.map((s) => [s.runLabel, s.state]), [['vm-B-1', 'complete']]);
  assert.equal(fake.jobs.length - jobs, 1, 'one job: B only');
  assert.deepEqual(measuredValues(first.store.resolveRun('vm-B-1'), 'getppid'), [300, 300]);
  assert.throws(() => stepsDone(first.store, request({ steps: repeatOrder(['A', 'B'], 2), poolBoots: true }), 'x', probe.buildId), /--resume continues an order with one run per boot/);
});

test('serve=HOST:PORT: the jobs name http:// URLs hintlab serves while the order runs, and the server is gone after', async () => {
  fake.scriptFor = byKernel;
  const store = Store.open(':memory:');
  await runVmOnLava(request({ steps: ['A'] }), { address: parseLavaAddress(`lava://good-token@${fake.url}/qemu?serve=127.0.0.1:0`, {}), store, probe, abort: new AbortController().signal, cacheDir: dir, pollMs: 2 });
  const def = JSON.parse(fake.jobs.at(-1)!.definition) as { actions: { deploy: { images: { kernel: { url: string }; ramdisk: { url: string } } } }[] };
  const kernelUrl = def.actions[0]!.deploy.images.kernel.url;
  assert.match(kernelUrl, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{16}\/vmlinuz-A$/);
  assert.match(def.actions[0]!.deploy.images.ramdisk.url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{16}\/[0-9a-f]{16}\.cpio\.gz$/);
  await assert.rejects(fetch(kernelUrl), 'nothing serves after the order');
  assert.equal(store.resolveRun('vm-A-1').status, 'complete');
});

test('two devices: a boot that fails does not stop the boot beside it', async () => {
  fake.scriptFor = (definition) => (definition.includes('kernel A') ? { console: ['qemu: linux kernel too old to load a ram disk'], health: 'Incomplete', failureComment: 'Connection closed' } : byKernel(definition));
  fake.devices.push({ hostname: 'qemu02', health: 'Good', state: 'Idle', tags: [], worker_host: 'w1' });
  try {
    const { steps, parallel } = await onLava(request({ steps: ['A', 'B'] }));
    assert.equal(parallel, 2);
    assert.deepEqual(steps.map((s) => `${s.runLabel}:${s.state}`).sort(), ['vm-A-1:failed', 'vm-B-1:complete']);
  } finally {
    fake.devices.pop();
  }
});

test('--resume boots again what was stored from a kernel rebuilt in place, with other --rounds/--ops/--warmups/--inject-work, or before the kernel\'s hash was kept, saying why', async () => {
  fake.scriptFor = byKernel;
  const server = `lava://${fake.url}/qemu`;
  const req = request({ steps: ['A', 'B'] });
  const { store } = await onLava(req);
  assert.deepEqual(stepsDone(store, req, server, probe.buildId), [0, 1]);
  const why = (r: VmRequest) => resumeSteps(store, r, server, probe.buildId).map((s) => s.why);
  assert.deepEqual(why(request({ steps: ['A', 'B'], rounds: 3 })), ['stored with --rounds 2, not 3', 'stored with --rounds 2, not 3']);
  assert.deepEqual(why(request({ steps: ['A', 'B'], ops: 500 })), ['stored with --ops 1000, not 500', 'stored with --ops 1000, not 500']);
  assert.deepEqual(why(request({ steps: ['A', 'B'], warmups: 1 })), ['stored with --warmups 0, not 1', 'stored with --warmups 0, not 1']);
  assert.deepEqual(why(request({ steps: ['A', 'B'], injectWork: { B: 100 } })), [null, 'stored with --inject-work 0, not 100']);
  assert.deepEqual(resumeSteps(store, req, server, 'another-probe').map((s) => s.why), ['stored by another probe build', 'stored by another probe build']);
  // B's bzImage rebuilt in place: same path, other bytes
  const b = kernels[1]!.image;
  writeFileSync(b, 'kernel B, rebuilt');
  try {
    assert.match(why(req)[1] ?? '', new RegExp(`^kernel image ${b} changed since \\(sha256 [0-9a-f]{12}, now [0-9a-f]{12}\\)$`));
    assert.equal(why(req)[0], null);
    const jobs = fake.jobs.length;
    let again: ResumeStep[] = [];
    await runVmOnLava(req, { address: parseLavaAddress(`lava://good-token@${fake.url}/qemu`, {}), store, probe, abort: new AbortController().signal, cacheDir: dir, pollMs: 2, resume: true, onResume: (_done, a) => (again = a) });
    assert.equal(fake.jobs.length - jobs, 1, 'B booted again, A not');
    assert.deepEqual(again.map((s) => s.plan.runLabel), ['vm-B-1']);
  } finally {
    writeFileSync(b, 'kernel B');
  }
  // a run an older hintlab stored: its job has no kernel hash
  const a = store.resolveRun('vm-A-1');
  const env = readEnvironment(a);
  const lava = env.where === 'guest' ? env.lava : undefined;
  assert.ok(lava?.server !== undefined && lava.deviceType !== undefined && lava.jobs !== undefined);
  store.updateEnvironment(a.id, { lava: { server: lava.server, deviceType: lava.deviceType, jobs: lava.jobs.map(({ kernelSha256: _dropped, ...job }) => job) } });
  assert.deepEqual(why(req)[0], "stored without the kernel image's hash (an older hintlab), so it cannot be told from a rebuilt one");
});
