import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameLine } from '../../../src/launch/probe-protocol.ts';
import { CoverageSession } from '../../../src/hints/collect/session.ts';
import { crc32Hex, GcdaReceiver } from '../../../src/hints/collect/transfer.ts';
import { fakeGuestStream } from './fake-guest.ts';

const GCOV = '/sys/kernel/debug/gcov/build/obj';
const big = Buffer.from(Array.from({ length: 1300 }, (_, i) => (i * 7 + 3) & 0xff));
const small = Buffer.from('gcda');

function session(lines: string[]): CoverageSession {
  const s = new CoverageSession();
  for (const l of lines) s.feed(l);
  return s;
}

function files(s: CoverageSession) {
  const out = s.receiver.outcome();
  assert.equal(out.state, 'complete', out.state === 'failed' ? out.reason : '');
  return out.files;
}

test('CRC-32 of the files is zlib CRC-32: 123456789 gives cbf43926', () => {
  assert.equal(crc32Hex(Buffer.from('123456789')), 'cbf43926');
});

test('a guest stream with kernel messages in between reassembles every file byte for byte', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/kernel/sched/core.gcda`, data: big }, { path: `${GCOV}/fs/select.gcda`, data: small }]);
  lines.splice(3, 0, '[    3.141] random: crng init done', '');
  const got = files(session(lines));
  assert.deepEqual(got.map((f) => f.guestPath), [`${GCOV}/kernel/sched/core.gcda`, `${GCOV}/fs/select.gcda`]);
  assert.ok(got[0]!.data.equals(big));
  assert.ok(got[1]!.data.equals(small));
  assert.equal(session(lines).problem(), null);
});

test('an empty .gcda file is transferred as an empty file', () => {
  const got = files(session(fakeGuestStream([{ path: `${GCOV}/mm/empty.gcda`, data: Buffer.alloc(0) }])));
  assert.equal(got[0]!.data.length, 0);
});

test('a lost chunk is rejected naming the file and the missing bytes', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/kernel/sched/core.gcda`, data: big }]);
  const without = lines.filter((l) => !l.includes(' off=512 '));
  assert.equal(without.length, lines.length - 1);
  const s = session(without);
  assert.match(s.problem() ?? '', /core\.gcda: bytes 512-1023 are missing/);
});

test('a chunk garbled on the console fails its line checksum and shows up as a gap', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/kernel/sched/core.gcda`, data: big }]);
  const i = lines.findIndex((l) => l.includes(' off=1024 '));
  lines[i] = lines[i]!.replace('data=', 'data=A');
  const s = session(lines);
  assert.equal(s.corrupt.length, 1);
  assert.match(s.problem() ?? '', /1024 of 1300 bytes arrived; bytes 1024-1299 are missing.*1 corrupt line/);
});

test('a chunk line the console broke in two is joined again, also across a kernel message', () => {
  for (const between of [[], ['[    9.876] hrtimer: interrupt took 2150000 ns']]) {
    const lines = fakeGuestStream([{ path: `${GCOV}/x.gcda`, data: big }]);
    const i = lines.findIndex((l) => l.includes(' off=512 '));
    const line = lines[i]!;
    lines.splice(i, 1, line.slice(0, 300), ...between, `${line.slice(300)}\r`);
    const s = session(lines);
    assert.equal(s.problem(), null);
    assert.equal(s.rejoined, 1);
    assert.ok(files(s)[0]!.data.equals(big));
  }
});

test('a broken line whose rest never comes is a gap, with the broken line named', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/x.gcda`, data: big }]);
  const i = lines.findIndex((l) => l.includes(' off=512 '));
  lines[i] = lines[i]!.slice(0, 300);
  const s = session(lines);
  assert.equal(s.rejoined, 0);
  assert.match(s.problem() ?? '', /x\.gcda: bytes 512-1023 are missing .*1 corrupt line\(s\), first: no checksum: @hl1 chunk id=0 off=512/);
});

test('a last chunk that is lost before the next file is caught at the next file line', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/a.gcda`, data: big }, { path: `${GCOV}/b.gcda`, data: small }]);
  const s = session(lines.filter((l) => !l.includes(' off=1024 ')));
  assert.match(s.problem() ?? '', /a\.gcda: 1024 of 1300 bytes arrived/);
});

test('bytes altered before framing fail the whole-file CRC', () => {
  const bad = Buffer.from(big);
  bad[700] = 0xff - bad[700]!;
  // the file line announces the CRC of the real data; the chunks carry the altered bytes under valid line checksums
  const fileLine = fakeGuestStream([{ path: `${GCOV}/x.gcda`, data: big }]).find((l) => l.includes('@hl1 file '))!;
  const s = session(fakeGuestStream([{ path: `${GCOV}/x.gcda`, data: bad }]).map((l) => (l.includes('@hl1 file ') ? fileLine : l)));
  assert.match(s.problem() ?? '', new RegExp(`x\\.gcda: the reassembled file's CRC-32 is ${crc32Hex(bad)}, the guest read ${crc32Hex(big)}`));
});

test('a chunk sent twice is rejected', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/x.gcda`, data: big }]);
  const i = lines.findIndex((l) => l.includes(' off=512 '));
  lines.splice(i + 1, 0, lines[i]!);
  assert.match(session(lines).problem() ?? '', /offset 512 arrived twice/);
});

test('a lost file line is caught: its chunks have no file', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/a.gcda`, data: small }, { path: `${GCOV}/b.gcda`, data: small }]);
  const s = session(lines.filter((l) => !l.includes('path=/sys/kernel/debug/gcov/build/obj/b.gcda')));
  assert.match(s.problem() ?? '', /a chunk of file number 1 at offset 0 arrived while .*a\.gcda \(number 0\)/);
});

test('a lost empty file is caught by the closing count', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/a.gcda`, data: small }, { path: `${GCOV}/b.gcda`, data: Buffer.alloc(0) }]);
  const s = session(lines.filter((l) => !l.includes('b.gcda')));
  assert.match(s.problem() ?? '', /the guest sent 2 files of 4 bytes in all, but 1 files of 4 bytes arrived/);
});

test('a stream cut in the middle of a file names the file and how far it got', () => {
  const lines = fakeGuestStream([{ path: `${GCOV}/a.gcda`, data: big }]);
  const cut = lines.slice(0, lines.findIndex((l) => l.includes(' off=1024 ')));
  assert.match(session(cut).problem() ?? '', /ended in the middle of .*a\.gcda \(1024 of 1300 bytes\) without its closing 'files' line/);
});

test('a probe error in the guest is the reason, not a transfer problem', () => {
  const lines = [
    frameLine('@hl1 hello proto=1 kernel=6.12.57 version=%231 machine=x86_64 pid1=1 cpu=0 ops=1 warmups=0 rounds=1 seccomp=0'),
    frameLine('@hl1 error stage=reset-gcov errno=2 message=cannot%20write'),
  ];
  assert.match(session(lines).problem() ?? '', /the probe failed in the guest: stage reset-gcov: errno 2 \(cannot write\)/);
});

test('a workload program that fails is the reason', () => {
  const lines = [
    frameLine('@hl1 hello proto=1 kernel=6.12.57 version=%231 machine=x86_64 pid1=1 cpu=-1 ops=1 warmups=0 rounds=1 seccomp=0'),
    frameLine('@hl1 exec path=/workload status=127'),
  ];
  assert.match(session(lines).problem() ?? '', /exited with status 127 \(127: it could not be executed/);
});

test('the receiver refuses lines after the closing line', () => {
  const r = new GcdaReceiver();
  r.feed({ type: 'files', count: 0, bytes: 0 });
  r.feed({ type: 'file', id: 0, path: 'x.gcda', size: 0, crc: '00000000' });
  const out = r.outcome();
  assert.equal(out.state, 'failed');
  assert.match(out.reason, /came after the closing 'files' line/);
});
