/**
 * `hints collect --workload stress-ng[:STRESSOR,...]`: the names checked
 * against a (fake) installed stress-ng, what the guest is asked to run, and
 * one coverage boot against scripted guests (a VmLauncher that replays
 * console lines): every stressor ran, or the run fails naming the one that
 * did not with stress-ng's own words.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { frameLine } from '../../../src/launch/probe-protocol.ts';
import { defaultBuildDir } from '../../../src/hints/collect/collect.ts';
import { coverageJob, guestArgs, runCoverageGuest, type GuestWorkload } from '../../../src/hints/collect/guest.ts';
import { coverageSettings, STRESS_NG_CONFIG, type ProfileScope } from '../../../src/hints/collect/kernel.ts';
import { parseStressNgWorkload, resolveStressNgWorkload, stressNgName, stressNgPlanText, type StressNgWorkload } from '../../../src/hints/collect/stress-ng.ts';
import { chooseWorkload } from '../../../src/hints/collect/workload.ts';
import { SCHED_SET } from '../../../src/macro/stressors.ts';
import type { BootEnd, BootRequest, VmLauncher } from '../../../src/launch/qemu.ts';
import { tempDir } from '../../helpers/cli.ts';
import { fakeGuestStream } from './fake-guest.ts';

/** What Debian's stress-ng 0.15.06 lists: the sched set without cpu-sched, flipflop, mtx, prio-inv, schedmix. */
const DEBIAN_0_15_06 = {
  version: async () => 'stress-ng, version 0.15.06 (gcc 12.2.0, x86_64 Linux 6.1.0)\n',
  stressors: async () => `cpu ${SCHED_SET.filter((s) => !['cpu-sched', 'flipflop', 'mtx', 'prio-inv', 'schedmix'].includes(s)).join(' ')} vm\n`,
};
const FILES = [{ path: 'usr/bin/stress-ng', data: Buffer.from('STRESS-NG-BINARY'), mode: 0o755 }];
const files = () => FILES;

async function resolved(value: string, seconds = 10) {
  return resolveStressNgWorkload(value, parseStressNgWorkload(value)!, seconds, DEBIAN_0_15_06, files);
}

test('stress-ng alone is the sched set; a set or stressors can be named after the colon', () => {
  assert.deepEqual(parseStressNgWorkload('stress-ng'), { sets: ['sched'], stressors: [] });
  assert.deepEqual(parseStressNgWorkload('stress-ng:sched'), { sets: ['sched'], stressors: [] });
  assert.deepEqual(parseStressNgWorkload('stress-ng:fifo, yield'), { sets: [], stressors: ['fifo', 'yield'] });
  assert.equal(parseStressNgWorkload('profiles'), null);
  assert.equal(parseStressNgWorkload('./stress-ng'), null, 'a program of that name is still a path');
  assert.throws(() => parseStressNgWorkload('stress-ng:'), /--workload stress-ng:: name stressors after the colon/);
  assert.equal(stressNgName({ sets: ['sched'], stressors: [] }), 'stress-ng-sched');
  assert.equal(stressNgName({ sets: [], stressors: ['fifo', 'yield'] }), 'stress-ng-fifo-yield');
  assert.equal(stressNgName({ sets: [], stressors: ['fifo', 'yield', 'mq', 'msg'] }), 'stress-ng-fifo-and-3-more');
});

test('the sched set runs what this stress-ng has and says what it lacks', async () => {
  const r = await resolved('stress-ng');
  assert.deepEqual(r.workload.stressors, ['fifo', 'futex', 'mq', 'msg', 'mutex', 'poll', 'pthread', 'race-sched', 'schedpolicy', 'switch', 'tee', 'yield']);
  assert.deepEqual(r.unavailable.map((u) => u.stressor), ['cpu-sched', 'flipflop', 'mtx', 'prio-inv', 'schedmix']);
  assert.match(r.unavailable[0]!.reason, /not in stress-ng 0\.15\.06/);
  assert.equal(r.name, 'stress-ng-sched');
  assert.match(r.label, /^stress-ng 0\.15\.06 sched set \(12 stressors\), 10 s each, one instance per guest CPU: fifo futex /);
  assert.deepEqual(r.kernelConfig, STRESS_NG_CONFIG);
  assert.equal(r.workload.files, FILES);
});

test('an unknown stressor is refused with the closest known one, naming --workload', async () => {
  await assert.rejects(resolved('stress-ng:fifx,yield'), /--workload stress-ng:fifx,yield: stress-ng 0\.15\.06 has no stressor 'fifx' \(did you mean 'fifo'\?\)/);
  const r = await resolved('stress-ng:yield,fifo,yield', 3);
  assert.deepEqual(r.workload.stressors, ['yield', 'fifo']);
  assert.match(r.label, /2 stressors, 3 s each/);
});

test('--stressor-seconds belongs to stress-ng; profiles and programs need no extra kernel options', async () => {
  await assert.rejects(chooseWorkload('profiles', '/x/profiles', 5), /--stressor-seconds applies to --workload stress-ng\[:STRESSOR,\.\.\.\] only/);
  const profiles = await chooseWorkload('profiles', '/x/profiles', undefined);
  assert.deepEqual(profiles.kernelConfig, []);
  const sched = await chooseWorkload('stress-ng', '/x/stress-ng', undefined, { stressNg: DEBIAN_0_15_06, stressNgFiles: files });
  assert.equal(sched.workload.kind === 'stress-ng' && sched.workload.seconds, 10, 'the default is 10 s per stressor');
  assert.equal(sched.name, 'stress-ng-sched');
});

test('the stressors kernel gets System V IPC, POSIX message queues, tmpfs and the scheduler code distributions build, in a build of its own', () => {
  const names = coverageSettings({ kind: 'dirs', dirs: ['kernel/sched'] }, 'gcov', STRESS_NG_CONFIG).map((s) => s.name);
  assert.deepEqual(names, ['DEBUG_FS', 'GCOV_KERNEL', 'SYSVIPC', 'SHMEM', 'TMPFS', 'NET', 'POSIX_MQUEUE', 'RSEQ', 'CGROUPS', 'SCHED_MM_CID', 'SCHED_STACK_END_CHECK']);
  const env = { HOME: '/home/u' };
  const scope: ProfileScope = { kind: 'dirs', dirs: ['kernel/sched'] };
  assert.notEqual(defaultBuildDir('/src', scope, env, 'gcov', STRESS_NG_CONFIG), defaultBuildDir('/src', scope, env));
  assert.equal(defaultBuildDir('/src', scope, env, 'gcov', []), defaultBuildDir('/src', scope, env), 'earlier builds keep their directory');
});

const workload = (stressors: string[]): StressNgWorkload => ({ kind: 'stress-ng', stressors, seconds: 7, version: '0.15.06', files: FILES });

test('the guest runs one stress-ng per stressor between the counter reset and the dump, its output on the console', () => {
  assert.equal(stressNgPlanText(['fifo', 'yield'], 7), '/dev/console /usr/bin/stress-ng --fifo 0 --timeout 7s\n/dev/console /usr/bin/stress-ng --yield 0 --timeout 7s\n');
  assert.deepEqual(guestArgs(workload(['fifo'])), ['--run-plan', '/hintlab.plan', '--reset-gcov', '--dump-gcov', '/sys/kernel/debug/gcov']);
  assert.deepEqual(guestArgs(workload(['fifo']), 'branch-profiler'), ['--run-plan', '/hintlab.plan', '--dump-files', '/sys/kernel/debug/tracing/trace_stat']);
  const job = coverageJob(workload(['fifo', 'yield']), 'gcov', 60);
  assert.deepEqual(job.files!.map((f) => f.path), ['usr/bin/stress-ng', 'hintlab.plan']);
  assert.equal(job.files![1]!.data.toString(), stressNgPlanText(['fifo', 'yield'], 7));
});

// ---- one boot against a scripted guest ----

const cacheDir = tempDir();
const probeFile = join(cacheDir, 'probe');
writeFileSync(probeFile, 'not really a probe');

function scripted(lines: string[], end: BootEnd = { kind: 'exited', code: 0, signal: null }): VmLauncher & { argv: string[] } {
  const seen = { argv: [] as string[] };
  return Object.assign(seen, {
    async boot(req: BootRequest) {
      seen.argv = req.argv;
      for (const l of lines) req.onLine(l);
      return { end, consoleTail: lines.slice(-25), stderrTail: [], elapsedMs: 1234 };
    },
  });
}

const GCDA = [{ path: '/sys/kernel/debug/gcov/o/kernel/sched/core.gcda', data: Buffer.from('counts') }];

/** A coverage boot whose workload is stress-ng invocations with these statuses, each preceded by what stress-ng printed. */
function stressBoot(invocations: { said: string[]; status: number }[]): string[] {
  const lines = fakeGuestStream(GCDA);
  const done = lines.findIndex((l) => l.includes('@hl1 done '));
  const ran = invocations.flatMap((i) => [...i.said, frameLine(`@hl1 exec path=/usr/bin/stress-ng status=${i.status}`)]);
  return [...lines.slice(0, done), ...ran, ...lines.slice(done)];
}

async function run(launcher: VmLauncher, w: GuestWorkload) {
  return runCoverageGuest({ kernelImage: '/k/bzImage', probeBinary: probeFile, workload: w, accel: 'tcg', timeoutSeconds: 60 }, { launcher, abort: new AbortController().signal, cacheDir });
}

const ok = (name: string) => ({ said: [`stress-ng: info:  [41] dispatching hogs: 2 ${name}`, 'stress-ng: info:  [41] successful run completed in 7.02s'], status: 0 });

test('a boot where every stressor exited 0 brings the counts back; the initramfs holds stress-ng and the plan', async () => {
  const launcher = scripted(stressBoot([ok('fifo'), ok('yield')]));
  const r = await run(launcher, workload(['fifo', 'yield']));
  assert.equal(r.state, 'complete', r.state === 'failed' ? r.reason : '');
  assert.deepEqual(r.files.map((f) => f.data.toString()), ['counts']);
  const image = gunzipSync(readFileSync(launcher.argv[launcher.argv.indexOf('-initrd') + 1]!)).toString('latin1');
  assert.ok(image.includes('STRESS-NG-BINARY') && image.includes('/usr/bin/stress-ng --yield 0 --timeout 7s'));
  assert.ok(image.includes('--run-plan\n/hintlab.plan\n--reset-gcov\n--dump-gcov\n/sys/kernel/debug/gcov\n'));
});

test('a stressor that fails in the guest fails the run, naming it with its exit status and what stress-ng said', async () => {
  const failed = { said: ['[   20.1] random kernel line', 'stress-ng: error: [52] msg: msgget failed, errno=38 (Function not implemented)', 'stress-ng: info:  [52] unsuccessful run completed in 0.10s'], status: 2 };
  const r = await run(scripted(stressBoot([ok('fifo'), failed])), workload(['fifo', 'msg', 'yield']));
  assert.equal(r.state, 'failed');
  const reason = r.reason;
  assert.match(reason, /^stressor msg \(2 of 3\) failed in the guest: stress-ng exited with status 2 \(one or more stressors failed\); stress-ng said:\n  stress-ng: error: \[52\] msg: msgget failed/);
  assert.doesNotMatch(reason.split('last console lines:')[0]!, /dispatching hogs: 2 fifo/, "the earlier stressor's lines are not its words");
  assert.match(reason, /qemu command: qemu-system-x86_64 /);
});

test('a plan that stopped early (the probe was stopped) is not a complete workload', async () => {
  const r = await run(scripted(stressBoot([ok('fifo')])), workload(['fifo', 'yield']));
  assert.match(r.state === 'failed' ? r.reason : '', /the guest ran 1 of 2 stress-ng invocations/);
});

test('a guest killed in the middle of a stressor says how many had ended', async () => {
  const lines = stressBoot([ok('fifo'), ok('yield')]);
  const cut = lines.slice(0, lines.findIndex((l) => l.includes('@hl1 exec ')) + 1);
  const r = await run(scripted(cut, { kind: 'timeout', seconds: 60 }), workload(['fifo', 'yield']));
  assert.match(r.state === 'failed' ? r.reason : '', /no complete result within 60 s \(--timeout\), before the workload finished/);
});
