/**
 * The probe's gauge of one addition (`--work-gauge K`, probes/work.c):
 * before every measured round (every block's first with --go-fifo), never
 * before a warm-up, one `gauge` line; the real probe under valgrind's
 * callgrind runs exactly K more additions per call in the gauge's middle
 * run and leaves the round's own count alone.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { ConsoleLines, type ProbeEvent } from '../../src/launch/probe-protocol.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';
import { selfCost } from './callgrind.ts';

const x86 = process.arch === 'x64' ? false : 'the additions are x86_64 code';

/** The probe's events in `out`, and its rounds and gauges in order: `w` a warm-up, `r` a measured round, `g` a gauge. */
function read(out: string): { events: ProbeEvent[]; order: string } {
  const lines = new ConsoleLines();
  const events = out.split('\n').flatMap((l) => lines.push(l)).flatMap((p) => (p.kind === 'event' ? [p.event] : []));
  const order = events.flatMap((e) => (e.type === 'round' ? [e.warmup ? 'w' : 'r'] : e.type === 'gauge' ? ['g'] : [])).join('');
  return { events, order };
}

test('a gauge line comes before every measured round, none before a warm-up, on a two-hundredth of its calls or 100', { skip: x86 }, () => {
  const out = execFileSync(buildProbe({}).path, ['--profile', 'getppid', '--ops', '2000', '--warmups', '2', '--rounds', '3', '--inject-work', '32', '--work-gauge', '512'], { encoding: 'utf8' });
  const { events, order } = read(out);
  assert.equal(order, 'wwgrgrgr');
  // 2000 calls a round: a two-hundredth is 10, raised to the gauge's least 100
  for (const e of events) if (e.type === 'gauge') assert.deepEqual([e.profile, e.adds, e.calls], ['getppid', 512, 100]);
});

test('with --go-fifo the gauge comes once per block, before its first round', { skip: x86, timeout: 60_000 }, async () => {
  const dir = tempDir('hintlab-gauge-fifo-');
  const fifo = join(dir, 'go');
  execFileSync('mkfifo', [fifo]);
  const child = spawn(buildProbe({}).path, ['--profile', 'getppid', '--ops', '2000', '--warmups', '1', '--rounds', '6', '--inject-work', '32', '--work-gauge', '512', '--go-fifo', fifo, '--block-rounds', '2'], { stdio: ['ignore', 'pipe', 'inherit'] });
  // three blocks of two rounds: the probe reads one go byte per block, then ends at its rounds (read-write: the open never waits for the probe)
  const fd = openSync(fifo, 'r+');
  writeSync(fd, 'ggg');
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  closeSync(fd);
  assert.equal(code, 0);
  assert.equal(read(out).order, 'wgrrgrrgrr');
});

test('a --work-gauge outside 1..4096 is refused with the flag named', () => {
  for (const bad of ['0', '4097', 'x']) {
    const r = spawnSync(buildProbe({}).path, ['--profile', 'getppid', '--work-gauge', bad], { encoding: 'utf8' });
    assert.equal(r.status, 2, `--work-gauge ${bad}`);
    assert.match(r.stdout + r.stderr, /--work-gauge takes K, 1 <= K <= 4096/);
  }
});

test("a gauge's middle run has exactly K more additions per call, and the rounds keep their own", { skip: requireTool('valgrind', 'valgrind') || x86 }, () => {
  const probe = buildProbe({}).path;
  const dir = tempDir('hintlab-gauge-');
  const count = (gauge: string[]) => {
    const file = join(dir, `cg.${gauge.join('')}`);
    execFileSync('valgrind', ['--tool=callgrind', '--compress-strings=no', '--compress-pos=no', `--callgrind-out-file=${file}`, probe, '--profile', 'getppid', '--ops', '2000', '--warmups', '1', '--rounds', '4', '--inject-work', '3', ...gauge], { stdio: 'ignore' });
    return selfCost(readFileSync(file, 'utf8'), 'inject_work');
  };
  const [none, k100, k200] = [count([]), count(['--work-gauge', '100']), count(['--work-gauge', '200'])];
  // per measured round (4, no blocks): one untimed call and the middle run's 100 calls with K more; 100 more K is 4 x 101 x 100
  assert.equal(k200 - k100, 4 * 101 * 100);
  // the gauge's other runs add calls with the round's own 3 additions, never fewer instructions to the rounds
  assert.ok(k100 - none > 4 * 101 * 100, `${none} instructions without a gauge, ${k100} with`);
});
