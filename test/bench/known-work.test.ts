/**
 * Known work on both sides (src/bench/known-work.ts): every process of a
 * known-work run runs the base of additions, B's its own on top, and the
 * runs record the base.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WORK_BASE, WORK_EXTRA_MAX, WORK_MAX, workArgs } from '../../src/bench/known-work.ts';
import { runInterleaved } from '../../src/bench/interleave.ts';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { selectProfiles } from '../../src/bench/profiles.ts';
import { Store } from '../../src/store/store.ts';
import { scriptedTarget } from '../../src/targets/fake.ts';
import { fakeSys } from '../environment/fake-sys.ts';
import { steadyScript } from './fake-probe.ts';

const probe: ProbeBuild = { path: '/nonexistent', static: false, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };

test('both sides run the base of additions, B its own on top, and a run without known work runs none', () => {
  const a = {};
  const b = { injectWork: { getppid: 10, 'select-1000': 3 } };
  assert.equal(WORK_BASE, 32);
  assert.equal(WORK_EXTRA_MAX, WORK_MAX - 32);
  assert.deepEqual(workArgs(a, { a, b }), ['--inject-work', '32']);
  assert.deepEqual(workArgs(b, { a, b }), ['--inject-work', '32', '--inject-work', 'getppid:42', '--inject-work', 'select-1000:35']);
  assert.deepEqual(workArgs(a, { a, b: {} }), []);
  // a fractional count goes to the probe in thousandths, without float noise (32 + 0.1 + 0.2)
  const f = { injectWork: { getppid: 3.555, 'select-1000': 0.1 + 0.2 } };
  assert.deepEqual(workArgs(f, { a, b: f }), ['--inject-work', '32', '--inject-work', 'getppid:35.555', '--inject-work', 'select-1000:32.3']);
});

test('an invocation with known work gives every probe process the base and records it', async () => {
  const store = Store.open(':memory:');
  const seen: string[][] = [];
  const target = scriptedTarget(({ args }) => {
    seen.push(args.flatMap((x, i) => (args[i - 1] === '--inject-work' ? [x] : [])));
    return steadyScript(args, 100);
  });
  const res = await runInterleaved(
    {
      profiles: selectProfiles(['getppid']), ops: 1000, warmups: 1, rounds: 4, processes: 2, cpu: null,
      a: { label: 'A', injectSeccomp: null }, b: { label: 'B', injectSeccomp: null }, files: [], workB: { kind: 'count', n: 10 },
      design: 'processes', command: 'hintlab bench --inject-work-b 10', hintlabVersion: 'test',
    },
    { store, target, probe, reader: fakeSys() },
  );
  assert.equal(res.state, 'complete');
  // A B B A: A's processes the base alone, B's the base and 10 more
  assert.deepEqual(seen, [['32'], ['32', 'getppid:42'], ['32', 'getppid:42'], ['32']]);
  const rec = res.runs[1].params.extra.interleave!;
  assert.deepEqual([rec.injectWork, rec.workBase], [{ A: null, B: { getppid: 10 } }, 32]);
});
