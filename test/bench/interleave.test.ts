import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { scriptedTarget } from '../../src/targets/fake.ts';
import { abbaOrder, processPlan, runInterleaved } from '../../src/bench/interleave.ts';
import type { InterleavedRequest, SidesRequest } from '../../src/bench/sides.ts';
import { selectProfiles } from '../../src/bench/profiles.ts';
import { Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/cli.ts';
import { fillLeaving, mountTmpfs } from '../helpers/tmpfs.ts';
import { roundsScript } from './fake-probe.ts';
import { fakeSys } from '../environment/fake-sys.ts';

const probe: ProbeBuild = { path: '/nonexistent', static: false, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };

/** Whole probe processes A B B A, with `over` in place of the defaults. */
function request(over: Partial<SidesRequest> = {}): InterleavedRequest {
  return {
    profiles: selectProfiles(['getppid', 'mincore-256k']),
    ops: 1000,
    warmups: 1,
    rounds: 6,
    processes: 3,
    cpu: null,
    a: { label: 'A', injectSeccomp: null },
    b: { label: 'B', injectSeccomp: 64 },
    files: [],
    design: 'processes',
    command: 'hintlab bench --inject-seccomp-b 64',
    hintlabVersion: 'test',
    ...over,
  };
}

/** A scripted probe that notes each process's seccomp filter (null: none), in the order the processes start. */
function seccompSeen() {
  const seen: (string | null)[] = [];
  const target = scriptedTarget(({ args }) => {
    const i = args.indexOf('--inject-seccomp');
    seen.push(i < 0 ? null : args[i + 1]!);
    return roundsScript(args);
  });
  return { seen, target };
}

test('probe processes alternate A B B A so a linear drift hits both sides alike', () => {
  assert.deepEqual(abbaOrder(3).join(''), 'ABBAAB');
  assert.deepEqual(abbaOrder(4).join(''), 'ABBAABBA');
  const mean = (side: string) => {
    const at = abbaOrder(4).flatMap((s, i) => (s === side ? [i] : []));
    return at.reduce((a, b) => a + b, 0) / at.length;
  };
  assert.equal(mean('A'), mean('B'));
});

test('abbaab runs six runs A B B A A B, each of --processes processes sharing --rounds, and records the runs\' order', async () => {
  assert.deepEqual(processPlan('abbaab', 4, 2), { order: 'AABBBBAAAABB'.split(''), shares: [2, 2, 2, 2, 2, 2], processesPerRun: 2 });
  assert.deepEqual(processPlan('processes', 6, 3), { order: 'ABBAAB'.split(''), shares: [2, 2, 2], processesPerRun: 3 });
  const store = Store.open(':memory:');
  const { seen, target } = seccompSeen();
  const res = await runInterleaved({ ...request({ rounds: 4, processes: 2 }), design: 'abbaab' }, { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'complete');
  assert.deepEqual(seen, [null, null, '64', '64', '64', '64', null, null, null, null, '64', '64']);
  const [a, b] = res.runs;
  assert.deepEqual(b.params.extra.interleave, { side: 'B', order: 'ABBAAB', labels: { A: 'A', B: 'B' }, injectSeccomp: { A: null, B: 64 }, clock: 'thread-cpu', files: [], design: 'abbaab', processesPerRun: 2 });
  // 4 rounds per run over 2 processes: each process warms up once and measures 2; units 0-1 are run 1, 2-3 run 2, 4-5 run 3
  assert.deepEqual([...new Set(a.rounds.filter((r) => r.subject === 'getppid' && !r.warmup).map((r) => r.replicate))], [0, 1, 2, 3, 4, 5]);
  assert.equal(a.rounds.filter((r) => r.subject === 'getppid' && !r.warmup).length, 12);
  assert.match(res.designText, /^design: abbaab: 3 runs per side in ABBAAB order, each of 2 probe processes and 4 rounds, judged on the 6 run levels/);
});

test('one invocation stores two runs, the seccomp filter only on B, each process a share of its run', async () => {
  const store = Store.open(':memory:');
  const { seen, target } = seccompSeen();
  const res = await runInterleaved(request(), { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'complete');
  assert.deepEqual(seen, [null, '64', '64', null, null, '64']);
  const [a, b] = res.runs;
  assert.deepEqual([a.label, b.label, a.status, b.status], ['A', 'B', 'complete', 'complete']);
  assert.equal(a.environment.injectSeccomp, null);
  assert.equal(b.environment.injectSeccomp, 64);
  assert.deepEqual(b.params.extra.interleave, { side: 'B', order: 'ABBAAB', labels: { A: 'A', B: 'B' }, injectSeccomp: { A: null, B: 64 }, clock: 'thread-cpu', files: [], design: 'processes' });
  assert.equal(b.command, 'hintlab bench --inject-seccomp-b 64');
  // 6 rounds over 3 processes per side: each process warms up once and measures 2
  assert.deepEqual(a.rounds.filter((r) => r.subject === 'getppid').map((r) => [r.warmup, r.index, r.replicate]), [
    [true, 0, 0], [false, 0, 0], [false, 1, 0], [true, 1, 1], [false, 2, 1], [false, 3, 1], [true, 2, 2], [false, 4, 2], [false, 5, 2],
  ]);
  assert.deepEqual(b.replicateUnit, { known: true, value: 'process' });
});

test('each probe process runs with its side\'s value in the switched file, and the original is back at the end', async () => {
  const path = join(tempDir(), 'knob');
  writeFileSync(path, '0\n');
  const store = Store.open(':memory:');
  const held: string[] = [];
  const target = scriptedTarget(({ args }) => {
    held.push(readFileSync(path, 'utf8').trim());
    return roundsScript(args);
  });
  const res = await runInterleaved(request({ b: { label: 'B', injectSeccomp: null }, files: [{ path, valueB: '1', valueA: null }] }), { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'complete');
  assert.deepEqual(held, ['0', '1', '1', '0', '0', '1']);
  assert.equal(readFileSync(path, 'utf8'), '0\n');
  assert.equal(res.runs[1].environment.switchFiles, `${path}=1`);
  assert.deepEqual((res.runs[0].params.extra.interleave as { files: unknown }).files, [{ path, original: '0', A: '0', B: '1', wrote: '0' }]);
});

test('a failing B process fails both runs, names the side, and still restores the file', async () => {
  const path = join(tempDir(), 'knob');
  writeFileSync(path, 'off');
  const store = Store.open(':memory:');
  const target = scriptedTarget(({ args }) => {
    if (readFileSync(path, 'utf8') === 'on') return { lines: ['@hl1 error call=getppid round=0 errno=1 msg=EPERM'], code: 1 };
    return roundsScript(args);
  });
  const res = await runInterleaved(request({ b: { label: 'B', injectSeccomp: null }, files: [{ path, valueB: 'on', valueA: null }] }), { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'failed');
  assert.match(res.reason, /^B \('B'\): /);
  assert.deepEqual(res.runs.map((r) => r.status), ['failed', 'failed']);
  assert.match(res.runs[0].error ?? '', /stopped with its interleaved partner B \(run #2\)/);
  assert.equal(readFileSync(path, 'utf8'), 'off');
});

test('the same label on both sides is refused before anything runs', async () => {
  const store = Store.open(':memory:');
  await assert.rejects(runInterleaved(request({ b: { label: 'A', injectSeccomp: 64 } }), { store, target: scriptedTarget(({ args }) => roundsScript(args)), probe, reader: fakeSys() }), /A and B need different labels/);
  assert.equal(store.listRuns().length, 0);
});

test('an interrupt between probe processes starts no further process and fails both runs', async () => {
  const store = Store.open(':memory:');
  const abort = new AbortController();
  let calls = 0;
  const target = scriptedTarget(({ args }) => {
    if (++calls === 2) abort.abort();
    return roundsScript(args);
  });
  const res = await runInterleaved(request(), { store, target, probe, reader: fakeSys(), abort: abort.signal });
  assert.equal(calls, 2);
  assert.equal(res.state, 'failed');
  assert.match(res.reason, /^B \('B'\): interrupted before its next probe process/);
  assert.deepEqual(res.runs.map((r) => r.status), ['failed', 'failed']);
});

test('disk full while storing a round stops the interleaved invocation with the round and run named, and ends the partner run', async (t) => {
  const fs = mountTmpfs(1024);
  if ('skip' in fs) { t.skip(fs.skip); return; }
  t.after(fs.unmount);
  const store = Store.open(join(fs.dir, 'h.db'));
  t.after(() => store.close());
  fillLeaving(fs.dir, 96);
  let started = 0;
  const target = scriptedTarget(({ args }) => {
    started++;
    return roundsScript(args);
  });
  await assert.rejects(
    runInterleaved(request({ rounds: 8000, processes: 2 }), { store, target, probe, reader: fakeSys() }),
    /disk full while storing round \d+ of run #1 \(A\): free space on .* \(tmpfs\)\nrun #1 \(A\) keeps its \d+ committed measured rounds/,
  );
  assert.equal(started, 1, 'no probe process starts after a round could not be stored');
  // marking the partner failed needs space too: when none is left it reads back incomplete, its rounds intact
  const partner = store.listRuns().find((r) => r.label === 'B')!;
  if (partner.status === 'failed') assert.match(partner.error ?? '', /^stopped with its interleaved partner A \(run #1\): a round could not be stored$/);
  else assert.equal(partner.status, 'running');
});
