import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import { ConsoleLines, describeProbeError, parseLine, parseProfileParams } from '../../src/launch/probe-protocol.ts';

test('the checksum is the standard CRC-32 (check value of "123456789" is cbf43926)', () => {
  assert.equal(frameLine('123456789'), '123456789 #cbf43926');
});

test('a framed round line parses into a typed event with unescaped values', () => {
  const p = parseLine(frameLine('@hl1 round profile=sched%20x idx=3 warmup=0 ops=100 elapsed=12345 cpu=1'));
  assert.deepEqual(p, {
    kind: 'event',
    event: { type: 'round', profile: 'sched x', idx: 3, warmup: false, ops: 100, elapsed: 12345, cpu: 1, start: null },
  });
});

test('a round line with its start time and a wait line parse into typed events', () => {
  assert.deepEqual(parseLine(frameLine('@hl1 round profile=getppid idx=0 warmup=0 ops=10 elapsed=500 cpu=0 start=98765432101')), {
    kind: 'event',
    event: { type: 'round', profile: 'getppid', idx: 0, warmup: false, ops: 10, elapsed: 500, cpu: 0, start: 98765432101 },
  });
  assert.deepEqual(parseLine(frameLine('@hl1 wait block=7')), { kind: 'event', event: { type: 'wait', block: 7 } });
});

test('a gauge line parses into its profile, additions, calls and elapsed time (which noise may make negative); one without elapsed is corrupt', () => {
  assert.deepEqual(parseLine(frameLine('@hl1 gauge profile=getppid adds=512 calls=100 elapsed=-1203')), { kind: 'event', event: { type: 'gauge', profile: 'getppid', adds: 512, calls: 100, elapsed: -1203 } });
  assert.deepEqual(parseLine(frameLine('@hl1 gauge profile=getppid adds=512 calls=100')), { kind: 'corrupt', line: frameLine('@hl1 gauge profile=getppid adds=512 calls=100'), reason: "field 'elapsed' is missing or not a number" });
});

test('a line with one flipped character is corrupt, never data', () => {
  const good = frameLine('@hl1 round profile=getppid idx=0 warmup=0 ops=100 elapsed=12345 cpu=1');
  const bad = good.replace('12345', '12346');
  const p = parseLine(bad);
  assert.equal(p.kind, 'corrupt');
});

test('console noise before the frame marker is tolerated; other lines are noise', () => {
  const line = `[    1.234] random: crng init done\r${frameLine('@hl1 done rounds=2 profiles=1')}\r`;
  assert.deepEqual(parseLine(line), { kind: 'event', event: { type: 'done', rounds: 2, profiles: 1 } });
  assert.deepEqual(parseLine('Linux version 6.12.0'), { kind: 'noise' });
});

test('a probe error names the profile, round, call index, syscall and errno', () => {
  const p = parseLine(frameLine('@hl1 error profile=getppid round=4 warmup=0 stage=loop call=17 syscall=getppid errno=1 message=Operation%20not%20permitted'));
  assert.equal(p.kind, 'event');
  if (p.event.type !== 'error') throw new Error('not an error event');
  assert.equal(describeProbeError(p.event), 'profile getppid, round 4, call #17 of getppid, stage loop: errno 1 (Operation not permitted)');
});

test('a probe error outside a round names no round; one inside a round does', () => {
  const describe = (fields: string): string => {
    const p = parseLine(frameLine(`@hl1 error ${fields}`));
    if (p.kind !== 'event' || p.event.type !== 'error') throw new Error('not an error event');
    return describeProbeError(p.event);
  };
  assert.equal(
    describe('profile=mincore-256k round=0 warmup=0 stage=prepare call=-1 syscall=mmap errno=12 message=mmap%20failed'),
    'profile mincore-256k, stage prepare: errno 12 (mmap failed)',
  );
  assert.equal(
    describe('profile=getppid round=0 warmup=0 stage=pin call=-1 syscall=- errno=22 message=sched_setaffinity'),
    'profile getppid, stage pin: errno 22 (sched_setaffinity)',
  );
  assert.equal(
    describe('profile=getppid round=0 warmup=1 stage=seccomp call=-1 syscall=- errno=1 message=filter'),
    'profile getppid, stage seccomp: errno 1 (filter)',
  );
  assert.equal(describe('stage=arguments message=unknown%20profile%20x'), 'stage arguments: (unknown profile x)');
  assert.equal(
    describe('profile=getppid round=0 warmup=1 stage=before-round call=-1 syscall=- errno=4 message=x'),
    'profile getppid, warm-up round 0, stage before-round: errno 4 (x)',
  );
  assert.equal(
    describe('profile=sched-yield round=2 warmup=0 stage=state-check call=-1 syscall=- errno=0 message=policy%20changed'),
    'profile sched-yield, round 2, stage state-check: (policy changed)',
  );
});

test('a probe line the console broke in two is joined again only when the joined line checks out', () => {
  const whole = frameLine('@hl1 done rounds=2 profiles=1');
  const cut = whole.indexOf('profiles');
  const lines = new ConsoleLines();
  assert.deepEqual(lines.push(whole.slice(0, cut)), [], 'the head is held');
  assert.deepEqual(lines.push('[    2.345] a kernel message'), [], 'a line between the halves is tried and skipped');
  assert.deepEqual(lines.push(whole.slice(cut)), [{ kind: 'event', event: { type: 'done', rounds: 2, profiles: 1 } }]);
  assert.equal(lines.rejoined, 1);
  // a head whose tail never comes is corrupt, never data
  const other = new ConsoleLines();
  other.push(whole.slice(0, cut));
  assert.deepEqual(other.push('x'), []);
  assert.deepEqual(other.push('y'), []);
  assert.deepEqual(other.push('z'), [{ kind: 'corrupt', line: whole.slice(0, cut), reason: 'no checksum' }]);
  assert.equal(other.rejoined, 0);
});

test("a profile's parameters parse into a record, whole numbers as numbers", () => {
  assert.deepEqual(parseProfileParams('fds=1000,timeout=0,nfds=1006,resident=half'), { fds: 1000, timeout: 0, nfds: 1006, resident: 'half' });
  assert.deepEqual(parseProfileParams(''), {});
  assert.deepEqual(parseProfileParams('slice=default,slice_ns=unknown'), { slice: 'default', slice_ns: 'unknown' });
});
