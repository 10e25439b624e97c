/**
 * `hintlab bench` end to end on a scripted target given as
 * `services.target`: the whole command (arguments, run driver, store,
 * table) with exact numbers, no probe process.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { scriptedTarget } from '../../src/targets/fake.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { roundsScript } from '../bench/fake-probe.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probeBuild: ProbeBuild = { path: '/nonexistent', static: false, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };

test('bench on a scripted target stores and prints its exact rounds, one probe job per process', async () => {
  const target = scriptedTarget(({ args }) => roundsScript(args));
  const db = join(dir, 'h.db');
  const res = await runCli(['bench', '--db', db, '--profile', 'getppid,mincore-256k', '--ops', '1000', '--warmups', '1', '--rounds', '4', '--processes', '2', '--label', 'S'], { services: { target, probeBuild } });
  assert.equal(res.code, 0, res.stderr);
  assert.equal(target.jobs.length, 2);
  assert.ok(target.jobs.every((j) => j.program === 'probe' && j.args.includes('--rounds') && j.args[j.args.indexOf('--rounds') + 1] === '2'));
  // each process: warm-up 100/500, then 101, 102 and 501, 502 ns per call
  assert.match(res.stdout, /^getppid +101\.5 +101\.5 .* 101\.0 +102\.0 +4 x 1000$/m);
  assert.match(res.stdout, /^mincore-256k +501\.5 +501\.5 .* 501\.0 +502\.0 +4 x 1000$/m);
});

test('a failing scripted probe fails the run with its exit status and stderr', async () => {
  const target = scriptedTarget(() => ({ lines: [], code: 3, stderr: ['probe: cannot pin'] }));
  const res = await runCli(['bench', '--db', join(dir, 'f.db'), '--profile', 'getppid', '--rounds', '2', '--processes', '1'], { services: { target, probeBuild } });
  assert.equal(res.code, 1);
  assert.match(res.stderr, /probe exited with status 3 after 0 of 2 measured rounds; stderr: probe: cannot pin\nrun #1 is marked failed/);
});
