/**
 * The run driver over a scripted target and a counting session: when runs
 * are created and finished, what a failure stops, and what an abort
 * between segments does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Store, StoreError } from '../../src/store/store.ts';
import { drive, type DriveSpec, type LineSession, type SessionOutcome } from '../../src/targets/driver.ts';
import { scriptedTarget } from '../../src/targets/fake.ts';
import type { TargetExit } from '../../src/targets/target.ts';

/** Counts lines; a segment is complete when its job printed `ok` and exited 0. */
class CountingSession implements LineSession {
  lines: string[] = [];
  private readonly stop = new AbortController();
  readonly stopped = this.stop.signal;
  storeFailure: StoreError | null = null;
  /** A line `full` is a round the store could not take. */
  feed(line: string): void {
    this.lines.push(line);
    if (line !== 'full') return;
    this.storeFailure = new StoreError('/tmp/h.db', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'storing round 3 of run #1');
    this.stop.abort();
  }
  outcome(exit: TargetExit): SessionOutcome {
    const ok = exit.end.kind === 'exited' && exit.end.code === 0 && this.lines.at(-1) === 'ok';
    return ok ? { state: 'complete', rounds: this.lines.length } : { state: 'failed', reason: `job ended with ${this.lines.at(-1)}` };
  }
}

function setup(results: string[], over: Partial<DriveSpec> = {}, runCount = 2) {
  const store = Store.open(':memory:');
  const target = scriptedTarget((job) => ({ lines: [job.args[0]!] }));
  const opened: string[] = [];
  const runs = Array.from({ length: runCount }, (_, i) => ({
    open: () => {
      opened.push(`run ${i}`);
      const runId = store.createRun({ label: `r${i}`, kind: 'bench', unit: 'ns/call', replicateUnit: 'process', command: 'test', hintlabVersion: 't', params: { subjects: [], ops: null, warmups: 0, rounds: 1, cpu: null, subjectParams: {}, extra: {} }, environment: {} });
      return { runId, session: new CountingSession() };
    },
  }));
  const spec: DriveSpec = {
    store,
    abort: new AbortController().signal,
    runs,
    segments: results.map((r, i) => ({ run: i % runCount, target, what: 'the job', job: { program: { path: '/bin/true' }, args: [r] } })),
    stopOnFailure: true,
    together: true,
    ...over,
  };
  return { store, spec, opened, target };
}

const statuses = (store: Store) => store.listRuns().map((r) => [r.label, r.status, r.error]);

test('a failed segment stops the drive: its run fails with the reason, the partner with the stopped reason', async () => {
  const { store, spec, target } = setup(['ok', 'ok', 'bad', 'ok'], { stoppedReason: (s) => `partner stopped: ${s.kind === 'failed' ? s.reason : ''}` });
  const result = await drive(spec);
  assert.equal(target.jobs.length, 3, 'the segment after the failure never ran');
  assert.deepEqual(result.stop, { kind: 'failed', segment: 2, run: 0, runId: 1, reason: 'job ended with bad' });
  assert.deepEqual(statuses(store), [
    ['r0', 'failed', 'job ended with bad'],
    ['r1', 'failed', 'partner stopped: job ended with bad'],
  ]);
});

test('without stopOnFailure every segment runs, and each run is finished after its own last segment', async () => {
  const { store, spec } = setup(['ok', 'bad', 'ok'], { stopOnFailure: false, together: false }, 3);
  const finishedAt: string[][] = [];
  spec.onSegmentEnd = () => finishedAt.push(store.listRuns().map((r) => r.status));
  const result = await drive(spec);
  assert.equal(result.stop, null);
  assert.deepEqual(finishedAt, [['complete'], ['complete', 'failed'], ['complete', 'failed', 'complete']]);
});

test('runs are created when their first segment starts, never for segments that did not run', async () => {
  const ctl = new AbortController();
  const { store, spec, opened } = setup(['ok', 'ok', 'ok'], { abort: ctl.signal, together: false, stopOnFailure: false }, 3);
  spec.onSegmentEnd = (r) => r.index === 0 && ctl.abort();
  const result = await drive(spec);
  assert.deepEqual(opened, ['run 0']);
  assert.deepEqual(result.stop, { kind: 'interrupted', done: 1, total: 3 });
  assert.equal(result.interrupted, true);
  assert.deepEqual(result.runIds, [1, null, null]);
  assert.deepEqual(statuses(store), [['r0', 'complete', null]]);
});

test('runs created before the drive are all finished when it stops in the first segment, the unstarted one included', async () => {
  const ctl = new AbortController();
  const store = Store.open(':memory:');
  const make = (label: string) => store.createRun({ label, kind: 'bench', unit: 'ns/call', replicateUnit: 'process', command: 'test', hintlabVersion: 't', params: { subjects: [], ops: null, warmups: 0, rounds: 1, cpu: null, subjectParams: {}, extra: {} }, environment: {} });
  const sides = [make('A'), make('B')].map((runId) => ({ runId, session: new CountingSession() }));
  // the first job (A's) is interrupted: it ends without 'ok', so its segment fails
  const target = scriptedTarget(() => ({ lines: ['interrupted'] }));
  const result = await drive({
    store,
    abort: ctl.signal,
    runs: sides.map((s) => ({ open: () => s, createdBefore: true })),
    segments: [0, 1, 1, 0].map((run) => ({ run, target, what: 'the job', job: { program: { path: '/bin/true' }, args: [] } })),
    stopOnFailure: true,
    together: true,
    stoppedReason: () => 'stopped with its partner',
  });
  assert.equal(result.stop?.kind, 'failed');
  assert.deepEqual(statuses(store), [
    ['A', 'failed', 'job ended with interrupted'],
    ['B', 'failed', 'stopped with its partner'],
  ]);
});

test('an abort between segments with interruptedBefore fails the next segment with that reason', async () => {
  const ctl = new AbortController();
  const { store, spec, target } = setup(['ok', 'ok', 'ok', 'ok'], { abort: ctl.signal, interruptedBefore: () => 'interrupted before the next job' });
  spec.onSegmentEnd = (r) => r.index === 1 && ctl.abort();
  const result = await drive(spec);
  assert.equal(target.jobs.length, 2);
  assert.equal(result.stop?.kind, 'failed');
  assert.deepEqual(statuses(store), [
    ['r0', 'failed', 'interrupted before the next job'],
    ['r1', 'failed', 'interrupted before the next job'],
  ]);
});

test('a job that cannot be started fails its segment naming what was run', async () => {
  const { store, spec } = setup(['ok'], {}, 1);
  spec.segments[0]!.target = { ...spec.segments[0]!.target, run: () => Promise.reject(new Error('spawn /x ENOENT')) };
  await drive(spec);
  assert.deepEqual(statuses(store), [['r0', 'failed', 'cannot run the job: spawn /x ENOENT']]);
});

test('a run whose segments all completed is complete, with its final environment recorded', async () => {
  const { store, spec } = setup(['ok', 'ok'], {}, 1);
  spec.runs[0]!.finalEnvironment = () => ({ load: { start: { known: true, value: [0.1, 0.2, 0.3] } } });
  await drive(spec);
  assert.deepEqual(statuses(store), [['r0', 'complete', null]]);
  assert.deepEqual(store.getRun(1).environment.load, { start: { known: true, value: [0.1, 0.2, 0.3] } });
});

test('a round the store could not take: the partners are marked failed, then the run is abandoned with the store error', async () => {
  const { store, spec } = setup(['ok', 'ok', 'full', 'ok'], { stoppedReason: (s) => `partner stopped at segment ${s.kind === 'failed' ? s.segment : -1}: ${s.kind === 'failed' ? s.reason : ''}` });
  await assert.rejects(drive(spec), (err: unknown) => err instanceof StoreError && /run #1 \(r0\) keeps its 0 committed measured rounds and is marked failed/.test(err.message));
  assert.deepEqual(statuses(store).map(([label, status]) => [label, status]), [['r0', 'failed'], ['r1', 'failed']]);
  assert.equal(statuses(store)[1]![2], 'partner stopped at segment 2: a round could not be stored');
});
