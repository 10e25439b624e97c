/**
 * Against the real stress-ng (Debian's package): a couple of seconds.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { processExecutor, stressNgJob } from '../../src/macro/executor.ts';
import { invocationFailure } from '../../src/macro/failure.ts';
import { prepareMacro, runMacro } from '../../src/macro/runner.ts';
import { invocationResult } from '../../src/macro/session.ts';
import { Store } from '../../src/store/store.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const skip = requireAll(requireTool('stress-ng', 'stress-ng'), requireTool('ps', 'procps'));

/** The version the installed stress-ng reports. */
const installedVersion = (): string | undefined => /version (\S+)/.exec(execFileSync('stress-ng', ['--version'], { encoding: 'utf8' }))?.[1];

/** Processes whose command name starts with stress-ng (stressors rename themselves stress-ng-NAME). */
function stressNgPids(): string[] {
  return execFileSync('ps', ['-eo', 'pid=,comm='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => /^\s*\d+\s+stress-ng/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]!);
}

test('a real stress-ng run of yield, 1 instance, 1 s x 2 repeats, stores two consistent rounds', { skip }, async () => {
  const executor = processExecutor();
  const store = Store.open(':memory:');
  const plan = await prepareMacro(
    { stressors: ['yield'], sets: [], instances: '1', seconds: 1, cooldownSeconds: 0, repeats: 2, cpuList: null, label: null, command: 'test', hintlabVersion: 'test' },
    executor,
  );
  const result = await runMacro(plan, { store, executor });
  assert.equal(result.state, 'complete', result.state !== 'complete' ? result.reason : '');
  const run = result.run;
  assert.deepEqual(run.environment['stressNg'], { version: installedVersion() });
  assert.deepEqual(run.rounds.map((r) => [r.subject, r.index]), [['yield@1', 0], ['yield@1', 1]]);
  for (const r of run.rounds) {
    const metric = (name: string): number => r.metrics.find((m) => m.name === name)!.value;
    // stress-ng's real-time rate is its bogo-op count over its wall-clock time.
    assert.ok(Math.abs(r.value - metric('bogo-ops') / metric('wall-clock-time')) / r.value < 1e-3);
    // -t 1 runs for about one second.
    assert.ok(metric('wall-clock-time') > 0.9 && metric('wall-clock-time') < 1.5, `wall ${metric('wall-clock-time')} s`);
    assert.equal(r.metrics.find((m) => m.name === 'ns-duration-per-schedyield-call')?.unit, 'ns');
  }
});

test('stress-ng refusing a CPU outside its range fails with its own message', { skip }, async () => {
  const stressNg = processExecutor();
  const exit = await stressNg.target.run(
    stressNgJob(stressNg.program, { stressor: 'yield', instances: 1, seconds: 1, cpuList: '4095', yamlPath: 'x.yaml' }),
    () => {},
    new AbortController().signal,
  );
  assert.match(invocationFailure(invocationResult(exit, 1)) ?? '', /^stress-ng exited with status 1 \(error: bad options.*\); stress-ng said:\n  taskset: invalid range, 4095 is not allowed/);
});

test('aborting a real stress-ng stops its whole process group quickly', { skip }, async () => {
  const before = stressNgPids();
  const abort = new AbortController();
  const started = Date.now();
  setTimeout(() => abort.abort(), 500);
  const stressNg = processExecutor();
  const exit = await stressNg.target.run(stressNgJob(stressNg.program, { stressor: 'yield', instances: 2, seconds: 30, cpuList: null, yamlPath: 'x.yaml' }), () => {}, abort.signal);
  // stress-ng stops its stressors on SIGINT and exits by itself; the run counts it as interrupted either way
  assert.ok(exit.end.kind === 'exited' || exit.end.kind === 'aborted', JSON.stringify(exit.end));
  assert.ok(Date.now() - started < 10_000);
  // Neither stress-ng nor any stressor process it forked survives.
  assert.deepEqual(stressNgPids().filter((p) => !before.includes(p)), []);
});
