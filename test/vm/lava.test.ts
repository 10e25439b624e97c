/**
 * `hintlab vm --target lava://...` through a real LAVA (Debian's packages,
 * started by scripts/lava-lab.sh with one qemu device without KVM): kernel A
 * then kernel B, each boot one LAVA job under icount, stored as runs with
 * the job's id, URL and device; then a job made to fail (an image that is
 * no kernel), stored failed with LAVA's words; a hintlab killed with
 * SIGKILL while its job runs, whose job the guard cancels in LAVA. Slow:
 * about a minute a boot.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { measuredValues } from '../../src/model.ts';
import { median } from '../../src/stats/descriptive.ts';
import { Store } from '../../src/store/store.ts';
import { parseLavaAddress } from '../../src/targets/lava/address.ts';
import { LavaClient } from '../../src/targets/lava/client.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { CLI_FROM_SOURCE, runCli, tempDir } from '../helpers/cli.ts';
import { lavaForTests, requireLava } from '../helpers/lava.ts';
import { requireAll } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip = requireAll(requireLava(), requireCloudKernel(vmlinuz));
const dir = tempDir();
const labOf = lavaForTests(skip, dir);

interface LavaEnv {
  lava: { server: string; deviceType: string; jobs: { jobId: number; url: string; device: string; health: string; qemu: string | null }[] };
  vm: { accel: string; icount: boolean };
}

test('kernel A then kernel B as LAVA jobs on a qemu device under icount: stored as boots with their jobs', { skip, timeout: 900_000 }, async () => {
  const lab = labOf();
  assert.ok(lab && vmlinuz);
  const db = join(dir, 'lava.db');
  const env = { ...process.env, HINTLAB_LAVA_TOKEN: lab.token };
  const r = await runCli(['vm', '--target', lab.target, '--kernel', `A=${vmlinuz}`, '--kernel', `B=${vmlinuz}`, '--order', 'AB', '--icount', '--profile', 'getppid', '--ops', '20000', '--warmups', '1', '--rounds', '5', '--db', db], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /LAVA devices: qemu\d\d/);
  assert.match(r.stderr, /LAVA job \d+ queued: http:\/\/127\.0\.0\.1:\d+\/scheduler\/job\/\d+\n/);
  assert.match(r.stderr, /LAVA job \d+ running on qemu\d\d/);
  assert.match(r.stderr, /LAVA job \d+ finished: Complete on qemu\d\d/);
  const store = Store.open(db);
  try {
    const runs = ['vm-A-1', 'vm-B-1'].map((l) => store.resolveRun(l));
    for (const run of runs) {
      assert.equal(run.status, 'complete');
      assert.equal(run.unit, 'instructions/call');
      const e = run.environment as unknown as LavaEnv;
      assert.deepEqual([e.vm.accel, e.vm.icount], ['tcg', true]);
      assert.equal(e.lava.server, lab.target);
      assert.equal(e.lava.jobs.length, 1);
      // the lab's first device, or either of two when a developer's lab with two is up
      assert.match(e.lava.jobs[0]!.device, /^qemu\d\d$/);
      assert.equal(e.lava.jobs[0]!.health, 'Complete');
      assert.match(e.lava.jobs[0]!.url, /\/scheduler\/job\/\d+$/);
      assert.match(e.lava.jobs[0]!.qemu ?? '', /-icount shift=0,sleep=off/);
    }
    const [a, b] = runs.map((run) => median(measuredValues(run, 'getppid') as [number, ...number[]]));
    assert.ok(a! > 50 && a! < 20_000, `getppid costs ${a} instructions per call`);
    // the same kernel under icount on the same device: the two jobs agree as two local boots do
    assert.ok(Math.abs(b! - a!) / a! < 0.001, `A: ${a} instr/call, B: ${b} instr/call`);
  } finally {
    store.close();
  }
});

test('a job that cannot boot its image is stored failed with the job URL and LAVA\'s error; the token never reaches the store', { skip, timeout: 600_000 }, async () => {
  const lab = labOf();
  assert.ok(lab);
  const db = join(dir, 'fail.db');
  // a bzImage header and nothing behind it: hintlab takes it, qemu on the worker cannot boot it
  const bogus = join(dir, 'vmlinuz-bogus');
  const image = Buffer.alloc(0x300);
  image.write('HdrS', 0x202, 'latin1');
  writeFileSync(bogus, image);
  const target = lab.target.replace('lava://', `lava://${lab.token}@`);
  const r = await runCli(['vm', '--target', target, '--kernel', `X=${bogus}`, '--order', 'X', '--profile', 'getppid', '--rounds', '1', '--warmups', '0', '--db', db]);
  assert.notEqual(r.code, 0, r.stderr);
  assert.match(r.stderr, /LAVA job http:\/\/127\.0\.0\.1:\d+\/scheduler\/job\/\d+ on qemu\d\d ended Incomplete: /);
  const store = Store.open(db);
  try {
    const run = store.resolveRun('vm-X-1');
    assert.equal(run.status, 'failed');
    assert.match(run.error ?? '', /LAVA job http:\/\/\S+\/scheduler\/job\/\d+ on qemu\d\d ended Incomplete/);
    assert.ok(!JSON.stringify(run).includes(lab.token), 'the token is stored nowhere in the run');
  } finally {
    store.close();
  }
});

test('a hintlab killed with SIGKILL while its job runs: its guard cancels the job, LAVA ends it Canceled', { skip, timeout: 600_000 }, async () => {
  const lab = labOf();
  assert.ok(lab && vmlinuz);
  const env = { ...process.env, HINTLAB_LAVA_TOKEN: lab.token };
  const argv = ['vm', '--target', lab.target, '--kernel', `A=${vmlinuz}`, '--kernel', `B=${vmlinuz}`, '--order', 'AB', '--icount', '--profile', 'getppid', '--ops', '20000', '--warmups', '1', '--rounds', '5', '--db', join(dir, 'killed.db')];
  const child = spawn(process.execPath, [...CLI_FROM_SOURCE, ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const said: string[] = [];
  const running = new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stderr }).on('line', (l) => {
      said.push(l);
      const m = /LAVA job (\d+) running on/.exec(l);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', () => reject(new Error(`hintlab ended before its job ran:\n${said.join('\n')}`)));
  });
  const id = await running;
  child.kill('SIGKILL');
  const client = new LavaClient(parseLavaAddress(lab.target, env));
  const until = Date.now() + 60_000;
  let status = await client.status(id);
  while (status.state !== 'Finished' && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    status = await client.status(id);
  }
  assert.deepEqual([status.state, status.health], ['Finished', 'Canceled'], `job ${id} after the kill:\n${said.join('\n')}`);
});
