/**
 * The host target against real processes: files in and out of a private
 * directory that is gone afterwards, lines and stderr, and how a job ends
 * on abort and timeout.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { hostTarget } from '../../src/targets/host.ts';
import type { TargetJob } from '../../src/targets/target.ts';

const sh = (script: string, over: Partial<TargetJob> = {}): TargetJob => ({ program: { path: '/bin/sh' }, args: ['-c', script], ...over });

test('a job reads its files in a private directory, its written files come back, and the directory is removed', async () => {
  const target = hostTarget({ probe: { path: '/nonexistent' } });
  const lines: string[] = [];
  const exit = await target.run(
    sh('pwd; cat in/data.txt; echo result > out.txt; echo complaint >&2', { files: [{ path: 'in/data.txt', data: Buffer.from('hello\n') }], collect: ['out.txt', 'never.txt'] }),
    (l) => lines.push(l),
    new AbortController().signal,
  );
  assert.deepEqual(exit.end, { kind: 'exited', code: 0, signal: null });
  assert.equal(lines[1], 'hello');
  assert.match(lines[0]!, /hintlab-job-/);
  assert.equal(existsSync(lines[0]!), false, 'the private directory is removed');
  assert.equal(exit.collected.get('out.txt')?.toString(), 'result\n');
  assert.equal(exit.collected.has('never.txt'), false);
  assert.deepEqual(exit.stderrTail, ['complaint']);
  assert.match(exit.describe('it failed'), /^it failed\nstderr:\n {2}\| complaint\ncommand: \/bin\/sh -c /);
});

test("'probe' runs the probe build the target was given", async () => {
  const target = hostTarget({ probe: { path: '/bin/echo' } });
  const lines: string[] = [];
  const exit = await target.run({ program: 'probe', args: ['--list'] }, (l) => lines.push(l), new AbortController().signal);
  assert.deepEqual(lines, ['--list']);
  assert.equal(exit.end.kind, 'exited');
});

test('abort sends SIGINT: a job that stops by itself reports its own exit status', async () => {
  const target = hostTarget({ probe: { path: '/nonexistent' } });
  const ctl = new AbortController();
  const exit = await target.run(sh("trap 'echo stopping; exit 7' INT; echo ready; while :; do sleep 0.05; done"), (l) => l === 'ready' && ctl.abort(), ctl.signal);
  assert.deepEqual(exit.end, { kind: 'exited', code: 7, signal: null });
  assert.deepEqual(exit.outputTail, ['ready', 'stopping']);
});

test('a job that ignores SIGINT is killed after the grace period and ends as aborted; a timeout ends as timeout', async () => {
  const target = hostTarget({ probe: { path: '/nonexistent' }, killGraceMs: 200 });
  const ctl = new AbortController();
  const stubborn = sh("trap '' INT; echo ready; while :; do sleep 0.05; done");
  const aborted = await target.run(stubborn, (l) => l === 'ready' && ctl.abort(), ctl.signal);
  assert.deepEqual(aborted.end, { kind: 'aborted' });
  const timedOut = await target.run({ ...stubborn, timeoutSeconds: 0.3 }, () => {}, new AbortController().signal);
  assert.deepEqual(timedOut.end, { kind: 'timeout', seconds: 0.3 });
});

test('a program that does not exist rejects with the spawn error', async () => {
  const target = hostTarget({ probe: { path: '/nonexistent/probe' } });
  await assert.rejects(target.run({ program: 'probe', args: [] }, () => {}, new AbortController().signal), /ENOENT/);
});
