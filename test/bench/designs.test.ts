import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { alternationOrder } from '../../src/bench/alternation.ts';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { chooseDesign } from '../../src/bench/design.ts';
import { runInterleaved } from '../../src/bench/interleave.ts';
import type { InterleavedRequest, PairedBudget, SidesRequest } from '../../src/bench/sides.ts';
import { selectProfiles } from '../../src/bench/profiles.ts';
import { confidenceSequence } from '../../src/stats/sequential.ts';
import { Store } from '../../src/store/store.ts';
import { scriptedTarget } from '../../src/targets/fake.ts';
import { fakeSys } from '../environment/fake-sys.ts';
import { blocksScript, steadyScript } from './fake-probe.ts';

const probe: ProbeBuild = { path: '/nonexistent', static: false, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };
const arg = (args: string[], flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1]! : null);

/** An A/B request of the design asked for (default: chosen when it runs) with `over` in place of the defaults. */
function request(over: Partial<SidesRequest> & { design?: 'duet' | 'alternation' | 'auto'; budget?: PairedBudget; seed?: number } = {}): InterleavedRequest {
  const { design = 'auto', budget = { secondsPerProfile: 0, precisionPct: null, blockRounds: 2, alpha: 0.05 }, seed, ...rest } = over;
  const sides: SidesRequest = {
    profiles: selectProfiles(['getppid']),
    ops: 1000,
    warmups: 1,
    rounds: 15,
    processes: 3,
    cpu: null,
    a: { label: 'A', injectSeccomp: null },
    b: { label: 'B', injectSeccomp: 64 },
    files: [],
    command: 'hintlab bench --inject-seccomp-b 64',
    hintlabVersion: 'test',
    ...rest,
  };
  return design === 'duet' ? { ...sides, design, budget } : { ...sides, design, budget, ...(seed === undefined ? {} : { seed }) };
}

test('the design follows what differs: alternation by default (in two processes for a per-process difference), whole processes on a box, abbaab anywhere when asked', () => {
  const base = { allowedCpus: [0, 1], onHost: true, asked: null };
  assert.deepEqual(chooseDesign({ ...base, perProcess: true, global: false }), { ok: true, kind: 'alternation', note: null });
  assert.deepEqual(chooseDesign({ ...base, perProcess: false, global: true }), { ok: true, kind: 'alternation', note: null });
  assert.deepEqual(chooseDesign({ ...base, perProcess: true, global: true }), { ok: true, kind: 'alternation', note: null });
  // one allowed CPU is all alternation needs
  assert.deepEqual(chooseDesign({ ...base, perProcess: true, global: false, allowedCpus: [3] }), { ok: true, kind: 'alternation', note: null });
  assert.deepEqual(chooseDesign({ ...base, perProcess: true, global: false, asked: 'duet' }), { ok: true, kind: 'duet', note: null });
  assert.match((chooseDesign({ ...base, perProcess: false, global: true, asked: 'duet' }) as { error: string }).error, /--design duet .* global --switch-file/);
  assert.match((chooseDesign({ ...base, perProcess: true, global: false, asked: 'duet', allowedCpus: [3] }) as { error: string }).error, /--design duet needs two allowed CPUs/);
  const box = chooseDesign({ ...base, perProcess: true, global: false, onHost: false });
  assert.deepEqual([box.ok && box.kind, box.ok && /this machine only/.test(box.note ?? '')], ['processes', true]);
  // six whole runs need nothing of this machine: asked for, abbaab runs on a box too
  assert.deepEqual(chooseDesign({ ...base, perProcess: false, global: true, onHost: false, asked: 'abbaab' }), { ok: true, kind: 'abbaab', note: null });
  assert.match((chooseDesign({ ...base, perProcess: true, global: false, onHost: false, asked: 'alternation' }) as { error: string }).error, /--design alternation runs on this machine only/);
});

test('a duet runs A and B at once at one barrier per block, swaps their CPUs every block, and stores pair k as replicate k of both runs', async () => {
  const store = Store.open(':memory:');
  const target = scriptedTarget(({ args }) => steadyScript(args, arg(args, '--inject-seccomp') ? 1100 : 1000));
  const res = await runInterleaved(request({ design: 'duet' }), { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'complete');
  // the time budget of 0 s still measures the three pairs a confidence sequence needs
  const jobs = target.jobs.map((j) => ({ side: arg(j.args, '--inject-seccomp') ? 'B' : 'A', cpu: arg(j.args, '--cpu'), barrier: arg(j.args, '--barrier') }));
  assert.deepEqual(jobs.map((j) => `${j.side}${j.cpu}`), ['A1', 'B0', 'A0', 'B1', 'A1', 'B0']);
  for (let k = 0; k < 3; k++) assert.equal(jobs[2 * k]!.barrier, jobs[2 * k + 1]!.barrier);
  assert.equal(new Set(jobs.map((j) => j.barrier)).size, 3, 'a fresh barrier per block');
  const [a, b] = res.runs;
  const reps = (r: typeof a) => r.rounds.filter((x) => !x.warmup).map((x) => x.replicate);
  assert.deepEqual(reps(a), [0, 0, 1, 1, 2, 2]);
  assert.deepEqual(reps(b), [0, 0, 1, 1, 2, 2]);
  assert.deepEqual(b.params.extra.interleave?.design, 'duet');
  assert.deepEqual(b.params.extra.interleave.cpus, [1, 0]);
  assert.equal(res.designText, "design: duet: A and B at once on CPUs 1 and 0, 3 pairs, CPUs swapped every block, rounds timed on each probe thread's CPU clock");
  assert.ok(target.jobs.every((j) => arg(j.args, '--clock') === 'thread-cpu'));
});

test('--precision stops at the first pair where the confidence sequence is narrow enough, and both runs record it', async () => {
  const store = Store.open(':memory:');
  let bJobs = 0;
  // B is 10 % slower, +-1 % from block to block
  const target = scriptedTarget(({ args }) => steadyScript(args, arg(args, '--inject-seccomp') ? 1100 * (bJobs++ % 2 ? 1.01 : 0.99) : 1000));
  const budget = { secondsPerProfile: 3600, precisionPct: 2, blockRounds: 2, alpha: 0.05 };
  const res = await runInterleaved(request({ budget, design: 'duet' }), { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'complete');
  const xs = Array.from({ length: 40 }, (_, k) => Math.log(1.1 * (k % 2 ? 1.01 : 0.99)));
  const halfWidth = (n: number) => {
    const iv = confidenceSequence(xs.slice(0, n), 0.05)!;
    return ((Math.exp(iv.hi) - Math.exp(iv.lo)) / 2) * 100;
  };
  const first = [...Array(40).keys()].find((n) => n >= 3 && halfWidth(n) <= 2)!;
  assert.ok(first > 3 && first < 40, `the target is reached at ${first} pairs`);
  const stopping = res.runs[1].params.extra.stopping as { pairs: number; reached: boolean; rule: string };
  assert.deepEqual(stopping, { rule: 'confidence-sequence', alpha: 0.05, precisionPct: 2, reached: true, pairs: first });
  assert.deepEqual(res.runs[0].params.extra.stopping, stopping);
  assert.equal(target.jobs.length, 2 * first);
});

test('the alternation\'s random ABBA order is reproducible from its seed, one A and one B in every pair', () => {
  const order = alternationOrder(42, 50);
  assert.equal(order, alternationOrder(42, 50));
  assert.notEqual(order, alternationOrder(43, 50));
  for (let k = 0; k < 50; k++) assert.ok(['AB', 'BA'].includes(order.slice(2 * k, 2 * k + 2)));
  assert.ok(/ABAB|BABA|ABBA|BAAB/.test(order) && order.includes('AB') && order.includes('BA'));
});

test('alternation: one probe process, each block\'s rounds stored on its side as pair k in the seeded order', async () => {
  const store = Store.open(':memory:');
  const path = join(mkdtempSync(join(tmpdir(), 'hl-alt-')), 'knob');
  writeFileSync(path, '0\n');
  // block k costs 1000 + k ns per call, so every stored round names its block
  const target = scriptedTarget(({ args }) => blocksScript(args, 6, (k) => 1000 + k));
  const req = request({ b: { label: 'B', injectSeccomp: null }, files: [{ path, valueB: '1', valueA: null }], seed: 7, budget: { secondsPerProfile: 3600, precisionPct: null, blockRounds: 2, alpha: 0.05 } });
  const res = await runInterleaved(req, { store, target, probe, reader: fakeSys() });
  assert.equal(res.state, 'complete', res.state === 'failed' ? res.reason : '');
  assert.equal(target.jobs.length, 1);
  assert.ok(arg(target.jobs[0]!.args, '--go-fifo'));
  const order = alternationOrder(7, 3);
  const blocksOf = (side: string) => Array.from(order).flatMap((s, k) => (s === side ? [k] : []));
  const [a, b] = res.runs;
  const stored = (r: typeof a) => r.rounds.filter((x) => !x.warmup).map((x) => [x.replicate, x.value - 1000]);
  assert.deepEqual(stored(a), blocksOf('A').flatMap((blk, k) => [[k, blk], [k, blk]]));
  assert.deepEqual(stored(b), blocksOf('B').flatMap((blk, k) => [[k, blk], [k, blk]]));
  assert.deepEqual(b.params.extra.interleave, { ...(b.params.extra.interleave as object), order, design: 'alternation', blockRounds: 2, seed: 7 });
  assert.equal(readFileSync(path, 'utf8'), '0\n');
});
