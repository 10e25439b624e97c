/**
 * The session state machine on a scripted box (./fake-box.ts) and a real
 * SQLite store: the order of boots and runs, what each step stores (one
 * run per boot, the boot its one unit, the session in its params and
 * environment), failures of a boot or of a measurement, a step caught in
 * the middle by a hintlab that died, Ctrl-C, --keep-on-failure, and the
 * resumed session doing exactly the steps left.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { designOf } from '../../src/compare/design.ts';
import { mergeRuns } from '../../src/compare/merge.ts';
import { PLAN_VERSION, planSteps, sessionKernel, type SessionPlan } from '../../src/session/plan.ts';
import { INTERRUPTED_STEP, runSession, type SessionDeps } from '../../src/session/runner.ts';
import { Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/cli.ts';
import { writeFakeBzImage } from './bzimage.ts';
import { FakeBox, HOME, probeBuild } from './fake-box.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const imageA = writeFakeBzImage(join(dir, 'vmlinuz-a'), '6.1.0-47-cloud-amd64', '#1 SMP Debian 6.1.170-3');
const imageB = writeFakeBzImage(join(dir, 'vmlinuz-b'), '6.1.0-57-cloud-amd64', '#1 SMP Debian 6.1.192-3');

function plan(over: Partial<SessionPlan> = {}): SessionPlan {
  return {
    version: PLAN_VERSION,
    target: 'ssh://root@box1',
    kernels: [sessionKernel('A', imageA, null), sessionKernel('B', imageB, null)],
    order: ['A', 'B', 'A'],
    bench: { profiles: ['getppid'], ops: 1000, warmups: 1, rounds: 4, processes: 2, cpu: null },
    labelPrefix: 'P-',
    append: null,
    bootTimeoutSeconds: 60,
    watchdogSeconds: 30,
    keepOnFailure: false,
    ...over,
  };
}

let dbs = 0;
function newSession(p: SessionPlan = plan()): { store: Store; id: number } {
  const store = Store.open(join(dir, `s${++dbs}.db`));
  const id = store.sessions.create({ target: p.target, plan: p, command: 'hintlab session ...' }, (n) => planSteps(p, n));
  return { store, id };
}

function deps(store: Store, box: FakeBox, abort = new AbortController().signal): SessionDeps {
  return { store, probe: probeBuild, abort, connect: async () => box, command: 'hintlab session ...', hintlabVersion: 'test' };
}

test('an A/B/A session boots each kernel in order, stores each boot as its own run with the boot as its one unit, and ends with the box home', async () => {
  const { store, id } = newSession();
  const box = new FakeBox(HOME);
  const result = await runSession(id, deps(store, box));
  assert.equal(result.state, 'complete', result.failure ?? '');
  assert.deepEqual(box.log.map((l) => l.replace(/ s\d+-(\d)-[0-9a-f]{4}$/, ' step$1')), [
    'boot A step1', 'probe on A', 'probe on A',
    'boot B step2', 'probe on B', 'probe on B',
    'boot A step3', 'probe on A', 'probe on A',
    'ensureConnected', 'returnHome', 'close',
  ]);
  const steps = result.session.steps;
  assert.deepEqual(steps.map((s) => [s.runLabel, s.status, s.attempts]), [['P-A-1', 'complete', 1], ['P-B-1', 'complete', 1], ['P-A-2', 'complete', 1]]);
  assert.equal(result.session.box, 'home');
  assert.deepEqual(result.returned.state, 'home');
  const runs = steps.map((s) => store.getRun(s.runId!));
  for (const [i, run] of runs.entries()) {
    assert.equal(run.kind, 'bench');
    assert.deepEqual(run.replicateUnit, { known: true, value: 'boot' });
    // two probe processes in one boot: one unit, 4 measured rounds
    assert.deepEqual([...new Set(run.rounds.map((r) => r.replicate))], [0]);
    assert.equal(run.rounds.filter((r) => !r.warmup).length, 4);
    assert.equal(run.params.extra.session, id);
    assert.equal(run.params.extra.step, i + 1);
    assert.equal(run.environment.where, 'remote');
    assert.equal((run.environment.session as { boot: { method: string } }).boot.method, 'kexec');
  }
  assert.deepEqual(runs.map((r) => [r.params.extra.kernelLabel, r.params.extra.bootIndex]), [['A', 1], ['B', 1], ['A', 2]]);
  // A's rounds: 100 + round ns (warm-up 100, then 101, 102 in each process); B's 120 + round
  assert.deepEqual(runs[0]!.rounds.filter((r) => !r.warmup).map((r) => r.value), [101, 102, 101, 102]);
  assert.deepEqual(runs[1]!.rounds.filter((r) => !r.warmup).map((r) => r.value), [121, 122, 121, 122]);
  // boots as units: the two A boots join as one side of two units, and the design is "boots"
  const a = mergeRuns([runs[0]!, runs[2]!]);
  assert.deepEqual([...new Set(a.rounds.map((r) => r.replicate))], [0, 1]);
  assert.equal(designOf(a, runs[1]!).kind, 'boots');
  store.close();
});

test('a boot that fails stops the session, the box goes home, and the resumed session boots that step again and finishes', async () => {
  const { store, id } = newSession();
  const first = new FakeBox(HOME, { boot: (_k, n) => (n === 1 ? new Error('the box did not answer on a new boot within 60.0 s of kexec -e') : undefined) });
  const failed = await runSession(id, deps(store, first));
  assert.equal(failed.state, 'failed');
  assert.match(failed.failure ?? '', /^booting kernel B failed: the box did not answer on a new boot within 60\.0 s of kexec -e$/);
  assert.deepEqual(failed.session.steps.map((s) => s.status), ['complete', 'failed', 'pending']);
  assert.equal(failed.session.steps[1]!.runId, null, 'a boot that failed measured nothing, so it has no run');
  assert.deepEqual(first.log.slice(-3), ['ensureConnected', 'returnHome', 'close']);
  assert.equal(failed.session.box, 'home');
  assert.equal(failed.session.status, 'failed');

  store.sessions.claim(id);
  const second = new FakeBox(HOME);
  const resumed = await runSession(id, deps(store, second));
  assert.equal(resumed.state, 'complete', resumed.failure ?? '');
  assert.deepEqual(second.log.filter((l) => l.startsWith('boot')).map((l) => l.split(' ')[1]), ['B', 'A']);
  assert.deepEqual(resumed.session.steps.map((s) => [s.status, s.attempts]), [['complete', 1], ['complete', 2], ['complete', 1]]);
  assert.equal(store.listRuns().length, 3);
  store.close();
});

test('a measurement cut off by a lost connection keeps its rounds in a failed run; the resumed step measures again in a new run of the same label', async () => {
  const { store, id } = newSession();
  const box = new FakeBox(HOME, {
    // the first probe process on B: a warm-up and one measured round, then the connection goes
    probe: (_job, n) =>
      n !== 2
        ? undefined
        : {
            lines: ['@hl1 hello proto=1 kernel=x version=x machine=x86_64 pid1=0', '@hl1 round profile=getppid idx=0 warmup=1 ops=1000 elapsed=120000 cpu=1', '@hl1 round profile=getppid idx=0 warmup=0 ops=1000 elapsed=121000 cpu=1'],
            end: { kind: 'lost', reason: 'the ssh master connection was killed by SIGKILL' },
          },
  });
  const failed = await runSession(id, deps(store, box));
  assert.equal(failed.state, 'failed');
  assert.match(failed.failure ?? '', /the target went away under the probe: the ssh master connection was killed by SIGKILL/);
  assert.match(failed.failure ?? '', /run #2 \(P-B-1\) is marked failed; its 1 measured rounds are kept for inspection but never used as valid data/);
  const lost = store.getRun(2);
  assert.equal(lost.status, 'failed');
  assert.equal(lost.rounds.filter((r) => !r.warmup).length, 1);
  assert.equal(failed.session.steps[1]!.runId, 2);

  store.sessions.claim(id);
  const resumed = await runSession(id, deps(store, new FakeBox(HOME)));
  assert.equal(resumed.state, 'complete');
  assert.equal(store.getRun(2).status, 'failed', 'the failed attempt stays failed');
  const again = store.resolveRun('P-B-1');
  assert.notEqual(again.id, 2);
  assert.equal(again.status, 'complete');
  assert.equal(resumed.session.steps[1]!.runId, again.id);
  store.close();
});

test('a step caught in the middle by a hintlab that died has its run marked failed on resume, and is done again', async () => {
  const { store, id } = newSession();
  // what a killed hintlab leaves: step 1 measuring, its run still 'running'
  store.sessions.stepStarted(id, 0, 's1-1-dead');
  store.sessions.stepBooted(id, 0, { method: 'kexec' });
  const stale = store.createRun({ label: 'P-A-1', kind: 'bench', unit: 'ns/call', replicateUnit: 'boot', command: 'x', hintlabVersion: 'test', params: { subjects: ['getppid'], ops: 1000, warmups: 1, rounds: 4, cpu: 1, subjectParams: {}, extra: {} }, environment: {} });
  store.sessions.stepRun(id, 0, stale);
  const result = await runSession(id, deps(store, new FakeBox(HOME)));
  assert.equal(result.state, 'complete');
  assert.equal(store.getRun(stale).status, 'failed');
  assert.equal(store.getRun(stale).error, INTERRUPTED_STEP);
  assert.deepEqual(result.session.steps.map((s) => s.attempts), [2, 1, 1]);
  assert.notEqual(result.session.steps[0]!.runId, stale);
  store.close();
});

test('Ctrl-C during a step interrupts the session; the box is still returned home, on a signal that has not fired', async () => {
  const { store, id } = newSession();
  const ctrlC = new AbortController();
  const box = new FakeBox(HOME, {
    probe: (_job, n) => {
      if (n !== 1) return undefined;
      ctrlC.abort();
      return { lines: ['@hl1 hello proto=1 kernel=x version=x machine=x86_64 pid1=0', '@hl1 interrupted signal=15'], code: 130 };
    },
  });
  const result = await runSession(id, deps(store, box, ctrlC.signal));
  assert.equal(result.state, 'interrupted');
  assert.deepEqual(result.session.steps.map((s) => s.status), ['failed', 'pending', 'pending']);
  assert.ok(box.log.includes('returnHome'), box.log.join(', '));
  assert.ok(!box.log.some((l) => l.includes('aborted signal')));
  assert.equal(result.session.status, 'interrupted');
  store.close();
});

test('with --keep-on-failure a failed step leaves the box on its test kernel, the watchdog cancelled, and the session says so', async () => {
  const { store, id } = newSession(plan({ keepOnFailure: true }));
  const box = new FakeBox(HOME, { boot: (_k, n) => (n === 1 ? new Error('kexec -l on box1 failed: Operation not permitted') : undefined) });
  const result = await runSession(id, deps(store, box));
  assert.deepEqual(result.returned, { state: 'kept', release: '6.1.0-47-cloud-amd64' });
  assert.ok(box.log.includes('disarm'));
  assert.ok(!box.log.includes('returnHome'));
  assert.equal(result.session.box, 'away');
  store.close();
});

test('a box that cannot be returned leaves the session failed, its box not known, with the reason', async () => {
  const { store, id } = newSession();
  const result = await runSession(id, deps(store, new FakeBox(HOME, { returnHome: () => new Error('rebooting ssh://root@box1 failed (exit 1): reboot: not permitted') })));
  assert.equal(result.state, 'failed');
  assert.match(result.failure ?? '', /^the box was not given back: rebooting ssh:\/\/root@box1 failed \(exit 1\): reboot: not permitted$/);
  assert.equal(result.session.box, 'unknown');
  assert.deepEqual(result.session.steps.map((s) => s.status), ['complete', 'complete', 'complete']);
  store.close();
});

test('a new session refuses a box an earlier session left on one of its test kernels, before anything boots', async () => {
  const { store, id } = newSession();
  const box = new FakeBox({ ...HOME, cmdline: 'root=/dev/vda ro hintlab.boot=s9-2-abcd' }, { cmdline: 'root=/dev/vda ro hintlab.boot=s9-2-abcd' });
  await assert.rejects(runSession(id, deps(store, box)), /runs a kernel an earlier hintlab session booted \(hintlab\.boot=s9-2-abcd on its command line/);
  assert.deepEqual(box.log, ['close']);
  assert.equal(store.sessions.get(id)!.status, 'failed');
  store.close();
});

test('a box that cannot be reached fails the session with ssh\'s words, nothing booted, the session resumable', async () => {
  const { store, id } = newSession();
  const unreachable: SessionDeps = { ...deps(store, new FakeBox(HOME)), connect: async () => Promise.reject(new Error('cannot reach ssh://root@box1 (ssh: Connection refused)')) };
  await assert.rejects(runSession(id, unreachable), /cannot reach ssh:\/\/root@box1 \(ssh: Connection refused\)/);
  const rec = store.sessions.get(id)!;
  assert.equal(rec.status, 'failed');
  assert.equal(rec.error, 'cannot reach ssh://root@box1 (ssh: Connection refused)');
  assert.deepEqual(rec.steps.map((s) => s.status), ['pending', 'pending', 'pending']);
  store.close();
});
