/** The initramfs writer checked against the system's own cpio(1), an independent reader of the newc format. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { cpioNewc, probeInitramfs } from '../../src/launch/initramfs.ts';
import { requireTool } from '../helpers/tools.ts';

const CPIO = requireTool('cpio', 'cpio');

test('cpio -t lists every member with its type, mode and device numbers', { skip: CPIO }, () => {
  const image = probeInitramfs(Buffer.from('\x7fELF-not-really'), ['--profile', 'getppid', '--rounds', '3']);
  const r = spawnSync('cpio', ['-itv', '--quiet'], { input: gunzipSync(image), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const rows = r.stdout.trim().split('\n').map((l) => l.split(/\s+/));
  assert.deepEqual(rows.map((c) => [c[0], c.at(-1)]), [
    ['drwxr-xr-x', 'dev'],
    ['crw-------', 'dev/console'],
    ['drwxr-xr-x', 'proc'],
    ['-rw-r--r--', 'hintlab.args'],
    ['-rwxr-xr-x', 'init'],
  ]);
  // the console node is char 5,1 (what the kernel opens as the init's stdio)
  assert.deepEqual(rows[1]!.slice(4, 6), ['5,', '1']);
});

test('cpio -i extracts the arguments file one argument per line', { skip: CPIO }, () => {
  const image = probeInitramfs(Buffer.from('x'), ['--profile', 'getppid:1000', '--ops', '5']);
  const r = spawnSync('cpio', ['-i', '--quiet', '--to-stdout', 'hintlab.args'], { input: gunzipSync(image), encoding: 'utf8' });
  assert.equal(r.stdout, '--profile\ngetppid:1000\n--ops\n5\n');
});

test('newc headers are 110 bytes and every member starts 4-byte aligned', () => {
  const archive = cpioNewc([{ kind: 'file', path: 'abc', data: Buffer.from('hello') }]);
  assert.equal(archive.subarray(0, 6).toString(), '070701');
  // header 110 + "abc\0" = 114 -> padded to 116; data 5 -> padded to 8; trailer header at 124
  assert.equal(archive.subarray(116, 121).toString(), 'hello');
  assert.equal(archive.subarray(124, 130).toString(), '070701');
  assert.equal(archive.subarray(124 + 110, 124 + 120).toString(), 'TRAILER!!!');
  assert.equal(archive.length % 4, 0);
});

test('an argument with a newline is refused (it would split into two)', () => {
  assert.throws(() => probeInitramfs(Buffer.from('x'), ['a\nb']), /newline/);
});
