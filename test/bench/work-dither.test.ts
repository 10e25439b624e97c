/**
 * Fractional known work (probes/work.c): the real probe, run under
 * valgrind's callgrind, executes exactly the additions asked for on
 * average. inject_work() costs a fixed number of instructions per call plus
 * one per addition, so its instruction count over R rounds of `ops` calls
 * with N = 2.5 lies exactly halfway between N = 2 and N = 3 when R is even,
 * and a quarter of the way with N = 2.25 and R = 4.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';
import { selfCost } from './callgrind.ts';

const skip = requireTool('valgrind', 'valgrind');

/** Instructions executed in inject_work() by one probe run with `--inject-work n`. */
function workInstructions(probe: string, dir: string, n: string): number {
  const out = join(dir, `cg.${n}`);
  execFileSync('valgrind', ['--tool=callgrind', '--compress-strings=no', '--compress-pos=no', `--callgrind-out-file=${out}`, probe, '--profile', 'getppid', '--ops', '1000', '--warmups', '0', '--rounds', '4', '--inject-work', n], { stdio: 'ignore' });
  const cost = selfCost(readFileSync(out, 'utf8'), 'inject_work');
  assert.ok(cost > 0, `callgrind counted inject_work for --inject-work ${n}`);
  return cost;
}

test('a fractional --inject-work runs floor or floor + 1 additions per round, the asked mean over the rounds', { skip }, () => {
  const probe = buildProbe({}).path;
  const dir = tempDir('hintlab-dither-');
  const [two, half, three, quarter] = ['2', '2.5', '3', '2.25'].map((n) => workInstructions(probe, dir, n)) as [number, number, number, number];
  // 4 rounds of 1000 calls: one more addition per call is 4000 instructions
  assert.equal(three - two, 4000);
  assert.equal(half - two, 2000);
  assert.equal(quarter - two, 1000);
});

test('the probe refuses a count with more than three decimals or no digits after the point', { skip }, () => {
  const probe = buildProbe({}).path;
  for (const bad of ['2.5555', '2.', '.5', '-1', '65536.5']) {
    assert.throws(() => execFileSync(probe, ['--profile', 'getppid', '--ops', '10', '--rounds', '1', '--inject-work', bad], { stdio: 'pipe' }), (e: { stdout?: Buffer; stderr?: Buffer }) =>
      /--inject-work/.test(`${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`), bad);
  }
});
