import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { loadAverage } from '../../src/environment/host.ts';
import { fsReader } from '../../src/environment/reader.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.ts';
import { scriptedTarget } from '../../src/targets/fake.ts';
import { selectProfiles } from '../../src/bench/profiles.ts';
import { BenchRequestError, planCpus, runBench, type BenchRequest } from '../../src/bench/runner.ts';
import { probeArgs, defaultClock } from '../../src/bench/probe-run.ts';
import { Store } from '../../src/store/store.ts';
import { fakeSys } from '../environment/fake-sys.ts';
import { roundsScript } from './fake-probe.ts';
import { checkRoundTime } from '../../src/bench/pilot.ts';

const probe: ProbeBuild = { path: '/nonexistent', static: false, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };

function request(over: Partial<BenchRequest> = {}): BenchRequest {
  return {
    profiles: selectProfiles(['getppid', 'mincore-256k']),
    ops: 1000,
    warmups: 1,
    rounds: 2,
    processes: 1,
    cpu: null,
    label: 'A',
    injectSeccomp: null,
    command: 'hintlab bench',
    hintlabVersion: 'test',
    ...over,
  };
}

test('every round is stored with value = elapsed / ops, interleaved in measurement order', async () => {
  const store = Store.open(':memory:');
  const res = await runBench(request(), { store, target: scriptedTarget(({ args }) => roundsScript(args)), probe, reader: fakeSys() });
  assert.equal(res.state, 'complete');
  const run = res.run;
  assert.equal(run.status, 'complete');
  assert.equal(run.unit, 'ns/call');
  assert.deepEqual(
    run.rounds.map((r) => [r.subject, r.warmup, r.value]),
    [
      ['getppid', true, 100],
      ['mincore-256k', true, 500],
      ['getppid', false, 101],
      ['mincore-256k', false, 501],
      ['getppid', false, 102],
      ['mincore-256k', false, 502],
    ],
  );
  assert.equal(run.params.cpu, 1, 'default CPU is the last allowed one (fake mask 0-1)');
});

test('rounds split across probe processes keep counting their indices, each process warms up and is its own replicate', async () => {
  const store = Store.open(':memory:');
  const calls: string[][] = [];
  const target = scriptedTarget(({ args }) => {
    calls.push(args);
    return roundsScript(args);
  });
  const res = await runBench(request({ rounds: 5, processes: 2 }), { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'complete');
  assert.deepEqual(calls.map((a) => a[a.indexOf('--rounds') + 1]), ['3', '2']);
  const getppid = res.run.rounds.filter((r) => r.subject === 'getppid');
  assert.deepEqual(getppid.map((r) => [r.warmup, r.index, r.value, r.replicate]), [
    [true, 0, 100, 0], [false, 0, 101, 0], [false, 1, 102, 0], [false, 2, 103, 0],
    [true, 1, 100, 1], [false, 3, 101, 1], [false, 4, 102, 1],
  ]);
  assert.equal(res.run.params.extra.processes, 2);
  assert.deepEqual(res.run.replicateUnit, { known: true, value: 'process' });
});

test('an interruption between two probe processes starts no further process and fails the run saying so', async () => {
  const store = Store.open(':memory:');
  const ctl = new AbortController();
  let started = 0;
  const target = scriptedTarget(({ args }) => {
    started++;
    ctl.abort(); // Ctrl-C arrives while the first process runs, after the probe finished its rounds
    return roundsScript(args);
  });
  const res = await runBench(request({ rounds: 6, processes: 3 }), { store, target, probe, reader: fakeSys(), abort: ctl.signal });
  assert.equal(started, 1);
  assert.equal(res.state, 'failed');
  assert.equal(res.reason, 'interrupted before its next probe process');
  assert.equal(store.getRun(res.run.id).status, 'failed');
});

test('the probe is asked for the pinned CPU, a second CPU and per-profile ops', () => {
  const req = request({ ops: null, injectSeccomp: 64 });
  assert.deepEqual(probeArgs(req, { cpu: 3, otherCpu: 2 }), [
    '--cpu', '3', '--warmups', '1', '--rounds', '2', '--other-cpu', '2', '--inject-seccomp', '64',
    '--profile', 'getppid:100000', '--profile', 'mincore-256k:20000',
  ]);
});

test('a probe error fails the run, keeps earlier rounds for inspection and names call, round and errno', async () => {
  const store = Store.open(':memory:');
  const target = scriptedTarget(() => ({
    lines: [
      '@hl1 round profile=getppid idx=0 warmup=0 ops=1000 elapsed=100000 cpu=1',
      '@hl1 error profile=mincore-256k round=0 warmup=0 stage=loop call=7 syscall=mincore errno=12 message=Cannot%20allocate%20memory',
      '@hl1 round profile=mincore-256k idx=0 warmup=0 ops=1000 elapsed=500000 cpu=1',
    ],
    code: 3,
  }));
  const res = await runBench(request({ warmups: 0 }), { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'failed');
  assert.match(res.reason, /profile mincore-256k, round 0, call #7 of mincore, stage loop: errno 12 \(Cannot allocate memory\)/);
  assert.equal(res.run.status, 'failed');
  assert.deepEqual(res.run.rounds.map((r) => r.subject), ['getppid'], 'nothing after the error is stored');
});

test('output that ends early or has a wrong op count is a failed run, not data', async () => {
  const store = Store.open(':memory:');
  const short = scriptedTarget(() => ({ lines: ['@hl1 round profile=getppid idx=0 warmup=0 ops=1000 elapsed=100000 cpu=1'], code: 0 }));
  const r1 = await runBench(request({ warmups: 0 }), { store, target: short, probe, reader: fakeSys() });
  assert.equal(r1.state, 'failed');
  assert.match(r1.reason, /ended after 1 of 4 measured rounds/);
  const wrongOps = scriptedTarget(() => ({ lines: ['@hl1 round profile=getppid idx=0 warmup=0 ops=999 elapsed=100000 cpu=1'], code: 0 }));
  const r2 = await runBench(request({ warmups: 0 }), { store, target: wrongOps, probe, reader: fakeSys() });
  assert.match(r2.state === 'failed' ? r2.reason : '', /reported 999 calls for 'getppid', expected 1000/);
  assert.equal(store.getRun(r2.run.id).rounds.length, 0);
});

test('a CPU outside the allowed mask is refused with the mask named', () => {
  assert.throws(() => planCpus('0-1', 5, selectProfiles(['getppid'])), (e: Error) => e instanceof BenchRequestError && /--cpu 5 is not in this process's allowed CPUs \(0-1\)/.test(e.message));
});

test('a two-CPU profile is refused on a one-CPU mask, naming the profile', () => {
  assert.throws(() => planCpus('3', null, selectProfiles(['sched_setaffinity-queued'])), /sched_setaffinity-queued needs two CPUs, but only CPU 3 is allowed/);
  assert.deepEqual(planCpus('3', null, selectProfiles(['getppid'])), { cpu: 3, otherCpu: null });
  assert.deepEqual(planCpus('0-2,5', null, selectProfiles(['getppid'])), { cpu: 5, otherCpu: 2 });
});

test('the file reader reads under its root and reports a missing file by path and code', () => {
  const root = tempDir();
  mkdirSync(join(root, 'proc'));
  writeFileSync(join(root, 'proc/loadavg'), '0.25 0.50 0.75 1/99 42\n');
  assert.deepEqual(loadAverage(fsReader(root)), { known: true, value: [0.25, 0.5, 0.75] });
  assert.deepEqual(fsReader(root).read('/proc/cmdline'), { ok: false, reason: '/proc/cmdline: ENOENT' });
});

test('--ops whose round a pilot estimates past 60 s is refused with the estimate, the cap and the largest --ops that fits, before any run', async () => {
  const store = Store.open(':memory:');
  // the pilot: 1000 calls of getppid in 100 us, so 100 ns/call
  const target = scriptedTarget(({ args }) => roundsScript(args));
  const req = request({ profiles: selectProfiles(['getppid']), ops: 9007199254740991 });
  await assert.rejects(
    runBench(req, { store, target, probe, reader: fakeSys() }),
    (e: Error) => e instanceof BenchRequestError && /--ops 9007199254740991: one round of getppid would take about 29 years \(a pilot measured 100 ns\/call over 1000 calls\); a round is capped at 60 s, so --ops can be at most 600000000 for it/.test(e.message),
  );
  assert.equal(target.jobs.length, 1, 'only the pilot ran');
  assert.deepEqual(target.jobs[0]!.args.slice(-2), ['--profile', 'getppid:1000']);
  assert.equal(store.listRuns().length, 0);
  // 600000000 calls at 100 ns is exactly the cap
  assert.doesNotThrow(() => checkRoundTime(600_000_000, new Map([['getppid', 100]])));
  assert.throws(() => checkRoundTime(600_000_001, new Map([['getppid', 100]])), /at most 600000000/);
});

test('--ops up to 20 times a profile\'s default runs no pilot', async () => {
  const store = Store.open(':memory:');
  const target = scriptedTarget(({ args }) => roundsScript(args));
  await runBench(request({ profiles: selectProfiles(['getppid']), ops: 1000 }), { store, target, probe, reader: fakeSys() });
  assert.equal(target.jobs.length, 1, 'the run itself only');
});

test('a plain run times on the thread CPU clock by default, passes it to the probe and stores it; --clock wall passes nothing', async () => {
  const argsOf = async (over: Partial<BenchRequest>) => {
    const store = Store.open(':memory:');
    const calls: string[][] = [];
    const target = scriptedTarget(({ args }) => (calls.push(args), roundsScript(args)));
    const res = await runBench(request(over), { store, target, probe, reader: fakeSys() });
    assert.equal(res.state, 'complete');
    return { args: calls.at(-1)!, clock: res.run.params.extra.clock };
  };
  const byDefault = await argsOf({});
  assert.deepEqual(byDefault.args.slice(byDefault.args.indexOf('--clock'), byDefault.args.indexOf('--clock') + 2), ['--clock', 'thread-cpu']);
  assert.equal(byDefault.clock, 'thread-cpu');
  const wall = await argsOf({ clock: 'wall' });
  assert.ok(!wall.args.includes('--clock'));
  assert.equal(wall.clock, 'wall');
});

test('a profile that waits for a partner makes the wall clock the default for the whole invocation: its CPU time would leave the wait out', () => {
  assert.equal(defaultClock(selectProfiles(['getppid', 'mincore-256k'])), 'thread-cpu');
  assert.equal(defaultClock(selectProfiles(['getppid', 'sched_yield-dual'])), 'wall');
  assert.equal(defaultClock(selectProfiles(['sched_setaffinity-queued'])), 'wall');
});
