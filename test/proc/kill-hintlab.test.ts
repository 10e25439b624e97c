/**
 * kill -9 of a Node process in the middle of each spawn site (make for
 * kernel builds and codegen, stress-ng, the supervisor itself): every process
 * below it must be gone within a few seconds, grandchildren included.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/cli.ts';
import { named, survivorsAfter, waitForTree, type Proc } from '../helpers/procs.ts';

const SITE = fileURLToPath(new URL('./fixtures/spawn-site.ts', import.meta.url));
const haveStressNg = spawnSync('stress-ng', ['--version']).status === 0;

const count = (comm: RegExp, n: number) => (procs: Proc[]) => procs.filter((p) => comm.test(p.comm)).length >= n;

async function killedMidway(site: string, ready: (procs: Proc[]) => boolean): Promise<{ started: Proc[]; survivors: Proc[] }> {
  const dir = tempDir();
  const node = spawn(process.execPath, ['--import', 'tsx', SITE, site, dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    assert.ok(node.pid);
    const started = await waitForTree(node.pid, ready);
    const exited = new Promise((r) => node.on('exit', r));
    node.kill('SIGKILL');
    await exited;
    // a generous bound: the supervisor reacts at once, but the machine is shared
    return { started, survivors: await survivorsAfter(started, 10_000) };
  } finally {
    node.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

test('kill -9 of hintlab under a supervised command leaves no process behind, even one in a new session or double-forked', async () => {
  const { started, survivors } = await killedMidway('supervise', count(/^sleep$/, 4));
  assert.ok(started.some((p) => p.comm === 'hintlab-supervi'), named(started));
  assert.equal(named(survivors), '');
});

test('kill -9 of hintlab in a kernel build leaves neither make nor anything make started', async () => {
  const { started, survivors } = await killedMidway('make', count(/^sleep$/, 2));
  assert.ok(started.some((p) => p.comm === 'make'), named(started));
  assert.equal(named(survivors), '');
});

test("kill -9 of hintlab in codegen's kbuild leaves neither make nor anything make started", async () => {
  const { started, survivors } = await killedMidway('kbuild', count(/^sleep$/, 2));
  assert.ok(started.some((p) => p.comm === 'make'), named(started));
  assert.equal(named(survivors), '');
});

test("kill -9 of hintlab while it exports a commit's tree leaves neither git archive nor tar", async () => {
  const { started, survivors } = await killedMidway('git-export', (procs) => count(/^sleep$/, 1)(procs) && count(/^tar$/, 1)(procs));
  assert.ok(started.some((p) => p.comm === 'hintlab-supervi'), named(started));
  assert.equal(named(survivors), '');
});

test('kill -9 of hintlab during stress-ng leaves neither stress-ng nor its stressors', { skip: haveStressNg ? false : "stress-ng is not installed (apt-get install stress-ng)" }, async () => {
  // stress-ng itself and its two yield workers
  const { survivors } = await killedMidway('stress-ng', count(/^stress-ng/, 3));
  assert.equal(named(survivors), '');
});
