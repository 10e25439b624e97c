/**
 * The scenario runner (the probe's --behave mode) on this machine's
 * kernel: every built-in scenario gives the same trace twice, and the
 * values the kernel ABI fixes independently of hintlab (EINVAL for an
 * unknown policy, getpriority's 20 - nice, E2BIG with the size written back,
 * mincore's vector of the pages the runner touched) are in the trace.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { buildProbe, type ProbeBuild } from '../../src/launch/probe-build.ts';
import { builtinScenarios } from '../../src/behave/builtin.ts';
import { behaveJob, traceOn } from '../../src/behave/run.ts';
import { parseScenarios } from '../../src/behave/scenario.ts';
import { readPrograms } from '../../src/behave/select.ts';
import type { Trace, TraceStep } from '../../src/behave/trace.ts';
import { hostTarget } from '../../src/targets/host.ts';

let probe: ProbeBuild;
let first: Trace;
let second: Trace;
const cpus = Math.min(2, availableParallelism());
const root = process.getuid?.() === 0;

before(async () => {
  probe = buildProbe();
  const job = behaveJob(builtinScenarios(), [], 120, cpus);
  const target = hostTarget({ probe });
  first = (await traceOn(target, job, new AbortController().signal)).trace;
  second = (await traceOn(target, job, new AbortController().signal)).trace;
});

function step(scenario: string, n: number, t: Trace = first): TraceStep {
  const s = t.scenarios.find((x) => x.name === scenario);
  assert.ok(s, `scenario ${scenario} is in the trace`);
  const st = s.steps[n];
  assert.ok(st, `${scenario} has step ${n}`);
  return st;
}

test('every built-in scenario gives the same trace twice on this machine, one step per scenario line', () => {
  const expected = builtinScenarios().filter((s) => s.cpus <= cpus);
  assert.deepEqual(first.scenarios.map((s) => s.name), expected.map((s) => s.name));
  for (const s of expected) {
    const traced = first.scenarios.find((x) => x.name === s.name)!;
    assert.equal(traced.steps.length, s.steps.length + 1, `${s.name}: step 0 and one per step`);
    assert.equal(traced.status, 0);
  }
  assert.deepEqual(second, first);
});

test('invalid policies and priorities, NULL pointers and bad pids get the errors the ABI fixes', () => {
  assert.deepEqual([step('sched_setscheduler', 13).call, step('sched_setscheduler', 13).ret, step('sched_setscheduler', 13).errno], ['sched_setscheduler pid=self policy=77', '-1', 'EINVAL']);
  assert.equal(step('sched_setscheduler', 9).errno, 'EINVAL', 'FIFO with priority 0');
  assert.equal(step('sched_setscheduler', 18).errno, 'EINVAL', 'NULL param');
  assert.equal(step('sched_getattr', 4).errno, 'EINVAL', 'size 47 is below SCHED_ATTR_SIZE_VER0');
  assert.equal(step('sched_getattr', 11).errno, 'ESRCH', 'a pid nobody has');
  assert.equal(step('sched_getattr', 10).errno, 'EINVAL', 'a negative pid');
  assert.equal(step('sched_param', 3).errno, 'EINVAL', 'sched_getparam with NULL');
});

test('nice set with setpriority reads back as 20 - nice from the raw getpriority, clamped to 19 above', () => {
  assert.deepEqual([step('nice', 1).call, step('nice', 1).ret], ['setpriority pid=self nice=5', '0']);
  assert.deepEqual([step('nice', 2).call, step('nice', 2).ret], ['getpriority pid=self', '15']);
  assert.equal(step('nice', 2).state.self!.getpriority, '5');
  assert.equal(step('nice', 4).state.self!.getpriority, '19', 'nice 20 is clamped to 19');
  assert.equal(step('nice', 9).ret, '13', 'the peer at nice 7');
});

test('sched_attr sizes: 48 has no clamps, a larger struct with a nonzero tail is E2BIG with the supported size written back', () => {
  assert.match(step('sched_getattr', 5).out, /^size=48,policy=0,/);
  assert.doesNotMatch(step('sched_getattr', 5).out, /umin/);
  assert.match(step('sched_getattr', 1).out, /^size=56,/);
  assert.deepEqual([step('sched_setattr', 11).errno, step('sched_setattr', 11).out], ['E2BIG', 'size_written=56']);
  assert.deepEqual([step('sched_setattr', 10).ret, step('sched_setattr', 10).errno], ['0', '0'], 'a zero tail is accepted');
});

test('mincore reports the pages the runner touched, and follows touch and MADV_DONTNEED', () => {
  assert.equal(step('mincore', 1).out, 'vec=1111111100000000');
  assert.equal(step('mincore', 5).out, 'vec=1111111100001000');
  assert.equal(step('mincore', 7).out, 'vec=0111111100001000');
  assert.equal(step('mincore', 11).errno, 'EINVAL', 'an unaligned start');
  assert.equal(step('mincore', 12).errno, 'ENOMEM', 'an unmapped page');
});

test('select returns the ready descriptors by name and only the class of the time left', () => {
  assert.equal(step('select', 1).out, 'read=rready,write=wready,except=none,left=zero');
  assert.equal(step('select', 6).out, 'read=rready,left=nonzero');
  assert.equal(step('select', 9).errno, 'EBADF');
});

test('getppid is traced as a class, never as the parent\'s pid', () => {
  assert.deepEqual(first.scenarios.find((s) => s.name === 'getppid')!.steps.slice(1).map((s) => s.ret), ['pid', 'pid', 'pid', 'pid']);
});

test('with two CPUs the two-CPU scenario moves the caller to CPU 1', { skip: cpus < 2 ? 'this machine has one CPU' : false }, () => {
  assert.equal(step('affinity-two-cpus', 2).out, 'mask=0x2');
});

test('a peer at SCHED_FIFO 10 blocked on the caller\'s PI futex boosts it to priority -11 in /proc stat, and the boost ends with the unlock', () => {
  assert.deepEqual([2, 3, 5, 6].map((n) => [step('pi_boost', n).call, step('pi_boost', n).state.self!.eprio]), [
    ['pi_lock', '20'],
    ['peer_pi_lock', '-11'],
    ['sched_setattr pid=self nice=1', '-11'],
    ['pi_unlock', '21'],
  ]);
  assert.equal(step('pi_boost', 3).state.self!.policy, '0', 'the policy stays SCHED_OTHER while boosted');
});

test('base_slice_ns is never written outside a guest', () => {
  assert.deepEqual([step('slice', 9).ret, step('slice', 9).out], ['skipped', 'why=not-a-guest']);
});

test('an unprivileged caller gets EPERM for an RT policy and for another user\'s task', { skip: root ? false : 'the nobody blocks need root to drop to uid 65534' }, () => {
  assert.deepEqual([step('sched_setscheduler', 27).call, step('sched_setscheduler', 27).errno], ['sched_setscheduler pid=self policy=FIFO prio=1', 'EPERM']);
  assert.equal(step('sched_setscheduler', 28).errno, 'EPERM');
  assert.equal(step('sched_setscheduler', 31).errno, 'EPERM', 'leaving SCHED_IDLE without RLIMIT_NICE');
  assert.equal(step('nice', 19).errno, 'EACCES', 'lowering nice without RLIMIT_NICE');
});

test('a static program\'s output lines are its trace, one step a line, its exit status the end', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-behave-prog-'));
  try {
    const c = join(dir, 'prog.c');
    writeFileSync(c, '#include <stdio.h>\nint main(void) { setvbuf(stdout, NULL, _IONBF, 0); puts("getppid ok"); puts(""); fprintf(stderr, "errno=EPERM\\n"); return 3; }\n');
    const built = spawnSync('cc', ['-static', '-O2', '-o', join(dir, 'prog'), c], { encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const programs = readPrograms([join(dir, 'prog')], dir);
    const job = behaveJob(parseScenarios('scenario one\ngetppid\n', 'one.scn'), programs, 60, cpus);
    const { trace } = await traceOn(hostTarget({ probe }), job, new AbortController().signal);
    const prog = trace.scenarios.find((s) => s.name === 'prog')!;
    assert.deepEqual(prog.steps.slice(1).map((s) => [s.n, s.call, s.out]), [[1, 'program', 'getppid ok'], [2, 'program', '-'], [3, 'program', 'errno=EPERM']]);
    assert.equal(prog.status, 3);
    writeFileSync(join(dir, 'script'), '#!/bin/sh\necho hi\n');
    assert.throws(() => readPrograms([join(dir, 'script')], dir), /--program .*script: not a 64-bit ELF program; build it static for the guest \(gcc -static -o prog prog\.c\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
