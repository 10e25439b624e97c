import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { PROFILES } from '../../src/bench/profiles.ts';
import { parseLine } from '../../src/launch/probe-protocol.ts';

/**
 * The profile table exists twice, in C (probes/profiles_*.c, what runs) and
 * in TypeScript (src/bench/profiles.ts, what the CLI offers and plans CPUs
 * for). The real probe's `--list` is the authority: names, order, the
 * syscall timed and the CPUs needed must agree, so the two cannot drift.
 */
test('the TypeScript profile table is the probe\'s own --list: same names in the same order, same call and CPUs', () => {
  const probe = buildProbe();
  const out = execFileSync(probe.path, ['--list'], { encoding: 'utf8' });
  const listed = out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const parsed = parseLine(l);
      assert.ok(parsed.kind === 'event' && parsed.event.type === 'profile', `not a profile line: ${l}`);
      const { name, call, cpus } = parsed.event;
      return { name, call, cpus };
    });
  assert.deepEqual(
    PROFILES.map(({ name, call, cpus }) => ({ name, call, cpus })),
    listed,
  );
});
