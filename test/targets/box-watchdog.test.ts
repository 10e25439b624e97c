/**
 * The box's watchdog loop and hintlab's heartbeat, run here by the
 * machine's own /bin/sh (dash) with HOME in a temporary directory and a
 * harmless command in place of `reboot`: it stays quiet while beats come,
 * "reboots" once they stop for its bound, and ends without rebooting when
 * cancelled. Started as hintlab starts it, it outlives the shell that
 * started it. (The same loop reboots the qemu test box for real in
 * test/session/qemu-session.test.ts.)
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { cancelWatchdogCommand, heartbeatCommand, startWatchdogCommand, watchdogScript } from '../../src/targets/box-watchdog.ts';
import { tempDir } from '../helpers/cli.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function home(): string {
  const d = tempDir('hintlab-watchdog-');
  dirs.push(d);
  return d;
}

const REBOOT = 'echo "rebooted at $(date +%s)" > "$HOME/rebooted"';

async function until(what: string, ok: () => boolean, boundMs: number): Promise<number> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > boundMs) throw new Error(`timed out after ${boundMs} ms waiting for ${what}`);
    await sleep(100);
  }
  return Date.now() - start;
}

test('the watchdog stays quiet while the heartbeat comes and runs its reboot once the beats have stopped for its bound', async () => {
  const HOME = home();
  const loop = spawn('sh', ['-c', `mkdir -p "$HOME/.cache/hintlab/watchdog"; ${watchdogScript({ uid: 1000 }, 'w1', 3, REBOOT)}`], { env: { ...process.env, HOME }, stdio: 'ignore' });
  const exited = new Promise<number | null>((r) => loop.on('exit', r));
  const beat = join(HOME, '.cache/hintlab/watchdog/beat-w1');
  await until('the beat file', () => existsSync(beat), 5000);
  const heart = spawn('sh', ['-c', heartbeatCommand('w1')], { env: { ...process.env, HOME }, stdio: ['pipe', 'ignore', 'ignore'] });
  const beating = setInterval(() => heart.stdin.write('\n'), 500);
  await sleep(6000);
  assert.equal(existsSync(join(HOME, 'rebooted')), false, 'rebooted although the heartbeat came every 0.5 s for 6 s (bound 3 s)');
  clearInterval(beating);
  heart.stdin.end();
  const quietFor = await until('the reboot', () => existsSync(join(HOME, 'rebooted')), 10_000);
  assert.ok(quietFor >= 2500, `rebooted ${quietFor} ms after the last beat, before the 3 s bound`);
  assert.equal(await exited, 1);
  assert.match(readFileSync(join(HOME, '.cache/hintlab/watchdog/log'), 'utf8'), /no heartbeat from hintlab for 3 s: rebooting to the default kernel/);
});

test('started as hintlab starts it, the watchdog outlives the shell that started it, and a cancel ends it without a reboot', async () => {
  const HOME = home();
  const r = spawnSync('sh', ['-c', startWatchdogCommand({ uid: 1000 }, 'w2', 4)], { env: { ...process.env, HOME }, encoding: 'utf8', timeout: 5000 });
  assert.equal(r.status, 0, r.stderr);
  const log = join(HOME, '.cache/hintlab/watchdog/log');
  await until('the watchdog armed', () => existsSync(log) && /armed/.test(readFileSync(log, 'utf8')), 5000);
  const c = spawnSync('sh', ['-c', cancelWatchdogCommand()], { env: { ...process.env, HOME }, encoding: 'utf8' });
  assert.equal(c.status, 0, c.stderr);
  await until('the watchdog cancelled', () => /cancelled/.test(readFileSync(log, 'utf8')), 5000);
  await sleep(5000);
  assert.equal(existsSync(join(HOME, 'rebooted')), false);
});
