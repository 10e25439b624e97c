/**
 * `--inject-work-b PCT%`: the count from a pilot's costs, and a real pilot
 * run in the conditions of the duet it calibrates.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PILOT_ADDS, workFromPilot } from '../../src/bench/work-pilot.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

const costs = (xs: Record<string, number[]>) => new Map(Object.entries(xs));

test('the count makes B cost PCT % of A more, from A and the cost of one addition', () => {
  // a = 200 ns; 4000 additions cost 1000 ns: 0.25 ns each; 3 % of 200 ns = 6 ns = 24 additions
  const runs: [number, Map<string, number[]>][] = [
    [0, costs({ getppid: [198, 202] })],
    [PILOT_ADDS, costs({ getppid: [1200] })],
    [0, costs({ getppid: [200] })],
    [PILOT_ADDS, costs({ getppid: [1200] })],
  ];
  assert.deepEqual(workFromPilot(runs, ['getppid'], 3, (p) => p).n, { getppid: 24 });
  assert.deepEqual(workFromPilot(runs, ['getppid'], 100, (p) => p).n, { getppid: 800 });
  // and says what it measured: A's cost per call and one addition's
  const c = workFromPilot(runs, ['getppid'], 3, (p) => p);
  assert.deepEqual([c.levelNs, c.perAddNs], [{ getppid: 200 }, { getppid: 0.25 }]);
  // not rounded to whole additions: 1.07 % of 200 ns = 2.14 ns = 8.56 additions (the probe dithers the fraction over rounds)
  assert.deepEqual(workFromPilot(runs, ['getppid'], 1.07, (p) => p).n, { getppid: 8.56 });
  // kept to the probe's thousandths, and never below one of them
  assert.deepEqual(workFromPilot(runs, ['getppid'], 0.0001, (p) => p).n, { getppid: 0.001 });
});

test('a pilot that cannot see the additions is refused naming the profile and the way out', () => {
  const runs: [number, Map<string, number[]>][] = [[0, costs({ getppid: [300] })], [PILOT_ADDS, costs({ getppid: [290] })]];
  assert.throws(() => workFromPilot(runs, ['getppid'], 3, (p) => `${p} (20000 calls per round)`),
    /could not see 4000 additions per call in getppid \(20000 calls per round\) through the noise; give a count instead \(--inject-work-b N\)/);
});

test('a real duet pilot calibrates in duet conditions and both sides run the fenced block', { skip: availableParallelism() < 2 && 'the duet needs two CPUs' }, async () => {
  const db = join(tempDir(), 'w.db');
  const r = await runCli(['bench', '--db', db, '--profile', 'getppid', '--label-b', 'B', '--inject-work-b', '10%', '--time', '1', '--design', 'duet']);
  assert.equal(r.code, 0, r.stderr);
  const m = /note: --inject-work-b 10%: getppid (\d+(?:\.\d+)?) additions per call \(A [\d.]+ ns per call, one addition [\d.]+ ns\), from a duet pilot on the run's clock$/m.exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.ok(Number(m[1]) >= 1, m[1]);
  const exp = await runCli(['runs', '--db', db, '--verbose']);
  assert.equal(exp.code, 0, exp.stderr);
  assert.match(exp.stdout, new RegExp(`injectWork[^\\n]*getppid=${m[1]}`));
});

test('a real alternation pilot hands the turn between a 0 and a K probe and calibrates from both', async () => {
  const db = join(tempDir(), 'w.db');
  const r = await runCli(['bench', '--db', db, '--profile', 'getppid', '--label-b', 'B', '--inject-work-b', '10%', '--time', '1']);
  assert.equal(r.code, 0, r.stderr);
  const m = /note: --inject-work-b 10%: getppid (\d+(?:\.\d+)?) additions per call \(A [\d.]+ ns per call, one addition [\d.]+ ns\), from an alternation pilot on the run's clock; B's N is then recalibrated/.exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.ok(Number(m[1]) >= 1, m[1]);
  assert.match(r.stdout, /design: alternation: an A and a B probe process taking turns/);
});
