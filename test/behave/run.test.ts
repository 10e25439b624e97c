/**
 * runBehave over a scripted qemu launcher: A boots twice (A, B, A again),
 * traces are stored under what determines them and reused, a step A does
 * not repeat is not judged, a boot that gives no whole trace is an error
 * with the console tail (never a divergence, never stored), and a kernel
 * warning on a console is a divergence. Real boots: ./cloud-kernel.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import { BEHAVE_APPEND, BehaveBootError, behaveJob, runBehave, traceKey, type BehaveDeps, type BehaveRequest } from '../../src/behave/run.ts';
import { TraceReader } from '../../src/behave/trace.ts';
import { parseScenarios } from '../../src/behave/scenario.ts';
import { Store } from '../../src/store/store.ts';
import type { BootEnd, VmLauncher } from '../../src/launch/qemu.ts';
import type { VmKernel } from '../../src/vm/kernels.ts';
import { tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = { path: join(dir, 'probe'), buildId: 'runner-1' };
writeFileSync(probe.path, 'PROBE');

function kernel(label: string): VmKernel {
  const image = join(dir, `bzImage-${label}`);
  writeFileSync(image, `IMAGE ${label}`);
  return { label, image, manifest: null, configHash: { known: false, reason: 'test' } };
}

const f = (body: string) => frameLine(`@hl1 ${body}`);
const state = (n: number, nice: string) => f(`state scenario=tiny n=${n} who=self policy=0 nice=${nice} base=absent`);
function guestLines(nice = '0', extra: string[] = []): string[] {
  return [
    '[    0.000000] Linux version 6.12.117',
    f('hello proto=1 kernel=6.12.117 version=%231 machine=x86_64 pid1=1 cpu=-1 ops=10000 warmups=3 rounds=15 seccomp=0'),
    f('scenario name=tiny'),
    state(0, '0'),
    f('step scenario=tiny n=1 line=2 call=setpriority%20pid%3Dself%20nice%3D3 ret=0 errno=0 out=-'),
    ...extra,
    state(1, nice),
    f('scenario-end name=tiny steps=1 status=0'),
    f('done rounds=15 profiles=0'),
    f('poweroff status=0'),
  ];
}

/** Lines per image: the same on every boot, or per boot of that image (1, 2, ...). */
type Script = string[] | ((boot: number) => string[]);

function launcher(byImage: Record<string, Script>, end: BootEnd = { kind: 'exited', code: 0, signal: null }): VmLauncher & { boots: number; images: string[] } {
  const l = {
    boots: 0,
    images: [] as string[],
    async boot(req: Parameters<VmLauncher['boot']>[0]) {
      l.boots++;
      const image = req.argv[req.argv.indexOf('-kernel') + 1]!;
      l.images.push(image.replace(/.*bzImage-/, ''));
      const script = Object.entries(byImage).find(([k]) => image.endsWith(k))?.[1] ?? [];
      const lines = typeof script === 'function' ? script(l.images.filter((i) => image.endsWith(i)).length) : script;
      for (const line of lines) req.onLine(line);
      return { end, consoleTail: lines.slice(-25), stderrTail: [], elapsedMs: 2500 };
    },
  };
  return l;
}

const scenarios = parseScenarios('scenario tiny\nsetpriority pid=self nice=3\n', 'tiny.scn');
const request = (a = kernel('A'), b = kernel('B')): BehaveRequest => ({ kernels: [a, b], scenarios, timeoutSeconds: 60, hintlabVersion: 'test' });
const deps = (store: Store, l: VmLauncher): BehaveDeps => ({ store, launcher: l, probe, abort: new AbortController().signal, cacheDir: dir });

test('A, B and A again are booted in that order and stored under three keys, and a rerun boots nothing and finds the same result', async () => {
  const store = Store.open(join(dir, 'reuse.db'));
  try {
    const l = launcher({ 'bzImage-A': guestLines(), 'bzImage-B': guestLines() });
    const first = await runBehave(request(), deps(store, l));
    assert.deepEqual([first.identical, first.steps, l.images, first.a.reused, first.b.reused, first.aAgain?.reused], [true, 1, ['A', 'B', 'A'], false, false, false]);
    assert.equal(new Set([first.a.traceKey, first.b.traceKey, first.aAgain?.traceKey]).size, 3, "A's second boot is never A's first trace reused");
    assert.deepEqual([first.aAgain?.label, first.aAgain?.image], ['A again', first.a.image]);
    const again = await runBehave(request(), deps(store, l));
    assert.deepEqual([again.identical, l.boots, again.a.reused, again.b.reused, again.aAgain?.reused, again.a.bootSeconds], [true, 3, true, true, true, 2.5]);
    const fresh = await runBehave({ ...request(), fresh: true }, deps(store, l));
    assert.deepEqual([fresh.a.reused, fresh.aAgain?.reused, l.boots], [false, false, 6]);
  } finally {
    store.close();
  }
});

test("a trace of A stored before A was booted twice is reused as A's first boot, and only B and A again boot", async () => {
  const store = Store.open(':memory:');
  try {
    // the key of a first boot is made of what it has always been made of
    const job = behaveJob(scenarios, [], 60);
    const imageSha256 = createHash('sha256').update(readFileSync(kernel('A').image)).digest('hex');
    const key = createHash('sha256').update(JSON.stringify({ schema: 1, image: imageSha256, plan: job.planSha256, runner: probe.buildId, icount: true, cpus: 1, memoryMiB: 256, append: BEHAVE_APPEND })).digest('hex');
    assert.equal(traceKey(imageSha256, job, probe.buildId, 1), key);
    const reader = new TraceReader();
    for (const line of guestLines()) reader.feed(line);
    store.behave.putTrace({ key, kernelSha256: imageSha256, planSha256: job.planSha256, runnerBuild: probe.buildId, icount: true, kernelRelease: '6.12.117', bootSeconds: 19, traceJson: JSON.stringify(reader.result()), hintlabVersion: 'older' });
    const l = launcher({ 'bzImage-A': guestLines(), 'bzImage-B': guestLines() });
    const doc = await runBehave(request(), deps(store, l));
    assert.deepEqual([l.images, doc.a.reused, doc.a.bootSeconds, doc.identical], [['B', 'A'], true, 19, true]);
  } finally {
    store.close();
  }
});

test('a step where the two boots of A differ is not judged even though B differs from one of them; a step A repeats is judged', async () => {
  const store = Store.open(':memory:');
  try {
    // A's first boot reads nice 3, its second 0; B reads 0
    const l = launcher({ 'bzImage-A': (boot) => guestLines(boot === 1 ? '3' : '0'), 'bzImage-B': guestLines('0') });
    const doc = await runBehave(request(), deps(store, l));
    assert.deepEqual([doc.identical, doc.divergences], [false, []]);
    assert.deepEqual(doc.notJudged.map((u) => u.kind === 'step' && [u.scenario, u.step, u.differences]), [['tiny', 1, [{ field: 'self.nice', a: '3', b: '0' }]]]);
    const repeated = await runBehave({ ...request(), fresh: true }, deps(store, launcher({ 'bzImage-A': guestLines('3'), 'bzImage-B': guestLines('0') })));
    assert.deepEqual([repeated.notJudged, repeated.divergences.length], [[], 1]);
  } finally {
    store.close();
  }
});

test('a state that differs after a step is a divergence naming the field', async () => {
  const store = Store.open(':memory:');
  try {
    const doc = await runBehave(request(), deps(store, launcher({ 'bzImage-A': guestLines('3'), 'bzImage-B': guestLines('0') })));
    assert.equal(doc.identical, false);
    assert.deepEqual(doc.divergences, [{
      kind: 'step', scenario: 'tiny', step: 1, line: 2, call: 'setpriority pid=self nice=3',
      a: { ret: '0', errno: '0', out: '-' }, b: { ret: '0', errno: '0', out: '-' },
      differences: [{ field: 'self.nice', a: '3', b: '0' }], before: [],
    }]);
  } finally {
    store.close();
  }
});

test('a kernel WARNING on one console is a divergence even when every step matches', async () => {
  const store = Store.open(':memory:');
  try {
    const warn = ['[    1.5] ------------[ cut here ]------------', '[    1.5] WARNING: CPU: 0 PID: 1 at kernel/sched/core.c:100 f+0x1/0x2', '[    1.5] Call Trace:'];
    const doc = await runBehave(request(), deps(store, launcher({ 'bzImage-A': guestLines(), 'bzImage-B': guestLines('0', warn) })));
    // the warning and the console lines after it (the call trace), not the framed lines between them
    assert.deepEqual(doc.divergences, [{ kind: 'splat', kernel: 'B', lines: [warn[1], warn[2]] }]);
  } finally {
    store.close();
  }
});

test('a panic, a timeout or a corrupt line is an error with the console tail, and nothing is stored', async () => {
  const store = Store.open(join(dir, 'fail.db'));
  try {
    const panic = ['[    0.9] Kernel panic - not syncing: VFS: Unable to mount root fs'];
    await assert.rejects(runBehave(request(), deps(store, launcher({ 'bzImage-A': panic }))), (err: unknown) => {
      assert.ok(err instanceof BehaveBootError);
      assert.match(err.message, /^qemu guest \(kernel A, tcg with icount\): the probe never started in the guest \(no hello line\); no trace was stored or compared; the kernel reported: \[    0\.9\] Kernel panic/);
      assert.match(err.message, /last console lines:\n  \| \[    0\.9\] Kernel panic/);
      assert.match(err.message, /qemu command: qemu-system-x86_64 .*-icount shift=0,sleep=off/);
      return true;
    });
    await assert.rejects(runBehave(request(), deps(store, launcher({ 'bzImage-A': guestLines().slice(0, 4) }, { kind: 'timeout', seconds: 60 }))), /no complete trace within 60 s \(--timeout\)/);
    const garbled = guestLines().map((l, i) => (i === 4 ? l.replace('ret=0', 'ret=1') : l));
    await assert.rejects(runBehave(request(), deps(store, launcher({ 'bzImage-A': garbled }))), /the guest printed 1 corrupt line\(s\), first: checksum/);
    const l = launcher({ 'bzImage-A': guestLines(), 'bzImage-B': guestLines() });
    const doc = await runBehave(request(), deps(store, l));
    assert.deepEqual([doc.a.reused, doc.b.reused], [false, false], 'no failed boot left a trace behind');
  } finally {
    store.close();
  }
});
