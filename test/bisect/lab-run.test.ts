/**
 * The real kernel lab (src/bisect/lab.ts) inside runBisect, with the
 * trial tests' mini kernel build (real patch(1), real gcc on a small tree)
 * and scripted qemu guest (test/trial/fakes.ts) behind the lab's own
 * services: real runVm, real stored runs, a git history made here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KernelLab, type KernelLabOptions } from '../../src/bisect/lab.ts';
import { runBisect } from '../../src/bisect/run.ts';
import { findProfile } from '../../src/bench/profiles.ts';
import { Store } from '../../src/store/store.ts';
import { DEFAULT_COST_MODEL, describeCostModel, type CostPlugin } from '../../src/vm/cost-plugin.ts';
import { fakeExecutor } from '../../src/macro/fake.ts';
import { planVmMacro } from '../../src/vm/macro.ts';
import { miniBuild, scriptedGuest, stressGuest, unusedProbe, type ScriptedGuest } from '../trial/fakes.ts';
import { checkoutState, inMiniHistory as inHistory, perCall } from './history.ts';

function labOf(dir: string, src: string, store: Store, guest: ScriptedGuest, over: Partial<KernelLabOptions> = {}, costPlugin?: CostPlugin): KernelLab {
  return new KernelLab(
    { src, out: join(dir, 'area'), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 1, profile: findProfile('getppid')!, metric: 'instructions/call', cost: null, ops: 1000, rounds: 5, warmups: 1, timeoutSeconds: 60, command: 'hintlab bisect', invocation: { argv: [], cwd: dir }, hintlabVersion: 'test', ...over },
    { store, launcher: guest, probe: unusedProbe(dir), abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild() }, ...(costPlugin ? { costPlugin } : {}) },
  );
}

test('the kernel lab builds each commit from the nearest built one, boots it, and the culprit is found from stored runs, three boots a step where counts do not repeat', () =>
  inHistory(async (dir, store, src) => {
    const before = checkoutState(src);
    const guest = scriptedGuest({ perCall });
    const lab = (): KernelLab => labOf(dir, src, store, guest);
    const request = { src, good: 'v1', bad: 'master', out: join(dir, 'area'), metric: { subject: 'getppid', name: 'instructions/call', costModel: null }, keyInputs: {}, resume: false, command: 'hintlab bisect', target: null };
    const doc = await runBisect(request, { store, lab: lab() });
    assert.equal(doc.outcome.state === 'found' ? doc.outcome.firstBad.subject : null, 'copy the attr: cost 50');
    // the scripted guest adds 3 instructions per 1000 calls on each boot: counts that do not repeat exactly
    assert.equal(doc.mode.kind, 'statistical');
    const values = doc.steps.map((s) => (s.state === 'measured' ? [s.commit.subject, Math.round(s.value), s.build] : null));
    assert.deepEqual(values[0], ['base', 217, 'built']);
    assert.deepEqual(values[1], ['comment', 268, 'incremental']);
    assert.ok(doc.steps.every((s) => s.state === 'measured' && s.boots.every((b) => b.runId !== null && store.getRun(b.runId).status === 'complete')));
    const boots = guest.boots.length;
    const again = await runBisect(request, { store, lab: lab() });
    assert.equal(guest.boots.length, boots, 'a rerun boots nothing');
    assert.ok(doc.steps.every((s) => s.state === 'measured' && s.boots.length === 3));
    assert.equal(again.builds, 0);
    assert.deepEqual(checkoutState(src), before);
  }));

test('with --cost and --metric, the counter is bisected: the taken branches a commit adds are found, the instruction count aside', () =>
  inHistory(async (dir, store, src) => {
    // taken branches follow the hint only; instructions per call stay the same everywhere
    const guest = scriptedGuest({ taken: (image) => (image.includes('hint') ? 52 : 51) });
    const costPlugin = { path: join(dir, 'cost.so'), buildId: 'cost-test', qemuVersion: '7.2.22' };
    const lab = labOf(dir, src, store, guest, { cost: DEFAULT_COST_MODEL, metric: 'taken-branches/call' }, costPlugin);
    const metric = { subject: 'getppid', name: 'taken-branches/call', costModel: describeCostModel(DEFAULT_COST_MODEL) };
    const doc = await runBisect({ src, good: 'v1', bad: 'master', out: join(dir, 'area'), metric, keyInputs: {}, resume: false, command: 'hintlab bisect', target: null }, { store, lab });
    assert.equal(doc.outcome.state === 'found' ? doc.outcome.firstBad.subject : null, 'hint: cost 1');
    assert.deepEqual(doc.mode, { kind: 'exact', bootsPerStep: 1 }, 'the counter repeats exactly in every boot');
    assert.deepEqual(doc.steps.slice(0, 2).map((s) => s.state === 'measured' && s.value), [51, 52]);
  }));

test('with --stressor, the boots run stress-ng and the commit that costs the stressor a third of its bogo-ops is found', () =>
  inHistory(async (dir, store, src) => {
    const stressors = readFileSync(new URL('../macro/fixtures/stressors-0.15.06.txt', import.meta.url), 'utf8').split(/\s+/).filter(Boolean);
    const stressNg = fakeExecutor({ stressors, step: () => ({ yaml: null, result: { kind: 'exited', code: 0, stderr: '' } }) });
    // the scripted stress guest runs fifo and yield twice each; the bisect follows fifo
    const plan = await planVmMacro({ kernels: [], steps: [], stressors: ['fifo', 'yield'], sets: [], instances: '1', seconds: 2, repeats: 2, accel: 'tcg', icount: true, timeoutSeconds: 60, labelPrefix: 'x', command: 'x', hintlabVersion: 'test' }, stressNg);
    const rates = { A: { fifo: Array<number>(40).fill(3000), yield: Array<number>(40).fill(50000) }, B: { fifo: Array<number>(40).fill(2000), yield: Array<number>(40).fill(50000) } };
    const guest = stressGuest((image) => (readFileSync(image, 'utf8').includes('cost 50') ? 'B' : 'A'), [], rates);
    const stress = { plan, subject: 'fifo@1', seconds: 2, repeats: 2 };
    const lab = new KernelLab(
      { src, out: join(dir, 'area'), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 1, profile: findProfile('getppid')!, metric: 'icount-bogo-ops/s', stress, cost: null, ops: null, rounds: 1, warmups: 0, timeoutSeconds: 60, command: 'hintlab bisect', invocation: { argv: [], cwd: dir }, hintlabVersion: 'test' },
      { store, launcher: guest, probe: unusedProbe(dir), abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild() }, stressNgEntries: [] },
    );
    const metric = { subject: 'fifo@1', name: 'icount-bogo-ops/s', costModel: null };
    const doc = await runBisect({ src, good: 'v1', bad: 'master', out: join(dir, 'area'), metric, keyInputs: {}, resume: false, command: 'hintlab bisect', target: null }, { store, lab });
    assert.equal(doc.outcome.state === 'found' ? doc.outcome.firstBad.subject : null, 'copy the attr: cost 50');
    assert.deepEqual(doc.mode, { kind: 'exact', bootsPerStep: 1 });
    assert.deepEqual(doc.steps.slice(0, 2).map((s) => s.state === 'measured' && s.value), [3000, 2000]);
  }));
