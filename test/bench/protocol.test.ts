import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameLine } from '../../src/bench/executor.ts';
import { describeProbeError, parseLine } from '../../src/bench/protocol.ts';

test('the checksum is the standard CRC-32 (check value of "123456789" is cbf43926)', () => {
  assert.equal(frameLine('123456789'), '123456789 #cbf43926');
});

test('a framed round line parses into a typed event with unescaped values', () => {
  const p = parseLine(frameLine('@hl1 round profile=sched%20x idx=3 warmup=0 ops=100 elapsed=12345 cpu=1'));
  assert.deepEqual(p, {
    kind: 'event',
    event: { type: 'round', profile: 'sched x', idx: 3, warmup: false, ops: 100, elapsed: 12345, cpu: 1 },
  });
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
  if (p.kind !== 'event' || p.event.type !== 'error') throw new Error('not an error event');
  assert.equal(describeProbeError(p.event), 'profile getppid, round 4, call #17 of getppid, stage loop: errno 1 (Operation not permitted)');
});
