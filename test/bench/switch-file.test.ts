import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileSwitches, prepareSwitch, shows } from '../../src/bench/switch-file.ts';
import { armWatchdog } from '../../src/bench/switch-watchdog.ts';
import { SwitchError } from '../../src/bench/switch-check.ts';
import { tempDir } from '../helpers/cli.ts';

function file(contents: string): string {
  const path = join(tempDir(), 'knob');
  writeFileSync(path, contents);
  return path;
}

test('a value shows when its words match the file, or when it is one word of a feature list', () => {
  assert.equal(shows('0\n', '0'), true);
  assert.equal(shows('4096\t131072\t6291456\n', '4096 131072 6291456'), true);
  assert.equal(shows('GENTLE_FAIR_SLEEPERS NO_TTWU_QUEUE WAKEUP_PREEMPTION\n', 'NO_TTWU_QUEUE'), true);
  assert.equal(shows('GENTLE_FAIR_SLEEPERS TTWU_QUEUE\n', 'NO_TTWU_QUEUE'), false);
  assert.equal(shows('10\n', '1'), false);
});

test('a file that cannot be read is refused by path before anything is written', () => {
  const missing = join(tempDir(), 'nothing');
  assert.throws(() => prepareSwitch({ path: missing, valueB: '1', valueA: null }), (e: Error) => e instanceof SwitchError && e.message.includes(`--switch-file ${missing}: cannot read it (ENOENT)`));
});

test("an A value that is not what the file holds is refused, since writing it at the end would not restore the file", () => {
  const path = file('TTWU_QUEUE WAKEUP_PREEMPTION\n');
  assert.throws(() => prepareSwitch({ path, valueB: 'TTWU_QUEUE', valueA: 'NO_TTWU_QUEUE' }), /holds 'TTWU_QUEUE WAKEUP_PREEMPTION', not that value/);
  assert.equal(prepareSwitch({ path, valueB: 'NO_TTWU_QUEUE', valueA: 'TTWU_QUEUE' }).valueA, 'TTWU_QUEUE');
});

test('a file the kernel does not let us write is refused, naming it', async () => {
  await assert.rejects(FileSwitches.prepare([{ path: '/proc/version', valueB: 'x', valueA: null }], { force: true }), /--switch-file \/proc\/version: cannot write/);
});

test('switching writes each side and reads it back; restore writes the original contents back exactly', async () => {
  const path = file('3\n');
  const set = await FileSwitches.prepare([{ path, valueB: '7', valueA: null }]);
  set.set('B');
  assert.equal(readFileSync(path, 'utf8'), '7');
  set.set('A');
  assert.equal(readFileSync(path, 'utf8'), '3\n');
  set.set('B');
  await set.restore();
  assert.equal(readFileSync(path, 'utf8'), '3\n');
});

test('the watchdog writes the values back when its pipe closes without done, and not after done', async () => {
  const restored = file('B');
  const dog = await armWatchdog([{ path: restored, value: 'A' }]);
  await dog.release(false);
  assert.equal(readFileSync(restored, 'utf8'), 'A');

  const kept = file('B');
  const quiet = await armWatchdog([{ path: kept, value: 'A' }]);
  await quiet.release(true);
  assert.equal(readFileSync(kept, 'utf8'), 'B');
});

test('the watchdog lives in its own session, so a Ctrl-C to hintlab\'s process group does not reach it', async () => {
  const path = file('B');
  const dog = await armWatchdog([{ path, value: 'A' }]);
  const stat = readFileSync(`/proc/${dog.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  assert.equal(Number(fields[3]), dog.pid, 'session id is its own pid');
  assert.notEqual(Number(fields[2]), Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2]), 'process group differs from ours');
  await dog.release(true);
  assert.equal(readFileSync(path, 'utf8'), 'B');
});
