/**
 * A trial's stressors over a scripted guest (the real guest path is in
 * stress-boot.test.ts): the selection checked before anything builds
 * (unknown name refused with the closest one, what --set sched lacks said
 * once), the pooled icount boots (one run per kernel, each boot one unit,
 * bogo-ops per guest second), the comparison with its geometric mean and
 * regressions, and the lkml block that says the unit as such.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compare } from '../../src/compare/compare.ts';
import { UserError } from '../../src/errors.ts';
import { fakeExecutor } from '../../src/macro/fake.ts';
import { Store } from '../../src/store/store.ts';
import type { TrialRequest } from '../../src/trial/request.ts';
import { planStress, unavailableLine } from '../../src/trial/stress.ts';
import type { TrialStressors } from '../../src/trial/document.ts';
import { stressLkml, stressSentences } from '../../src/report/trial-stress.ts';
import type { TrialDocument } from '../../src/trial/document.ts';
import type { AccelChoice } from '../../src/vm/accel.ts';
import type { VmKernel } from '../../src/vm/kernels.ts';
import { planVmMacro, runVmMacro, type VmMacroRequest } from '../../src/vm/macro.ts';
import { tempDir } from '../helpers/cli.ts';
import { stressGuest, unusedProbe } from './fakes.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = unusedProbe(dir);
const STRESSORS = readStressors();
const stressNg = fakeExecutor({ stressors: STRESSORS, step: () => ({ yaml: null, result: { kind: 'exited', code: 0, stderr: '' } }) });

function readStressors(): string[] {
  // the 0.15.06 list captured on this machine: it lacks cpu-sched, flipflop, mtx, prio-inv and schedmix
  return readFileSync(new URL('../macro/fixtures/stressors-0.15.06.txt', import.meta.url), 'utf8').split(/\s+/).filter(Boolean);
}

function request(stress: TrialRequest['stress']): TrialRequest {
  return { kvm: false, timeoutSeconds: 60, command: 'hintlab trial', invocation: { argv: ['trial'], cwd: dir }, hintlabVersion: '0.0.0-test', stress } as unknown as TrialRequest;
}

test('--set sched: the named set minus what the installed stress-ng lacks, said once with the names', async () => {
  const plan = await planStress(request({ stressors: [], sets: ['sched'], instances: '1', seconds: 2, repeats: 2 }), stressNg, planVmMacro);
  assert.ok(plan);
  assert.deepEqual(plan.stressors, ['fifo', 'futex', 'mq', 'msg', 'mutex', 'poll', 'pthread', 'race-sched', 'schedpolicy', 'switch', 'tee', 'yield']);
  assert.deepEqual(plan.instances, [1], 'the -icount guest has one CPU');
  assert.equal(unavailableLine(plan), 'stress-ng 0.15.06 lacks 5 of the stressors asked for (cpu-sched, flipflop, mtx, prio-inv, schedmix); measuring the other 12');
  assert.equal(await planStress(request(null), stressNg, planVmMacro), null);
});

test('an unknown --stressor is refused before anything builds, naming it and the closest known one', async () => {
  await assert.rejects(planStress(request({ stressors: ['fifo', 'yeld'], sets: [], instances: '1', seconds: 2, repeats: 2 }), stressNg, planVmMacro), (err: unknown) => {
    assert.ok(err instanceof UserError);
    assert.equal(err.exitCode, 2);
    assert.match(err.message, /--stressor yeld: stress-ng 0\.15\.06 has no stressor 'yeld'.*yield/);
    return true;
  });
  await assert.rejects(planStress(request({ stressors: [], sets: ['shced'], instances: '1', seconds: 2, repeats: 2 }), stressNg, planVmMacro), /--set shced: unknown set; known sets: sched/);
});

const kernel = (label: string): VmKernel => ({ label, image: `/boot/${label}`, manifest: null, configHash: { known: false, reason: 'test' } });
const tcg: AccelChoice = { accel: 'tcg', why: '--icount needs TCG' };

test('pooled icount boots: one run per kernel, each boot one unit, bogo-ops per guest second; B vs A with geometric mean and regressions apart', async () => {
  const store = Store.open(join(dir, 'stress.db'));
  const order = ['A', 'B', 'B', 'A', 'A', 'B'];
  const req: VmMacroRequest = {
    kernels: [kernel('A'), kernel('B')], steps: order, stressors: ['fifo', 'yield'], sets: [], instances: '1', seconds: 2, repeats: 2,
    accel: 'tcg', icount: true, poolBoots: true, timeoutSeconds: 60, labelPrefix: 'trial7-stress-', command: 'hintlab trial', hintlabVersion: '0.0.0-test',
  };
  const plan = await planVmMacro(req, stressNg);
  const argv: string[][] = [];
  const result = await runVmMacro(req, plan, { store, launcher: stressGuest((image) => (image === '/boot/A' ? 'A' : 'B'), argv), probe, stressNgEntries: [], abort: new AbortController().signal, cacheDir: join(dir, 'cache'), chooseAccel: async () => tcg });
  assert.equal(result.state, 'finished');
  assert.equal(result.unit, 'icount-bogo-ops/s');
  assert.ok(argv.every((a) => a.join(' ').includes('-icount shift=0') && a[a.indexOf('-smp') + 1] === '1'), 'icount, one guest CPU');
  const runs = [...new Set(result.steps.map((s) => s.runId))];
  assert.deepEqual(result.steps.map((s) => s.runLabel), ['trial7-stress-A', 'trial7-stress-B', 'trial7-stress-B', 'trial7-stress-A', 'trial7-stress-A', 'trial7-stress-B']);
  const a = store.getRun(runs[0]!);
  const b = store.getRun(runs[1]!);
  assert.deepEqual([a.status, a.unit, a.replicateUnit], ['complete', 'icount-bogo-ops/s', { known: true, value: 'boot' }]);
  assert.deepEqual(b.rounds.filter((r) => r.subject === 'fifo@1').map((r) => [r.replicate, r.value]), [[0, 2000], [0, 2010], [1, 1990], [1, 2005], [2, 1995], [2, 2002]]);
  const c = compare({ a, b }, { thresholdPct: 1 });
  assert.deepEqual(c.regressions, ['fifo@1']);
  assert.equal(c.geometricMean.kind, 'ok');

  const stressors: TrialStressors = {
    runs: { A: { id: a.id, label: a.label! }, B: { id: b.id, label: b.label! } }, order, accel: tcg, icount: true, unit: c.unit,
    stressNgVersion: '0.15.06', stressors: ['fifo', 'yield'], unavailable: [{ stressor: 'mtx', reason: 'not in stress-ng 0.15.06' }], instances: [1], seconds: 2, comparison: c,
  };
  const lines = stressLkml({ stressors } as TrialDocument, false);
  process.stderr.write(`${lines.join('\n')}\n`);
  assert.ok(lines.every((l) => l.length <= 72), 'the lkml block stays within 72 columns');
  const text = lines.join(' ').replace(/\s+/g, ' ');
  assert.match(text, /bogo-ops per guest second/);
  assert.doesNotMatch(text, /bogo-ops\/s\b/, 'never per second of real time');
  assert.match(text, /Geometric mean of B\/A over 2 subjects: -1\d(\.\d)? %/);
  assert.match(text, /Slower \(regressions\): fifo@1\./);
  const sentences = stressSentences(stressors);
  assert.match(sentences[0]!, /lacks mtx/);
  assert.match(sentences[0]!, /runs trial7-stress-A and trial7-stress-B/);
  store.close();
});

test('under icount a rate every boot repeats is judged exactly: identical, within the threshold, or a claim beyond it (4 boots per side for 2 stressors)', async () => {
  const store = Store.open(join(dir, 'exact.db'));
  const same = (x: number) => Array.from({ length: 8 }, () => x);
  const req: VmMacroRequest = {
    kernels: [kernel('A'), kernel('B')], steps: ['A', 'B', 'B', 'A', 'A', 'B', 'B', 'A'], stressors: ['fifo', 'yield'], sets: [], instances: '1', seconds: 1, repeats: 2,
    accel: 'tcg', icount: true, poolBoots: true, timeoutSeconds: 60, labelPrefix: 'x-', command: 'hintlab trial', hintlabVersion: '0.0.0-test',
  };
  const plan = await planVmMacro(req, stressNg);
  const judged = async (name: string, rates: Record<'A' | 'B', Record<string, number[]>>) => {
    const guest = stressGuest((image) => (image === '/boot/A' ? 'A' : 'B'), [], rates);
    const result = await runVmMacro({ ...req, labelPrefix: `${name}-` }, plan, { store, launcher: guest, probe, stressNgEntries: [], abort: new AbortController().signal, cacheDir: join(dir, 'cache'), chooseAccel: async () => tcg });
    const ids = [...new Set(result.steps.map((x) => x.runId))];
    return compare({ a: store.getRun(ids[0]!), b: store.getRun(ids[1]!) }, { thresholdPct: 1 }).subjects.map((x) => [x.subject, x.verdict.verdict, x.verdict.reason]);
  };
  // fifo repeats 43569 on both sides; yield repeats, B 0.5 % up
  const first = await judged('first', { A: { fifo: same(43569), yield: same(400000) }, B: { fifo: same(43569), yield: same(402000) } });
  // fifo repeats, B 5 % down
  const second = await judged('second', { A: { fifo: same(80000), yield: same(400000) }, B: { fifo: same(76000), yield: same(400000) } });
  assert.deepEqual([...first, ...second].map((v) => v.slice(0, 2)), [['fifo@1', 'identical'], ['yield@1', 'no difference proven'], ['fifo@1', 'slower'], ['yield@1', 'identical']]);
  assert.equal(first[0]![2], 'exact: every boot gave the same value (boots: A 4, B 4), 43569 in A and B alike');
  assert.match(first[1]![2]!, /^exact: .*400000 in A, 402000 in B \(\+0\.5\d* %\), within the ±1 % threshold$/);
  assert.match(second[0]![2]!, /80000 in A, 76000 in B \(-5(\.0+)? %\), beyond the ±1 % threshold/);
  store.close();
});
