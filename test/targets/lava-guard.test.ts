/**
 * The LAVA job guard (src/targets/lava/guard.ts) against the fake REST
 * server (test/helpers/fake-lava.ts): a hintlab killed with SIGKILL while
 * its job is queued gets that job cancelled, and only that one; a clean end
 * cancels nothing; the guard never outlives its purpose and never shows the
 * token on its command line or in its environment. The real lab's check is
 * in docs/lava.md.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseLavaAddress } from '../../src/targets/lava/address.ts';
import { LavaClient } from '../../src/targets/lava/client.ts';
import { startLavaGuard } from '../../src/targets/lava/guard.ts';
import { lavaTarget } from '../../src/targets/lava/target.ts';
import { tempDir } from '../helpers/cli.ts';
import { type FakeLava, startFakeLava } from '../helpers/fake-lava.ts';
import { descendants, isAlive, named, survivorsAfter } from '../helpers/procs.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/lava-run.ts', import.meta.url));
const TOKEN = 'good-token';
const dir = tempDir();
writeFileSync(join(dir, 'probe'), 'PROBE-BYTES');
writeFileSync(join(dir, 'vmlinuz'), 'KERNEL');
let fake: FakeLava;
before(async () => {
  fake = await startFakeLava(TOKEN);
});
after(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Poll until `ok()` holds; false after `boundMs`. */
async function until(ok: () => boolean, boundMs = 15_000): Promise<boolean> {
  for (const end = Date.now() + boundMs; !ok(); ) {
    if (Date.now() > end) return false;
    await sleep(50);
  }
  return true;
}

test('hintlab killed with SIGKILL while its job is queued: the guard cancels that job (not the one that finished), then exits', async () => {
  fake.jobs.length = 0;
  fake.cancels.length = 0;
  // the first job runs to its end; the second stays queued for ever
  fake.next = [{ console: ['hello'] }, { console: [], queued: 1e9 }];
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, fake.url, dir], { env: { ...process.env, HINTLAB_LAVA_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'inherit'] });
  const said: string[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => said.push(l));
  try {
    assert.ok(await until(() => said.includes('submitted 2'), 60_000), `the run never submitted its second job: ${said.join(' | ')}`);
    assert.ok(said.includes('finished 1 Complete'), said.join(' | '));
    const guardPid = Number(said.find((l) => l.startsWith('guard '))!.split(' ')[1]);
    const guard = descendants(child.pid!).find((p) => p.pid === guardPid);
    assert.ok(guard, `the guard ${guardPid} is not among the run's processes`);
    for (const file of ['cmdline', 'environ']) assert.ok(!readFileSync(`/proc/${guardPid}/${file}`, 'utf8').includes(TOKEN), `the token is in the guard's ${file}`);
    assert.deepEqual(fake.cancels, [], 'nothing is cancelled while hintlab runs');
    child.kill('SIGKILL');
    assert.ok(await until(() => fake.cancels.length > 0), 'the guard never cancelled the queued job');
    const left = await survivorsAfter([guard], 10_000);
    assert.deepEqual(left, [], `the guard outlived its cancel: ${named(left)}`);
    assert.deepEqual(fake.cancels, [2], 'only the job hintlab had not finished is cancelled, once');
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test('a clean end: the guard cancels nothing and exits; a job hintlab could not settle is cancelled as it ends', async () => {
  fake.jobs.length = 0;
  fake.cancels.length = 0;
  fake.next = [{ console: ['hello'] }];
  const client = new LavaClient(parseLavaAddress(`lava://${TOKEN}@${fake.url}/qemu`, {}));
  const guard = await startLavaGuard(client.address);
  const target = lavaTarget({ label: 'A', image: join(dir, 'vmlinuz'), icount: true, cpus: 1, memoryMiB: 256 }, { client, probe: { path: join(dir, 'probe') }, cacheDir: dir, pollMs: 5, guard });
  const exit = await target.run({ program: 'probe', args: ['--profile', 'getppid'], timeoutSeconds: 120 }, () => {}, new AbortController().signal);
  assert.equal(exit.labJob?.health, 'Complete');
  const proc = descendants(process.pid).find((p) => p.pid === guard.pid)!;
  assert.ok(isAlive(proc), 'the guard runs until released');
  await guard.release();
  assert.equal(isAlive(proc), false, 'a released guard has exited');
  assert.deepEqual(fake.cancels, [], 'a clean end cancels nothing');

  // hintlab ends with a job outstanding (its own cancel failed): the guard tries it
  const second = await startLavaGuard(client.address);
  const id = await client.submit('{}');
  second.submitted(id);
  await second.release();
  assert.deepEqual(fake.cancels, [id]);
});

test('a server that never answers: the guard gives up after a few tries and exits', async () => {
  const guard = await startLavaGuard({ base: 'http://127.0.0.1:1', token: 't' });
  guard.submitted(7);
  const started = Date.now();
  await guard.release();
  assert.ok(Date.now() - started < 15_000, `the guard took ${Date.now() - started} ms to give up`);
});
