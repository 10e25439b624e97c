import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeExecutor, standardFields, stressNgYamlText, type FakeStep } from '../../src/macro/fake.ts';
import type { Invocation } from '../../src/macro/executor.ts';
import { prepareMacro, runMacro, type MacroProgress, type MacroRequest } from '../../src/macro/runner.ts';
import { macroWarnings } from '../../src/macro/warnings.ts';
import { macroWarningText } from '../../src/report/macro.ts';
import { Store } from '../../src/store/store.ts';
import { fakeSys } from '../environment/fake-sys.ts';

const STRESSORS = ['fifo', 'futex', 'yield'];

function request(over: Partial<MacroRequest> = {}): MacroRequest {
  return {
    stressors: ['fifo', 'yield'],
    sets: [],
    instances: '1',
    seconds: 2,
    cooldownSeconds: 3,
    repeats: 2,
    cpuList: null,
    label: 'A',
    command: 'hintlab macro',
    hintlabVersion: 'test',
    ...over,
  };
}

const ok = (inv: Invocation, bogoOpsPerSec: number): FakeStep => ({
  yaml: stressNgYamlText(inv.stressor, [...standardFields(bogoOpsPerSec, inv.seconds), ['nanosecs-per-op', bogoOpsPerSec > 0 ? 1e9 / bogoOpsPerSec : 0]]),
  result: { kind: 'exited', code: 0, stderr: 'stress-ng: info:  [1] successful run completed in 2.00s\n' },
});

/** fifo reaches 1000 + 100 r bogo-ops/s in repeat r, yield 2000 + 200 r (r counted per stressor). */
function scripted(fail?: (inv: Invocation, call: number) => FakeStep | null) {
  const seen = new Map<string, number>();
  return fakeExecutor({
    stressors: STRESSORS,
    step(inv, call) {
      const failed = fail?.(inv, call);
      if (failed) return failed;
      const r = seen.get(inv.stressor) ?? 0;
      seen.set(inv.stressor, r + 1);
      return ok(inv, inv.stressor === 'fifo' ? 1000 + 100 * r : 2000 + 200 * r);
    },
  });
}

async function run(req: MacroRequest, executor: ReturnType<typeof scripted>, abort?: AbortController) {
  const store = Store.open(':memory:');
  const sleeps: number[] = [];
  const progress: MacroProgress[] = [];
  const plan = await prepareMacro(req, executor, fakeSys());
  const result = await runMacro(plan, {
    store,
    executor,
    reader: fakeSys(),
    abort: abort?.signal,
    sleep: async (ms) => void sleeps.push(ms),
    onProgress: (p) => progress.push(p),
  });
  return { result, sleeps, progress, plan };
}

test('every invocation is stored as one round with its exact bogo-ops/s, interleaved across repeats', async () => {
  const executor = scripted();
  const { result, sleeps } = await run(request(), executor);
  assert.equal(result.state, 'complete');
  const r = result.run;
  assert.equal(r.kind, 'macro');
  assert.equal(r.unit, 'bogo-ops/s');
  assert.equal(r.status, 'complete');
  assert.deepEqual(
    r.rounds.map((x) => [x.seq, x.subject, x.index, x.replicate, x.value, x.ops, x.total]),
    [
      [0, 'fifo@1', 0, 0, 1000, 1, 1000],
      [1, 'yield@1', 0, 0, 2000, 1, 2000],
      [2, 'fifo@1', 1, 1, 1100, 1, 1100],
      [3, 'yield@1', 1, 1, 2200, 1, 2200],
    ],
  );
  // every invocation is its own unit of replication
  assert.deepEqual(r.replicateUnit, { known: true, value: 'invocation' });
  const m = Object.fromEntries(r.rounds[2]!.metrics.map((x) => [x.name, [x.value, x.unit, x.direction]]));
  assert.deepEqual(m['bogo-ops'], [2200, 'bogo-ops', 'higher-is-better']);
  assert.deepEqual(m['bogo-ops-per-second-usr-sys-time'], [550, 'bogo-ops/s (usr+sys time)', 'higher-is-better']);
  assert.deepEqual(m['wall-clock-time'], [2, 's', 'lower-is-better']);
  assert.deepEqual(m['system-time'], [3, 's', 'lower-is-better']);
  assert.equal(m['nanosecs-per-op']![1], 'ns');
  assert.equal(m['bogo-ops-per-second-real-time'], undefined, 'the primary value is not repeated as a metric');
  // Three cool-downs between four invocations, none after the last.
  assert.deepEqual(sleeps, [3000, 3000, 3000]);
  assert.deepEqual(executor.calls.map((c) => [c.stressor, c.instances, c.seconds, c.cpuList]), [
    ['fifo', 1, 2, null], ['yield', 1, 2, null], ['fifo', 1, 2, null], ['yield', 1, 2, null],
  ]);
  // each invocation writes its YAML in the target's private directory, collected back by name
  assert.deepEqual(executor.calls.map((c) => c.yamlPath), ['round-0.yaml', 'round-1.yaml', 'round-2.yaml', 'round-3.yaml']);
});

test('the run records stress-ng version, subject parameters and no probe', async () => {
  const { result } = await run(request({ stressors: [], sets: ['sched'], instances: '1,all', repeats: 1, cpuList: '1' }), scripted());
  const r = result.run;
  // fakeSys allows CPUs 0-1; --cpu 1 leaves one usable CPU, so 'all' = 1 and folds into 1.
  assert.deepEqual(r.params.subjects, ['fifo@1', 'futex@1', 'yield@1']);
  assert.equal(r.params.cpu, 1);
  assert.equal(r.params.ops, null);
  assert.deepEqual(r.params.subjectParams['yield@1'], {
    stressor: 'yield', instances: 1, seconds: 2, cpuList: '1', stressNgVersion: '0.15.06',
    args: '--yield 1 --timeout 2s --metrics --yaml FILE --taskset 1',
  });
  const unavailable = r.params.extra['unavailable'] as { stressor: string }[];
  assert.equal(unavailable.length, 14);
  assert.ok(unavailable.some((u) => u.stressor === 'cpu-sched'));
  assert.deepEqual(r.environment['stressNg'], { version: '0.15.06' });
  assert.equal(r.environment['probe'], undefined);
  assert.deepEqual((r.environment['cpu'] as { model: unknown }).model, { known: true, value: 'Test CPU @ 3.00GHz' });
});

test('a stress-ng failure fails the run with stress-ng\'s own error lines; earlier rounds stay, nothing partial is added', async () => {
  const stderr = [
    'stress-ng: info:  [42] dispatching hogs: 1 fifo',
    'stress-ng: error: [43] fifo: mkfifo failed, errno=28 (No space left on device)',
    'stress-ng: info:  [42] unsuccessful run completed in 0.01s',
  ].join('\n');
  const executor = scripted((inv, call) => (call === 2 ? { yaml: ok(inv, 5).yaml, result: { kind: 'exited', code: 3, stderr } } : null));
  const { result } = await run(request(), executor);
  assert.equal(result.state, 'failed');
  assert.equal(result.run.status, 'failed');
  const expected =
    'fifo@1 repeat 2/2: stress-ng exited with status 3 (a stressor could not start: lack of resources (ENOMEM, ENOSPC) or a missing system call); stress-ng said:\n' +
    '  stress-ng: error: [43] fifo: mkfifo failed, errno=28 (No space left on device)\n' +
    '  stress-ng: info:  [42] unsuccessful run completed in 0.01s';
  assert.equal(result.run.error, expected);
  assert.deepEqual(result.run.rounds.map((x) => x.value), [1000, 2000]);
  assert.equal(executor.calls.length, 3, 'nothing runs after the failure');
});

test('a truncated YAML file after a clean exit fails the round, naming the file', async () => {
  const executor = scripted((inv, call) => (call === 1 ? { yaml: ok(inv, 7).yaml!.slice(0, 200), result: { kind: 'exited', code: 0, stderr: '' } } : null));
  const { result } = await run(request(), executor);
  assert.equal(result.state, 'failed');
  const yamlPath = executor.calls[1]!.yamlPath;
  assert.match(result.run.error!, new RegExp(`^yield@1 repeat 1/2: ${yamlPath}: truncated YAML`));
  assert.equal(result.run.rounds.length, 1);
});

test('a round with zero bogo ops is a failure, not a measurement', async () => {
  const executor = scripted((inv, call) => (call === 0 ? ok(inv, 0) : null));
  const { result } = await run(request(), executor);
  assert.equal(result.state, 'failed');
  assert.match(result.run.error!, /^fifo@1 repeat 1\/2: round-0\.yaml: stress-ng reported 0 bogo ops \(the stressor did no work\); stress-ng said:\n  stress-ng: info: .*successful run completed/);
  assert.equal(result.run.rounds.length, 0);
});

test('Ctrl-C during an invocation marks the run failed as interrupted and drops the round in flight', async () => {
  const abort = new AbortController();
  const executor = scripted((inv, call) => {
    if (call !== 1) return null;
    abort.abort();
    return ok(inv, 9999);
  });
  const { result } = await run(request(), executor, abort);
  assert.equal(result.state, 'interrupted');
  assert.equal(result.run.status, 'failed');
  assert.equal(result.run.error, 'interrupted during yield@1 repeat 1/2; 1 of 4 rounds stored, the run is incomplete');
  assert.deepEqual(result.run.rounds.map((x) => x.value), [1000]);
});

test('progress reports the subject, the repeat and the seconds the plan needs after each phase', async () => {
  const { progress, plan } = await run(request(), scripted());
  assert.equal(plan.plannedSeconds, 4 * 2 + 3 * 3);
  assert.deepEqual(
    progress.map((p) => [p.item.subject, p.item.repeat, p.phase, p.phaseSeconds, p.secondsAfterPhase]),
    [
      ['fifo@1', 0, 'running', 2, 15],
      ['fifo@1', 0, 'cooldown', 3, 12],
      ['yield@1', 0, 'running', 2, 10],
      ['yield@1', 0, 'cooldown', 3, 7],
      ['fifo@1', 1, 'running', 2, 5],
      ['fifo@1', 1, 'cooldown', 3, 2],
      ['yield@1', 1, 'running', 2, 0],
    ],
  );
});

test('bad --seconds, --repeats and --cpu values are refused before anything is stored', async () => {
  await assert.rejects(prepareMacro(request({ seconds: 0 }), scripted(), fakeSys()), /--seconds 0/);
  await assert.rejects(prepareMacro(request({ repeats: 0 }), scripted(), fakeSys()), /--repeats 0/);
  await assert.rejects(prepareMacro(request({ cpuList: '5' }), scripted(), fakeSys()), /--cpu 5: CPU 5 is not in this process's allowed CPUs \(0-1\)/);
});

test('a stressor that used almost no CPU is flagged as stalled', async () => {
  const executor = scripted();
  const { result } = await run(request({ repeats: 1 }), executor);
  const r = result.run;
  // standardFields writes 100 % CPU per instance; rewrite fifo's to the 0.07 % seen from a starved schedpolicy.
  const stalled = { ...r, rounds: r.rounds.map((x) => (x.subject === 'fifo@1' ? { ...x, metrics: x.metrics.map((m) => (m.name === 'cpu-usage-per-instance' ? { ...m, value: 0.07 } : m)) } : x)) };
  assert.deepEqual(macroWarnings(r), []);
  assert.deepEqual(macroWarnings(stalled).map((w) => [w.kind, w.subject]), [['stalled', 'fifo@1']]);
  assert.match(macroWarningText(macroWarnings(stalled)[0]!), /^fifo@1: the stressor used 0\.07 % CPU per instance on average/);
});
