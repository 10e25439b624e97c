/**
 * The probe's gauge of one addition (`--work-gauge K`, probes/work.c):
 * after every measured round, never after a warm-up, one `gauge` line; the
 * real probe under valgrind's callgrind runs exactly 17 blocks of K
 * additions for it (one untimed, 16 timed) and leaves the round's own count
 * alone.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { ConsoleLines, type ProbeEvent } from '../../src/launch/probe-protocol.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';
import { selfCost } from './callgrind.ts';

const x86 = process.arch === 'x64' ? false : 'the additions are x86_64 code';

test('a gauge line follows every measured round, none a warm-up, and gives a cost per addition a CPU can have', { skip: x86 }, () => {
  const out = execFileSync(buildProbe({}).path, ['--profile', 'getppid', '--ops', '500', '--warmups', '2', '--rounds', '3', '--inject-work', '32', '--work-gauge', '4096'], { encoding: 'utf8' });
  const lines = new ConsoleLines();
  const events: ProbeEvent[] = out.split('\n').flatMap((l) => lines.push(l)).flatMap((p) => (p.kind === 'event' ? [p.event] : []));
  const kinds = events.filter((e) => e.type === 'round' || e.type === 'gauge').map((e) => (e.type === 'round' ? (e.warmup ? 'w' : 'r') : 'g'));
  assert.deepEqual(kinds.join(''), 'wwrgrgrg');
  for (const e of events) {
    if (e.type !== 'gauge') continue;
    assert.deepEqual([e.adds, e.reps], [4096, 16]);
    // one dependent addition is one cycle: 0.1-2 ns on any CPU from 0.5 to 10 GHz
    const perAdd = e.elapsed / (e.adds * e.reps);
    assert.ok(perAdd > 0.1 && perAdd < 2, `${perAdd} ns per addition`);
  }
});

test('a --work-gauge outside 1..65536 is refused with the flag named', () => {
  for (const bad of ['0', '65537', 'x']) {
    const r = spawnSync(buildProbe({}).path, ['--profile', 'getppid', '--work-gauge', bad], { encoding: 'utf8' });
    assert.equal(r.status, 2, `--work-gauge ${bad}`);
    assert.match(r.stdout + r.stderr, /--work-gauge takes K, 1 <= K <= 65536/);
  }
});

test('each gauge runs 17 blocks of exactly K additions, and the rounds keep their own', { skip: requireTool('valgrind', 'valgrind') || x86 }, () => {
  const probe = buildProbe({}).path;
  const dir = tempDir('hintlab-gauge-');
  const count = (gauge: string[]) => {
    const file = join(dir, `cg.${gauge.join('')}`);
    execFileSync('valgrind', ['--tool=callgrind', '--compress-strings=no', '--compress-pos=no', `--callgrind-out-file=${file}`, probe, '--profile', 'getppid', '--ops', '1000', '--warmups', '1', '--rounds', '4', '--inject-work', '3', ...gauge], { stdio: 'ignore' });
    return selfCost(readFileSync(file, 'utf8'), 'inject_work');
  };
  const [k1000, k2000] = [count(['--work-gauge', '1000']), count(['--work-gauge', '2000'])];
  // 4 measured rounds x 17 blocks x 1000 more additions
  assert.equal(k2000 - k1000, 4 * 17 * 1000);
  // and without a gauge, the rounds' 5 x 1000 calls x (3 additions + the block's fixed cost) only
  const none = count([]);
  assert.ok(none < k1000 && none > 5 * 1000 * 3, `${none} instructions without a gauge, ${k1000} with`);
});
