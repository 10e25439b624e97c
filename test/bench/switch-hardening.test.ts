/**
 * The switch's guards: bytes restored exactly, size and kind of file, the
 * --force rule, an A value that would not restore the file, and one run per
 * file (the lock, --wait, a record left by a run that died).
 */
import assert from 'node:assert/strict';
import { chownSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileSwitches, prepareSwitch } from '../../src/bench/switch-file.ts';
import { armWatchdog } from '../../src/bench/switch-watchdog.ts';
import { SwitchBusyError, lockPathFor } from '../../src/bench/switch-lock.ts';
import { SwitchError } from '../../src/bench/switch-check.ts';
import { tempDir } from '../helpers/cli.ts';

function file(contents: string | Buffer): string {
  const path = join(tempDir(), 'knob');
  writeFileSync(path, contents);
  return path;
}

const BINARY = Buffer.from([0xff, 0xfe, 0x00, 0x61, 0x62, 0x63, 0x80, 0x0a]);

test('a binary file is written back byte for byte, by hintlab and by the watchdog', async () => {
  const path = file(BINARY);
  const set = await FileSwitches.prepare([{ path, valueB: '1', valueA: null }]);
  set.set('B');
  assert.equal(readFileSync(path, 'utf8'), '1');
  await set.restore();
  assert.deepEqual(readFileSync(path), BINARY);

  const other = file('switched');
  const dog = await armWatchdog([{ path: other, value: BINARY.toString('utf8'), bytes: BINARY }]);
  await dog.release(false);
  assert.deepEqual(readFileSync(other), BINARY);
});

test('a file above 64 KiB is refused before anything is written, naming the bound', () => {
  const path = file(Buffer.alloc(64 * 1024 + 1, 0x30));
  assert.throws(() => prepareSwitch({ path, valueB: '1', valueA: null }), (e: Error) => e instanceof SwitchError && /holds more than 64 KiB/.test(e.message));
  assert.equal(readFileSync(path).length, 64 * 1024 + 1);
});

test('a character device and a directory are refused as not regular files', () => {
  assert.throws(() => prepareSwitch({ path: '/dev/zero', valueB: '1', valueA: null }), /--switch-file \/dev\/zero: it is a character device; hintlab switches only regular files/);
  assert.throws(() => prepareSwitch({ path: tempDir(), valueB: '1', valueA: null }), /it is a directory/);
});

test("a file outside the kernel's knobs and the user's own files needs --force", () => {
  assert.throws(() => prepareSwitch({ path: '/etc/passwd', valueB: 'x', valueA: null }), /--switch-file \/etc\/passwd: not a kernel knob .* pass --force/);
  const theirs = file('1\n');
  chownSync(theirs, 65534, 65534);
  assert.throws(() => prepareSwitch({ path: theirs, valueB: '2', valueA: null }), /pass --force/);
  assert.equal(prepareSwitch({ path: theirs, valueB: '2', valueA: null }, { force: true }).original, '1\n');
  assert.equal(prepareSwitch({ path: '/proc/sys/kernel/ostype', valueB: 'x', valueA: null }).original, 'Linux\n');
});

test('an A value that one word of the file matches but that would not write the file back is refused, and the file keeps its bytes', async () => {
  const path = file('foo bar\n');
  await assert.rejects(FileSwitches.prepare([{ path, valueB: 'qux', valueA: 'bar' }]), /--switch-file-a .*=bar: writing it leaves the file reading 'bar', not 'foo bar'/);
  assert.equal(readFileSync(path, 'utf8'), 'foo bar\n');
});

test('one file named twice through a symlink is refused', async () => {
  const path = file('1\n');
  const link = join(tempDir(), 'link');
  symlinkSync(path, link);
  await assert.rejects(FileSwitches.prepare([{ path, valueB: '2', valueA: null }, { path: link, valueB: '3', valueA: null }]), /are the same file/);
});

test('a second switch of the same file is refused naming the holder, and starts with --wait once the first restored it', async () => {
  const path = file('original\n');
  const first = await FileSwitches.prepare([{ path, valueB: 'B1', valueA: null }], { command: 'hintlab bench --switch-file first' });
  first.set('B');
  await assert.rejects(
    FileSwitches.prepare([{ path, valueB: 'B2', valueA: null }]),
    (e: Error) => e instanceof SwitchBusyError && e.message.includes(`hintlab pid ${process.pid}`) && e.message.includes('command: hintlab bench --switch-file first'),
  );
  assert.equal(readFileSync(path, 'utf8'), 'B1', 'the refused run wrote nothing');
  const notes: string[] = [];
  const second = FileSwitches.prepare([{ path, valueB: 'B2', valueA: null }], { wait: true, onNote: (m) => notes.push(m) });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(readFileSync(path, 'utf8'), 'B1', 'still waiting');
  await first.restore();
  const set = await second;
  assert.match(notes[0] ?? '', /^waiting: .*another run is switching this file/);
  assert.equal(set.switches[0]!.original, 'original\n', "the second run's A is the real original");
  await set.restore();
  assert.equal(readFileSync(path, 'utf8'), 'original\n');
});

test('a record left by a run that died is taken over when the file holds its value again, and refused when it does not', async () => {
  const path = file('switched');
  const lock = lockPathFor(path);
  const record = { path, pid: 999999, command: 'hintlab bench --switch-file dead', restore: Buffer.from('original').toString('base64'), since: '2026-12-02T00:00:00Z' };
  writeFileSync(lock, JSON.stringify(record));
  await assert.rejects(FileSwitches.prepare([{ path, valueB: 'x', valueA: null }]), /hintlab pid 999999 .* died without restoring it .* its value before that run was 'original'/);
  assert.equal(readFileSync(path, 'utf8'), 'switched');
  writeFileSync(path, 'original');
  const notes: string[] = [];
  const set = await FileSwitches.prepare([{ path, valueB: 'x', valueA: null }], { onNote: (m) => notes.push(m) });
  await set.restore();
  assert.match(notes.join('\n'), /hintlab pid 999999 .* ended without releasing this file; .* takes the lock over/);
  assert.equal(readFileSync(lock, 'utf8'), '', 'a clean end empties the record');
});
