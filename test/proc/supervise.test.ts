/** The process supervisor around real commands: what passes through unchanged, and what it stops. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { spawnSupervised, supervisorBinary, type Supervised } from '../../src/proc/supervise.ts';
import { tempDir } from '../helpers/cli.ts';
import { isAlive, named, survivorsAfter, waitForTree } from '../helpers/procs.ts';

const THREAD_PARENT = fileURLToPath(new URL('./fixtures/thread-parent.c', import.meta.url));

function collect(child: Supervised): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { out: () => out, err: () => err };
}

const sleeps = (n: number) => (procs: { comm: string }[]) => procs.filter((p) => p.comm === 'sleep').length >= n;

test("the command's exit status, stdout and stderr come back unchanged", async () => {
  const child = spawnSupervised(['sh', '-c', 'printf "out\\n"; printf "err\\n" >&2; exit 3']);
  const text = collect(child);
  assert.deepEqual(await child.exit, { code: 3, signal: null });
  assert.equal(text.out(), 'out\n');
  assert.equal(text.err(), 'err\n');
});

test('a command killed by a signal is reported as killed by that signal', async () => {
  const child = spawnSupervised(['sh', '-c', 'kill -TERM $$'], { stdout: 'ignore', stderr: 'ignore' });
  assert.deepEqual(await child.exit, { code: null, signal: 'SIGTERM' });
});

test('the command gets the working directory and environment given', async () => {
  const child = spawnSupervised(['sh', '-c', 'printf "%s %s" "$PWD" "$HINTLAB_SUPERVISE_TEST"'], { cwd: '/tmp', env: { ...process.env, HINTLAB_SUPERVISE_TEST: 'x y' } });
  const text = collect(child);
  await child.exit;
  assert.equal(text.out(), '/tmp x y');
});

test('a program that does not exist is refused as Node refuses it, naming the program', async () => {
  await assert.rejects(spawnSupervised(['hintlab-no-such-program', '-x']).exit, (e: NodeJS.ErrnoException) => e.code === 'ENOENT' && e.message === 'spawn hintlab-no-such-program ENOENT');
});

test("SIGINT reaches the command's process group, which may handle it", async () => {
  const child = spawnSupervised(['sh', '-c', 'trap "printf interrupted; exit 5" INT; printf ready; while :; do sleep 0.1; done']);
  const text = collect(child);
  while (!text.out().includes('ready')) await sleep(20);
  child.signal('SIGINT');
  assert.deepEqual(await child.exit, { code: 5, signal: null });
  assert.equal(text.out(), 'readyinterrupted');
});

test('SIGKILL ends the command and every process it started, in its group, in a new session or double-forked', async () => {
  const child = spawnSupervised(['sh', '-c', 'setsid sleep 1000 & (sleep 1000 &) ; sleep 1000'], { stdout: 'ignore' });
  assert.ok(child.pid);
  const started = await waitForTree(child.pid, sleeps(3));
  child.signal('SIGKILL');
  assert.deepEqual(await child.exit, { code: null, signal: 'SIGKILL' });
  // the supervisor reaps every process it killed before it exits itself
  assert.equal(named(started.filter(isAlive)), '');
});

test('when the command exits, the jobs it left running are killed before its status comes back', async () => {
  const child = spawnSupervised(['sh', '-c', 'sleep 1000 & setsid sleep 1000 & sleep 1'], { stdout: 'ignore' });
  assert.ok(child.pid);
  const started = await waitForTree(child.pid, sleeps(3));
  assert.deepEqual(await child.exit, { code: 0, signal: null });
  assert.equal(named(started.filter(isAlive)), '');
});

test('the exit of the thread that started the supervisor does not stop the command; the exit of its process does', async () => {
  const dir = tempDir();
  try {
    const harness = join(dir, 'thread-parent');
    const cc = spawnSync('cc', ['-O2', '-Wall', '-Werror', '-pthread', '-o', harness, THREAD_PARENT], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    const parent = spawn(harness, [supervisorBinary(), '/bin/sleep', '1000'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      let out = '';
      parent.stdout.on('data', (d: Buffer) => (out += d.toString()));
      assert.ok(parent.pid);
      const started = await waitForTree(parent.pid, sleeps(1), 10_000);
      while (!out.includes('joined')) await sleep(20);
      // PR_SET_PDEATHSIG was sent when the thread exited; give the supervisor time to (wrongly) act on it
      await sleep(1000);
      assert.equal(named(started.filter((p) => !isAlive(p))), '', 'the command was stopped although its parent process lives');
      parent.stdin.end();
      assert.equal(named(await survivorsAfter(started, 10_000)), '');
    } finally {
      parent.kill('SIGKILL');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a supervisor binary removed from the cache while hintlab runs is built again before the next command', async () => {
  const dir = tempDir();
  try {
    const env = { ...process.env, XDG_CACHE_HOME: dir };
    const first = supervisorBinary(env);
    assert.ok(first.startsWith(dir), first);
    rmSync(join(dir, 'hintlab'), { recursive: true });
    const child = spawnSupervised(['true'], { env });
    assert.deepEqual(await child.exit, { code: 0, signal: null });
    assert.equal(supervisorBinary(env), first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
