/**
 * The one writer of user-named files: atomic for regular files, through for
 * devices and FIFOs, symlinks followed, directories and protected files refused.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeFileSafely } from '../src/write-file.ts';
import { tempDir } from './helpers/cli.ts';

test('a new path and an existing regular file are written atomically, the file keeping its mode', () => {
  const dir = tempDir();
  writeFileSafely(join(dir, 'new.txt'), 'one\n');
  assert.equal(readFileSync(join(dir, 'new.txt'), 'utf8'), 'one\n');
  chmodSync(join(dir, 'new.txt'), 0o640);
  writeFileSafely(join(dir, 'new.txt'), 'two\n');
  assert.equal(readFileSync(join(dir, 'new.txt'), 'utf8'), 'two\n');
  assert.equal(statSync(join(dir, 'new.txt')).mode & 0o777, 0o640);
  assert.deepEqual(readdirSync(dir), ['new.txt'], 'no temporary file is left behind');
});

test('a symlink is followed: its target is written and the link stays a link', () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'real'));
  writeFileSync(join(dir, 'real', 'out.txt'), 'old\n');
  symlinkSync('real/out.txt', join(dir, 'link'));
  symlinkSync('link', join(dir, 'link2'));
  writeFileSafely(join(dir, 'link2'), 'new\n');
  assert.ok(lstatSync(join(dir, 'link2')).isSymbolicLink());
  assert.ok(lstatSync(join(dir, 'link')).isSymbolicLink());
  assert.equal(readlinkSync(join(dir, 'link')), 'real/out.txt');
  assert.equal(readFileSync(join(dir, 'real', 'out.txt'), 'utf8'), 'new\n');
  // a dangling link creates its target
  symlinkSync('real/later.txt', join(dir, 'dangling'));
  writeFileSafely(join(dir, 'dangling'), 'created\n');
  assert.ok(lstatSync(join(dir, 'dangling')).isSymbolicLink());
  assert.equal(readFileSync(join(dir, 'real', 'later.txt'), 'utf8'), 'created\n');
});

test('a character device is written through and never replaced (a null device made for the test)', (t) => {
  const dev = join(tempDir(), 'null');
  if (spawnSync('mknod', [dev, 'c', '1', '3']).status !== 0) { t.skip('mknod needs root (CAP_MKNOD)'); return; }
  writeFileSafely(dev, 'discarded\n');
  assert.ok(lstatSync(dev).isCharacterDevice(), 'the device node is still a device');
});

test('a FIFO is written through to its reader and stays a FIFO', async () => {
  const dir = tempDir();
  const fifo = join(dir, 'pipe');
  const mk = spawn('mkfifo', [fifo]);
  await new Promise((r) => mk.on('exit', r));
  const reader = spawn('cat', [fifo]);
  let got = '';
  reader.stdout.on('data', (d: Buffer) => (got += d.toString()));
  const closed = new Promise((r) => reader.on('exit', r));
  writeFileSafely(fifo, 'through the pipe\n');
  await closed;
  assert.equal(got, 'through the pipe\n');
  assert.ok(lstatSync(fifo).isFIFO());
});

test('a directory is refused with a clear message', () => {
  const dir = tempDir();
  assert.throws(() => writeFileSafely(dir, 'x', { shownAs: 'out' }), /cannot write out: it is a directory; name a file inside it/);
});

test('a protected file is refused by device and inode, through a hard link and a symlink, and by path before it exists', () => {
  const dir = tempDir();
  const db = join(dir, 'h.db');
  writeFileSync(db, 'precious');
  linkSync(db, join(dir, 'hard'));
  symlinkSync(db, join(dir, 'soft'));
  const protect = [
    { path: db, what: 'the results database' },
    { path: `${db}-wal`, what: "the results database's write-ahead log" },
  ];
  for (const target of [db, join(dir, 'hard'), join(dir, 'soft'), `${db}-wal`, join(dir, '.', 'h.db-wal')]) {
    assert.throws(() => writeFileSafely(target, 'csv', { protect }), /refusing to write .*: it is the results database/);
  }
  assert.equal(readFileSync(db, 'utf8'), 'precious');
  writeFileSafely(join(dir, 'other.csv'), 'csv', { protect });
  assert.equal(readFileSync(join(dir, 'other.csv'), 'utf8'), 'csv');
});

test('an open file of the process (/dev/fd/N, as /dev/stdout is) is written through, appending, never renamed over', () => {
  const dir = tempDir();
  const file = join(dir, 'shell-redirect.txt');
  writeFileSync(file, 'kept\n');
  const inode = statSync(file).ino;
  const fd = openSync(file, 'a'); // what `>> file` gives the process
  try {
    writeFileSafely(`/dev/fd/${fd}`, 'report\n');
  } finally {
    closeSync(fd);
  }
  assert.equal(readFileSync(file, 'utf8'), 'kept\nreport\n');
  assert.equal(statSync(file).ino, inode, 'the same file, not a new one renamed over it');
  assert.ok(lstatSync('/dev/fd').isSymbolicLink(), '/dev/fd is still the link to /proc/self/fd');
  const db = join(dir, 'h.db');
  writeFileSync(db, 'precious');
  const dbFd = openSync(db, 'a');
  try {
    assert.throws(() => writeFileSafely(`/dev/fd/${dbFd}`, 'csv', { protect: [{ path: db, what: 'the results database' }] }), /refusing to write/);
  } finally {
    closeSync(dbFd);
  }
  assert.equal(readFileSync(db, 'utf8'), 'precious');
});

test('a symlink planted at the temporary name an earlier writer used (.NAME.tmp-PID) is neither followed nor moved into place', () => {
  const dir = tempDir();
  const victim = join(dir, 'root-only');
  writeFileSync(victim, 'secret\n', { mode: 0o600 });
  symlinkSync(victim, join(dir, `.out.csv.tmp-${process.pid}`));
  writeFileSafely(join(dir, 'out.csv'), 'run_id,label\n');
  assert.equal(readFileSync(victim, 'utf8'), 'secret\n', 'the link target is untouched');
  assert.ok(lstatSync(join(dir, 'out.csv')).isFile(), 'the output is a regular file, not the planted link');
  assert.equal(readFileSync(join(dir, 'out.csv'), 'utf8'), 'run_id,label\n');
  assert.ok(lstatSync(join(dir, `.out.csv.tmp-${process.pid}`)).isSymbolicLink(), 'the planted link is left where it was');
});
