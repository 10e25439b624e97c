/**
 * runTrial's orchestration on the mini tree (./fakes.ts: a real gcc build
 * in a real build directory's layout, real patch(1), real objdump) and a
 * scripted qemu under the real runBehave and runVm: the step order, each
 * step stored with its key and wall time, what a rerun reuses, what a
 * changed patch redoes, and each step's failure stopping the trial with its
 * own message while the steps before it stay stored.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { findProfile } from '../../src/bench/profiles.ts';
import { parseScenarios } from '../../src/behave/scenario.ts';
import { UserError } from '../../src/errors.ts';
import { Store } from '../../src/store/store.ts';
import type { TrialDeps, TrialRequest } from '../../src/trial/request.ts';
import { runTrial } from '../../src/trial/run.ts';
import { treeFingerprint } from '../../src/kernel/source.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';
import { miniBuild, miniPatch, miniTree, scriptedGuest, unusedProbe, type ScriptedGuest } from './fakes.ts';

const skip = requireAll(requireTool('patch', 'patch'), requireTool('objdump', 'binutils'));
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe = unusedProbe(dir);
const src = miniTree(dir);
// gcc already lays the early return out as unlikely: the patch says likely (1), which moves the code
const HINT = ['\tif (!param || pid < 0)', '\tif (__builtin_expect(!param || pid < 0, 1))'] as const;
const hint = miniPatch(src, dir, 'hint.patch', 'kernel/sys_impl.c', ...HINT);

function request(name: string, patches: string[], over: Partial<TrialRequest> = {}): TrialRequest {
  return {
    src,
    patches,
    out: join(dir, name),
    base: 'tinyconfig',
    fragment: null,
    opt: 'O2',
    jobs: 2,
    debugChecks: false,
    scenarios: parseScenarios('scenario tiny\nsetpriority pid=self nice=3\n', 'tiny.scn'),
    scenarioArgs: ['tiny.scn'],
    profiles: [findProfile('getppid')!],
    profileArgs: ['getppid'],
    ops: 1000,
    rounds: 5,
    warmups: 1,
    repeat: 3,
    kvm: false,
    maxObjects: 8,
    thresholdPct: 1,
    timeoutSeconds: 60,
    command: 'hintlab trial ...',
    invocation: { argv: ['trial', '--src', src, ...patches.flatMap((p) => ['--patch', p])], cwd: dir },
    db: null,
    hintlabVersion: 'test',
    ...over,
  };
}

function deps(store: Store, launcher: ScriptedGuest, built: string[] = [], over: Partial<TrialDeps> = {}): TrialDeps {
  return { store, launcher, probe, abort: new AbortController().signal, cacheDir: dir, services: { buildKernel: miniBuild(built) }, ...over };
}

const states = (store: Store, id: number) => store.trials.get(id)!.steps.map((s) => `${s.name}:${s.state}`);

test('the steps run in order, each stored with its key, state and wall time; the document holds every part', { skip }, async () => {
  const store = Store.open(join(dir, 'order.db'));
  try {
    const guest = scriptedGuest({ perCall: (image) => (image.includes(readKey(join(dir, 'order/B'))) ? 209 : 217) });
    const events: string[] = [];
    const doc = await runTrial(request('order', [hint]), { ...deps(store, guest), onStep: (e) => events.push(`${e.kind} ${e.index}/${e.total} ${e.kind === 'end' ? e.step.name : e.name}`) });
    assert.deepEqual(events, ['start 1/5 build-A', 'end 1/5 build-A', 'start 2/5 build-B', 'end 2/5 build-B', 'start 3/5 codegen', 'end 3/5 codegen', 'start 4/5 behave', 'end 4/5 behave', 'start 5/5 vm', 'end 5/5 vm']);
    assert.deepEqual(states(store, doc.trialId), ['build-A:done', 'build-B:done', 'codegen:done', 'behave:done', 'vm:done']);
    assert.equal(store.trials.get(doc.trialId)!.status, 'complete');
    assert.ok(store.trials.get(doc.trialId)!.steps.every((s) => s.key !== null && s.seconds !== null && s.seconds >= 0));
    // B is built from A's objects; the patch applied where its header said
    assert.equal(doc.kernels.B.manifest.incremental?.label, 'A');
    assert.deepEqual(doc.patches[0]!.applied, [{ file: 'kernel/sys_impl.c', hunks: [{ hunk: 1, line: 1, offsetLines: 0, fuzz: 0 }] }]);
    // sys_impl.c has no object of its own: kernel/sys.o #includes it, and only that object is compared
    assert.deepEqual(doc.codegen.objects.map((o) => [o.object, o.reach, o.state]), [['kernel/sys.o', 'includes', 'compared']]);
    const cell = doc.codegen.objects[0]!.result!.cells[0]!;
    assert.ok(cell.state === 'compared' && cell.functions.find((fn) => fn.name === 'getparam')?.class !== 'identical', 'the hint moved getparam\'s code');
    assert.deepEqual([doc.behave.kernels, doc.behave.document.identical, doc.behave.document.steps], ['measured', true, 1]);
    // boots as units: A B B A A B, one run per kernel, 3 boots each
    assert.deepEqual(guest.boots.map((b) => b.kind), ['behave', 'behave', 'behave', 'probe', 'probe', 'probe', 'probe', 'probe', 'probe']);
    assert.deepEqual(doc.measured.order, ['A', 'B', 'B', 'A', 'A', 'B']);
    assert.deepEqual([doc.measured.runs.A.label, doc.measured.runs.B.label, doc.measured.unit], [`trial${doc.trialId}-A`, `trial${doc.trialId}-B`, 'instructions/call']);
    const s = doc.measured.comparison.subjects[0]!;
    assert.deepEqual([s.subject, s.runs.map((r) => r.units), s.verdict.verdict], ['getppid', [3, 3], 'fewer instructions']);
    assert.deepEqual(doc.reproduce.map((r) => r.part), ['trial', 'build-A', 'build-B', 'codegen', 'behave', 'vm', 'compare']);
  } finally {
    store.close();
  }
});

function readKey(buildDir: string): string {
  try {
    return (JSON.parse(readFileSync(join(buildDir, 'hintlab-kernel.json'), 'utf8')) as { inputKey: string }).inputKey;
  } catch {
    return 'not built yet';
  }
}

test('a rerun reuses every step, builds and boots nothing, and says so', { skip }, async () => {
  const store = Store.open(join(dir, 'rerun.db'));
  try {
    const guest = scriptedGuest();
    const built: string[] = [];
    const first = await runTrial(request('rerun', [hint]), deps(store, guest, built));
    const boots = guest.boots.length;
    const again = await runTrial(request('rerun', [hint]), deps(store, guest, built));
    assert.deepEqual(built, ['A', 'B'], 'nothing built the second time');
    assert.equal(guest.boots.length, boots, 'nothing booted the second time');
    assert.deepEqual(states(store, again.trialId), ['build-A:reused', 'build-B:reused', 'codegen:reused', 'behave:reused', 'vm:reused']);
    assert.deepEqual(again.measured.runs, first.measured.runs, 'the same stored runs');
    assert.match(again.steps.find((s) => s.name === 'behave')!.summary, /^reused: 1 step identical \(every trace from the store\)$/);
    assert.equal(again.steps.find((s) => s.name === 'vm')!.earlierSeconds, 12, 'six boots of 2 s when they were made');
  } finally {
    store.close();
  }
});

test('a changed patch rebuilds B and redoes codegen, B\'s trace and the boots; A\'s build and trace are reused', { skip }, async () => {
  const store = Store.open(join(dir, 'changed.db'));
  try {
    const guest = scriptedGuest();
    const built: string[] = [];
    await runTrial(request('changed', [hint]), deps(store, guest, built));
    const before = guest.boots.length;
    const other = miniPatch(src, dir, 'hint2.patch', 'kernel/sys_impl.c', HINT[0], '\tif (__builtin_expect(!param || pid < 0, 0))');
    const doc = await runTrial(request('changed', [other]), deps(store, guest, built));
    assert.deepEqual(built, ['A', 'B', 'B']);
    assert.deepEqual(states(store, doc.trialId), ['build-A:reused', 'build-B:done', 'codegen:done', 'behave:done', 'vm:done']);
    assert.deepEqual(guest.boots.slice(before).map((b) => b.kind), ['behave', 'probe', 'probe', 'probe', 'probe', 'probe', 'probe'], 'B\'s trace only (A\'s two are stored), then all six boots');
    assert.match(doc.steps.find((s) => s.name === 'behave')!.summary, /\(the traces of A and A again from the store\)$/);
  } finally {
    store.close();
  }
});

async function failing(name: string, req: TrialRequest, d: TrialDeps, store: Store): Promise<{ err: UserError; id: number }> {
  let err: unknown;
  await runTrial(req, d).catch((e: unknown) => (err = e));
  assert.ok(err instanceof UserError, `expected a UserError, got ${String(err)}`);
  const id = store.trials.list().at(-1)!.id;
  assert.equal(store.trials.get(id)!.status, d.abort.aborted ? 'interrupted' : 'failed', name);
  return { err, id };
}

test('a patch that does not apply is refused before anything is built or stored, with patch(1)\'s words', { skip }, async () => {
  const store = Store.open(join(dir, 'noapply.db'));
  try {
    const bad = join(dir, 'bad.patch');
    writeFileSync(bad, readFileSync(hint, 'utf8').replace('return -22;', 'return -14;'));
    const before = treeFingerprint(src);
    let err: unknown;
    await runTrial(request('noapply', [bad]), deps(store, scriptedGuest())).catch((e: unknown) => (err = e));
    assert.ok(err instanceof UserError);
    assert.match(err.message, /^--patch .*bad\.patch does not apply to .* \(checked with --dry-run; nothing was built or written\):\n[\s\S]*FAILED/);
    assert.deepEqual([store.trials.list().length, existsSync(join(dir, 'noapply')), treeFingerprint(src)], [0, false, before]);
    const missing = await runTrial(request('noapply', [join(dir, 'nope.patch')]), deps(store, scriptedGuest())).catch((e: unknown) => e);
    assert.match((missing as Error).message, /^--patch .*nope\.patch: no such file$/);
  } finally {
    store.close();
  }
});

test('a second patch that conflicts with the first stops the trial at build B with patch(1)\'s words; build A stays stored', { skip }, async () => {
  const store = Store.open(join(dir, 'conflict.db'));
  try {
    const other = miniPatch(src, dir, 'conflict.patch', 'kernel/sys_impl.c', HINT[0], '\tif (pid < 0 || !param)');
    const { err, id } = await failing('conflict', request('conflict', [hint, other]), deps(store, scriptedGuest()), store);
    assert.match(err.message, /^trial #\d+ stopped at step 2\/5 \(build B \(A \+ 2 patches, from A's objects\)\); the 1 step\(s\) before it are stored and a rerun reuses them:\n--patch .*conflict\.patch does not apply to this tree \(the tree itself is unchanged\):\n[\s\S]*FAILED/);
    assert.deepEqual(states(store, id), ['build-A:done', 'build-B:failed']);
    assert.match(store.trials.get(id)!.steps[1]!.error!, /does not apply/);
  } finally {
    store.close();
  }
});

test('a build error stops the trial at build B with the compiler\'s error line', { skip }, async () => {
  const store = Store.open(join(dir, 'cc.db'));
  try {
    const broken = miniPatch(src, dir, 'broken.patch', 'kernel/sys_impl.c', '\t*param = lookup(pid);', '\t*param = lookup(pid) +;');
    const { err, id } = await failing('cc', request('cc', [broken]), deps(store, scriptedGuest()), store);
    assert.match(err.message, /stopped at step 2\/5[\s\S]*the kernel build failed \(make exit 2\):\n {2}.*sys_impl\.c:6:\d+: error: expected expression before ';' token$/);
    assert.deepEqual(states(store, id), ['build-A:done', 'build-B:failed']);
  } finally {
    store.close();
  }
});

test('a behaviour boot without a whole trace stops the trial at behave with the console tail; the builds and codegen stay stored', { skip }, async () => {
  const store = Store.open(join(dir, 'behave.db'));
  try {
    const guest = scriptedGuest({ fail: (kind, _image, boot) => (kind === 'behave' && boot === 2 ? { lines: ['Kernel panic - not syncing: VFS: Unable to mount root fs'] } : null) });
    const { err, id } = await failing('behave', request('behave', [hint]), deps(store, guest), store);
    assert.match(err.message, /stopped at step 4\/5 \(behave A vs B\)[\s\S]*no trace was stored or compared[\s\S]*Kernel panic - not syncing/);
    assert.deepEqual(states(store, id), ['build-A:done', 'build-B:done', 'codegen:done', 'behave:failed']);
  } finally {
    store.close();
  }
});

test('a failed boot in the A/B boots stops the trial naming the boot and kernel; a rerun reuses all before it', { skip }, async () => {
  const store = Store.open(join(dir, 'boot.db'));
  try {
    const guest = scriptedGuest({ fail: (kind, _image, boot) => (kind === 'probe' && boot === 5 ? { lines: ['Kernel panic - not syncing: Attempted to kill init!'] } : null) });
    const { err, id } = await failing('boot', request('boot', [hint]), deps(store, guest), store);
    assert.match(err.message, /stopped at step 5\/5 \(A\/B in VMs [^)]*\)\)[^\n]*:\nboot 1 of kernel B failed \(run #\d+ stored as failed\):\n/);
    assert.deepEqual(states(store, id), ['build-A:done', 'build-B:done', 'codegen:done', 'behave:done', 'vm:failed']);
    const again = await runTrial(request('boot', [hint]), deps(store, scriptedGuest()));
    assert.deepEqual(states(store, again.trialId), ['build-A:reused', 'build-B:reused', 'codegen:reused', 'behave:reused', 'vm:done']);
  } finally {
    store.close();
  }
});

test('--kvm where a KVM trial boot fails stops at the vm step, never measuring ns under TCG', { skip }, async () => {
  const store = Store.open(join(dir, 'kvm.db'));
  try {
    const guest = scriptedGuest();
    const noKvm: TrialDeps['chooseAccel'] = async () => ({ accel: 'tcg', why: 'a trial boot under KVM failed (no output within 60 s); nested virtualization may not work on this host' });
    const { err } = await failing('kvm', request('kvm', [hint], { kvm: true }), deps(store, guest, [], { chooseAccel: noKvm }), store);
    assert.match(err.message, /:\n--kvm: a trial boot under KVM failed \(no output within 60 s\); nested virtualization may not work on this host; drop --kvm to count instructions under qemu -icount instead$/);
    assert.equal(guest.boots.filter((b) => b.kind === 'probe').length, 0, 'no measuring boot');
  } finally {
    store.close();
  }
});

test('Ctrl-C during the boots stops the trial as interrupted (exit 130); the next trial reuses every step before it', { skip }, async () => {
  const store = Store.open(join(dir, 'int.db'));
  try {
    const abort = new AbortController();
    const guest = scriptedGuest({
      fail: (kind) => {
        if (kind !== 'probe') return null;
        abort.abort();
        return { lines: [], end: { kind: 'aborted' } };
      },
    });
    const { err, id } = await failing('int', request('int', [hint]), deps(store, guest, [], { abort: abort.signal }), store);
    assert.equal(err.exitCode, 130);
    assert.deepEqual(states(store, id), ['build-A:done', 'build-B:done', 'codegen:done', 'behave:done', 'vm:interrupted']);
    const again = await runTrial(request('int', [hint]), deps(store, scriptedGuest()));
    assert.deepEqual(states(store, again.trialId), ['build-A:reused', 'build-B:reused', 'codegen:reused', 'behave:reused', 'vm:done']);
  } finally {
    store.close();
  }
});

test('a header patch reaches the objects that include it; byte-identical objects are not disassembled', { skip }, async () => {
  const store = Store.open(join(dir, 'header.db'));
  try {
    const header = miniPatch(src, dir, 'header.patch', 'include/hl.h', 'HL_LIMIT 100', 'HL_LIMIT 200');
    const doc = await runTrial(request('header', [header]), deps(store, scriptedGuest()));
    assert.deepEqual(doc.codegen.objects.map((o) => [o.object, o.reach, o.state]), [['mm/other.o', 'header', 'compared']]);
    const comment = miniPatch(src, dir, 'comment.patch', 'include/hl.h', '#define HL_LIMIT 100', '/* the limit */\n#define HL_LIMIT 100');
    const same = await runTrial(request('header', [comment]), deps(store, scriptedGuest()));
    assert.deepEqual(same.codegen.objects.map((o) => [o.object, o.state]), [['mm/other.o', 'identical-bytes']]);
  } finally {
    store.close();
  }
});
