/** The process supervisor around real commands: what passes through unchanged, and what it stops. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSupervised, type Supervised } from '../../src/proc/supervise.ts';
import { isAlive, named, waitForTree } from '../helpers/procs.ts';

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
  while (!text.out().includes('ready')) await new Promise((r) => setTimeout(r, 20));
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
