/**
 * The duet's barrier on the real probe: two probes pinned to two CPUs, the
 * second started 1.5 s after the first, still take every round together.
 * Each round line carries its start on CLOCK_MONOTONIC_RAW (one clock for
 * every process on the machine). What the barrier guarantees is an order,
 * not an overlap (on a loaded machine a probe can be preempted between the
 * barrier and its round): round k of either probe starts only after both
 * ended round k - 1. Without the barrier A would have finished all its
 * rounds before B started, and A's round 1 would start before B's round 0
 * ended.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { parseLine } from '../../src/launch/probe-protocol.ts';

type Round = { idx: number; start: number; end: number };

function runProbe(path: string, args: string[]): Promise<Round[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) { reject(new Error(`probe exited ${code}: ${out}`)); return; }
      const rounds: Round[] = [];
      for (const line of out.split('\n')) {
        const p = parseLine(line);
        if (p.kind === 'event' && p.event.type === 'round' && !p.event.warmup) rounds.push({ idx: p.event.idx, start: p.event.start!, end: p.event.start! + p.event.elapsed });
      }
      resolve(rounds);
    });
  });
}

test('with --barrier, round k of either probe starts only after both ended round k - 1, though the second started 1.5 s later', { skip: availableParallelism() < 2 ? 'needs two CPUs' : false, timeout: 120_000 }, async () => {
  const probe = buildProbe();
  const dir = mkdtempSync(join(tmpdir(), 'hl-barrier-'));
  try {
    const barrier = join(dir, 'barrier');
    writeFileSync(barrier, Buffer.alloc(64));
    const common = ['--profile', 'getppid:20000', '--warmups', '0', '--rounds', '5', '--barrier', barrier];
    const first = runProbe(probe.path, [...common, '--cpu', '0']);
    await sleep(1500);
    const [a, b] = await Promise.all([first, runProbe(probe.path, [...common, '--cpu', '1'])]);
    assert.deepEqual(a.map((r) => r.idx), [0, 1, 2, 3, 4]);
    assert.deepEqual(b.map((r) => r.idx), [0, 1, 2, 3, 4]);
    for (let k = 1; k < 5; k++) {
      const ended = Math.max(a[k - 1]!.end, b[k - 1]!.end);
      assert.ok(a[k]!.start >= ended && b[k]!.start >= ended, `round ${k} starts at A ${a[k]!.start}, B ${b[k]!.start}, before both ended round ${k - 1} (A ${a[k - 1]!.end}, B ${b[k - 1]!.end})`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
