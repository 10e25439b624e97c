/**
 * runTrial with --stressor on the mini tree (./fakes.ts: a real gcc build,
 * real patch(1) and objdump) and scripted guests: the stress step after
 * the profile boots in the same order, its runs compared per stressor
 * with the regressions and geometric mean, in every report format; a
 * rerun reuses it; an unknown stressor stops the trial before A builds.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findProfile } from '../../src/bench/profiles.ts';
import { parseScenarios } from '../../src/behave/scenario.ts';
import { fakeExecutor } from '../../src/macro/fake.ts';
import { trialHtml } from '../../src/report/trial-html.ts';
import { trialJson } from '../../src/report/trial-json.ts';
import { trialMarkdown } from '../../src/report/trial-md.ts';
import { trialLkml, trialText } from '../../src/report/trial.ts';
import { Store } from '../../src/store/store.ts';
import type { TrialDeps, TrialRequest } from '../../src/trial/request.ts';
import { runTrial } from '../../src/trial/run.ts';
import type { BootRequest, VmLauncher } from '../../src/launch/qemu.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { existsSync, writeFileSync } from 'node:fs';
import { requireAll, requireTool } from '../helpers/tools.ts';
import { miniBuild, miniPatch, miniTree, scriptedGuest, stressGuest, unusedProbe } from './fakes.ts';

const skip = requireAll(requireTool('patch', 'patch'), requireTool('objdump', 'binutils'));
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = unusedProbe(dir);
const src = miniTree(dir);
const hint = miniPatch(src, dir, 'hint.patch', 'kernel/sys_impl.c', '\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 1))');
const STRESSORS = readFileSync(new URL('../macro/fixtures/stressors-0.15.06.txt', import.meta.url), 'utf8').split(/\s+/).filter(Boolean);
const stressNg = fakeExecutor({ stressors: STRESSORS, step: () => ({ yaml: null, result: { kind: 'exited', code: 0, stderr: '' } }) });

function request(name: string, stressors: string[]): TrialRequest {
  return {
    src, patches: [hint], out: join(dir, name), base: 'tinyconfig', fragment: null, opt: 'O2', jobs: 2, debugChecks: false,
    scenarios: parseScenarios('scenario tiny\nsetpriority pid=self nice=3\n', 'tiny.scn'), scenarioArgs: ['tiny.scn'],
    profiles: [findProfile('getppid')!], profileArgs: ['getppid'], ops: 1000, rounds: 5, warmups: 1, repeat: 3, kvm: false,
    stress: { stressors, sets: [], instances: '1', seconds: 1, repeats: 2 },
    maxObjects: 8, thresholdPct: 1, timeoutSeconds: 60, command: 'hintlab trial ...',
    invocation: { argv: ['trial', '--src', src, '--patch', hint, '--stressor', stressors.join(',')], cwd: dir }, db: null, hintlabVersion: 'test',
  };
}

/** Stressor boots (512 MiB guests) go to the stress guest, the others to the trial's scripted guest. */
function launcher(name: string, stressBoots: string[][]): VmLauncher {
  const other = scriptedGuest();
  const bKey = () => (JSON.parse(readFileSync(join(dir, name, 'B', 'hintlab-kernel.json'), 'utf8')) as { inputKey: string }).inputKey;
  const stress = stressGuest((image) => (readFileSync(image, 'utf8').includes(bKey()) ? 'B' : 'A'), stressBoots);
  return { boot: (req: BootRequest) => (req.argv[req.argv.indexOf('-m') + 1] === '512M' ? stress : other).boot(req) };
}

function deps(store: Store, guest: VmLauncher, built: string[], notes: string[] = []): TrialDeps {
  return { store, launcher: guest, probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild(built) }, stressNg, stressNgEntries: [], onNote: (l) => notes.push(l) };
}

test('--stressor: a stress step after the profile boots, same order, compared per stressor, in every format; a rerun reuses it', { skip }, async () => {
  const store = Store.open(join(dir, 'stress.db'));
  try {
    const stressBoots: string[][] = [];
    const built: string[] = [];
    const doc = await runTrial(request('stress', ['fifo', 'yield']), deps(store, launcher('stress', stressBoots), built));
    assert.deepEqual(doc.steps.map((s) => `${s.name}:${s.state}`), ['build-A:done', 'build-B:done', 'codegen:done', 'behave:done', 'vm:done', 'stress:done']);
    const s = doc.stressors!;
    assert.deepEqual([s.order.join(''), s.unit, s.icount, s.runs.A.label, s.runs.B.label], ['ABBAAB', 'icount-bogo-ops/s', true, `trial${doc.trialId}-stress-A`, `trial${doc.trialId}-stress-B`]);
    assert.equal(stressBoots.length, 6);
    assert.ok(stressBoots.every((a) => a.join(' ').includes('-icount shift=0')));
    assert.deepEqual(s.comparison.regressions, ['fifo@1']);
    assert.deepEqual(s.comparison.subjects.map((x) => [x.subject, x.runs.map((r) => r.units), x.verdict.verdict]), [['fifo@1', [3, 3], 'slower'], ['yield@1', [3, 3], 'faster']]);
    assert.deepEqual(doc.reproduce.filter((r) => r.part === 'compare').map((r) => r.argv.slice(1, 3)), [[doc.measured.runs.A.label, doc.measured.runs.B.label], [s.runs.A.label, s.runs.B.label]]);

    const ctx = { generatedAt: '2026-12-03T09:00:00Z' };
    const lkml = trialLkml(doc, ctx);
    assert.ok(lkml.split('\n').every((l) => l.length <= 72), lkml);
    assert.match(lkml.replace(/\n\s*/g, ' '), /Stressors \(stress-ng 0\.15\.06, qemu tcg -icount, bogo-ops per guest second: 10\^9 guest instructions, not real time\)/);
    assert.match(lkml, /Slower \(regressions\): fifo@1\./);
    assert.match(lkml, /Geometric mean of B\/A over 2 subjects/);
    const text = trialText(doc, ctx);
    assert.match(text, /Stressors: stress-ng 0\.15\.06 in qemu tcg -icount, bogo-ops per guest second/);
    assert.match(text, /fifo@1/);
    assert.match(trialMarkdown(doc, ctx), /## Stressors[\s\S]*Slower \(regressions\): fifo@1\./);
    assert.match(trialHtml(doc, ctx), /<section id="stressors"><h2>Stressors<\/h2>/);
    const json = JSON.parse(trialJson(doc, ctx)) as { stressors: { unitFieldSuffix: string; unit: string; comparison: { regressions: string[]; subjects: Record<string, unknown>[] } } };
    assert.deepEqual([json.stressors.unit, json.stressors.unitFieldSuffix, json.stressors.comparison.regressions], ['icount-bogo-ops/s', 'BogoOpsPerGuestSecond', ['fifo@1']]);
    assert.ok(JSON.stringify(json.stressors.comparison).includes('BogoOpsPerGuestSecond'));

    const again = await runTrial(request('stress', ['fifo', 'yield']), deps(store, launcher('stress', stressBoots), built));
    assert.equal(stressBoots.length, 6, 'nothing booted again');
    assert.deepEqual(again.steps.at(-1)!.state, 'reused');
    assert.deepEqual(again.stressors!.runs, s.runs);
  } finally {
    store.close();
  }
});

test('an unknown --stressor stops the trial before anything builds, naming the closest one', { skip }, async () => {
  const store = Store.open(join(dir, 'unknown.db'));
  try {
    const built: string[] = [];
    await assert.rejects(runTrial(request('unknown', ['fifo', 'yeld']), deps(store, launcher('unknown', []), built)), /--stressor yeld: stress-ng 0\.15\.06 has no stressor 'yeld' \(did you mean 'yield'\?\)/);
    assert.deepEqual(built, []);
  } finally {
    store.close();
  }
});

test('the CLI: --set sched says once on stderr what the installed stress-ng lacks, then the stress step runs; --stressor yeld exits 2 before building', { skip }, async () => {
  const scenario = join(dir, 'tiny.scn');
  writeFileSync(scenario, 'scenario tiny\nsetpriority pid=self nice=3\n');
  // a stress-ng that has only fifo and yield of the scheduler set
  const few = fakeExecutor({ version: '0.15.06', stressors: ['cpu', 'fifo', 'yield'], step: () => ({ yaml: null, result: { kind: 'exited', code: 0, stderr: '' } }) });
  const services = (name: string) => ({ trial: { services: { buildKernel: miniBuild() }, launcher: launcher(name, []), probe, cacheDir: dir, stressNg: few, stressNgEntries: [] } });
  const argv = (name: string, extra: string[]) => ['trial', '--src', src, '--patch', hint, '--out', join(dir, name), '--db', join(dir, `${name}.db`), '--scenario', scenario, '--profile', 'getppid', '--ops', '1000', '--no-cost', ...extra];
  const r = await runCli(argv('cli-set', ['--set', 'sched', '--stressor-seconds', '1']), { services: services('cli-set') });
  assert.equal(r.code, 0, r.stderr);
  const lacking = 'stress-ng 0.15.06 lacks 15 of the stressors asked for (cpu-sched, flipflop, futex, mq, msg, mtx, mutex, poll, prio-inv, pthread, race-sched, schedmix, schedpolicy, switch, tee); measuring the other 2\n';
  assert.ok(r.stderr.startsWith(lacking), r.stderr);
  assert.equal(r.stderr.split(lacking).length, 2, 'said once');
  assert.match(r.stderr, /\[6\/6\] stress \d+\.\d s: 10 boots \(A B B A A B B A A B\), 2 stressors x 1 s, qemu -icount: bogo-ops per guest second; runs trial1-stress-A, trial1-stress-B\n/);
  assert.match(r.stdout, /Slower \(regressions\): fifo@1\./);

  const bad = await runCli(argv('cli-bad', ['--stressor', 'fifo,yeld']), { services: services('cli-bad') });
  assert.deepEqual([bad.code, bad.stderr], [2, "hintlab: --stressor yeld: stress-ng 0.15.06 has no stressor 'yeld' (did you mean 'yield'?); 'stress-ng --stressors' lists the ones it has\n"]);
  assert.equal(existsSync(join(dir, 'cli-bad', 'A')), false, 'nothing built');
});
