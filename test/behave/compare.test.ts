/** Step-by-step comparison of hand-built traces (A again equal to A: every step judged) and its outputs, as exact text. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BEHAVE_SCHEMA, compareTraces, type BehaveKernel } from '../../src/behave/compare.ts';
import type { ScenarioTrace, Trace, TraceStep } from '../../src/behave/trace.ts';
import { behaveLkml, behaveText } from '../../src/report/behave.ts';

const self = (over: Record<string, string> = {}) => ({ self: { policy: '0', nice: '0', umin: '0', debug: 'state:R,custom:0,slice:0.700000', ...over } });

function st(n: number, call: string, ret = '0', errno = '0', out = '-', state = self()): TraceStep {
  return { n, line: n + 1, call, ret, errno, out, state };
}

function scenario(name: string, steps: TraceStep[]): ScenarioTrace {
  return { name, steps: [st(0, '(start)', '-'), ...steps], status: 0 };
}

function kernel(label: string, reused = false): BehaveKernel {
  const image = label.startsWith('A') ? 'A' : 'B';
  return { label, image: `/k/${image}/bzImage`, imageSha256: `${image === 'A' ? 'aa' : 'bb'}${'0'.repeat(62)}`, kernelRelease: '6.12.117', traceKey: `key-${label}`, reused, bootSeconds: reused ? 14.2 : 17.06 };
}

const guest = { icount: true, cpus: 1, runnerBuild: 'r1' };
const order = [{ name: 'param', source: 'built-in' }, { name: 'uclamp', source: 'built-in' }, { name: 'two', source: 'built-in', notRun: 'needs 2 CPUs; icount guests have 1' }];

const base: Trace = {
  kernelRelease: '6.12.117',
  splats: [],
  scenarios: [
    scenario('param', [st(1, 'sched_getparam pid=self', '0', '0', 'prio=0'), st(2, 'sched_setparam pid=self prio=1', '-1', 'EINVAL'), st(3, 'sched_getparam pid=self param=null', '-1', 'EINVAL')]),
    scenario('uclamp', [st(1, 'sched_setattr pid=self flags=UTIL_CLAMP_MIN umin=0'), st(2, 'sched_setscheduler pid=self policy=FIFO prio=1', '0', '0', '-', self({ policy: '1' }))]),
  ],
};

function variant(): Trace {
  return structuredClone(base);
}

/** A, B and A again, where A again repeats A unless given. */
function compare(traceB: Trace, opts: { traceA?: Trace; traceAAgain?: Trace; bReused?: boolean; scenarios?: typeof order } = {}) {
  const traceA = opts.traceA ?? base;
  return compareTraces({ a: kernel('A'), b: kernel('B', opts.bReused), aAgain: kernel('A again'), traceA, traceB, traceAAgain: opts.traceAAgain ?? structuredClone(traceA), scenarios: opts.scenarios ?? order, guest });
}

const AGAIN = 'A again: 6.12.117, /k/A/bzImage (sha256 aa0000000000), booted in 17.1 s';

test('identical traces: one line with the step count and the scenarios, the kernels and what did not run', () => {
  const doc = compare(variant(), { bReused: true });
  assert.deepEqual([doc.schema, doc.kind, doc.steps, doc.identical, doc.divergences, doc.notJudged], [BEHAVE_SCHEMA, 'hintlab-behave', 5, true, [], []]);
  assert.deepEqual(doc.scenarios.map((s) => [s.name, s.state, s.steps]), [['param', 'compared', 3], ['uclamp', 'compared', 2], ['two', 'not-run', 0]]);
  assert.equal(behaveText(doc), [
    'behaviour: 5 steps identical on A (booted twice) and B (scenarios: param, uclamp)',
    'A: 6.12.117, /k/A/bzImage (sha256 aa0000000000), booted in 17.1 s',
    'B: 6.12.117, /k/B/bzImage (sha256 bb0000000000), trace reused from the store',
    AGAIN,
    'steps per scenario: param 3, uclamp 2',
    'not run: two (needs 2 CPUs; icount guests have 1)',
    '',
  ].join('\n'));
  assert.equal(behaveLkml(doc), 'behaviour: 5 steps identical on A (booted twice) and B (scenarios:\nparam, uclamp)\nnot run: two (needs 2 CPUs)\n');
});

test('an error code changed for one argument class and a state seen one step later are each a divergence with the steps before it', () => {
  const b = variant();
  b.scenarios[0]!.steps[3]!.errno = 'EFAULT';
  b.scenarios[1]!.steps[2]!.state.self!.umin = '1024';
  const doc = compare(b);
  assert.equal(doc.identical, false);
  assert.deepEqual(doc.divergences.map((d) => d.kind === 'step' && [d.scenario, d.step, d.differences]), [
    ['param', 3, [{ field: 'errno', a: 'EINVAL', b: 'EFAULT' }]],
    ['uclamp', 2, [{ field: 'self.umin', a: '0', b: '1024' }]],
  ]);
  assert.equal(behaveText(doc), [
    'behaviour: 2 divergences in 5 steps between A (booted twice) and B (scenarios: param, uclamp)',
    'A: 6.12.117, /k/A/bzImage (sha256 aa0000000000), booted in 17.1 s',
    'B: 6.12.117, /k/B/bzImage (sha256 bb0000000000), booted in 17.1 s',
    AGAIN,
    'steps per scenario: param 3, uclamp 2',
    'not run: two (needs 2 CPUs; icount guests have 1)',
    '',
    'scenario param, step 3 (built-in:4): sched_getparam pid=self param=null',
    '  A: ret=-1 errno=EINVAL',
    '  B: ret=-1 errno=EFAULT',
    '  steps before it:',
    '    1: sched_getparam pid=self -> ret=0 errno=0 prio=0',
    '    2: sched_setparam pid=self prio=1 -> ret=-1 errno=EINVAL',
    '',
    'scenario uclamp, step 2 (built-in:3): sched_setscheduler pid=self policy=FIFO prio=1',
    '  A: ret=0 errno=0',
    '  B: ret=0 errno=0',
    '  state self.umin: A 0, B 1024',
    '  steps before it:',
    '    1: sched_setattr pid=self flags=UTIL_CLAMP_MIN umin=0 -> ret=0 errno=0',
    '',
  ].join('\n'));
  assert.equal(behaveLkml(doc), [
    'behaviour: 2 divergences in 5 steps between A (booted twice) and B',
    '(scenarios: param, uclamp):',
    '  - param step 3, sched_getparam pid=self param=null: errno EINVAL on A,',
    '    EFAULT on B',
    '  - uclamp step 2, sched_setscheduler pid=self policy=FIFO prio=1:',
    '    self.umin 0 on A, 1024 on B',
    'not run: two (needs 2 CPUs)',
    '',
  ].join('\n'));
  for (const line of behaveLkml(doc).split('\n')) assert.ok(line.length <= 72, line);
});

test('a kernel warning on one console and a trace cut short are divergences, never identical', () => {
  const b = variant();
  b.splats.push(['WARNING: CPU: 0 PID: 1 at kernel/sched/syscalls.c:640 __sched_setscheduler+0x1a/0x2b0', 'Call Trace:']);
  b.scenarios[0]!.steps.pop();
  b.scenarios[1]!.status = 3;
  const doc = compare(b);
  assert.deepEqual(doc.divergences.map((d) => d.kind), ['missing', 'end', 'splat']);
  assert.equal(doc.steps, 4, 'only the steps both traces hold are counted');
  const text = behaveText(doc);
  assert.ok(text.includes('\nscenario param, step 3: only A has it (sched_getparam pid=self param=null)\n'), text);
  assert.ok(text.includes('\nscenario uclamp ended with status 0 on A, 3 on B\n'), text);
  assert.ok(text.includes("\nkernel warning on B's console:\n  | WARNING: CPU: 0 PID: 1 at kernel/sched/syscalls.c:640 __sched_setscheduler+0x1a/0x2b0\n  | Call Trace:\n"), text);
  assert.match(behaveLkml(doc), /  - a kernel warning on B: WARNING: CPU: 0 PID: 1 at/);
});

test('a struct printed whole on both kernels names only the members that differ in the mail lines', () => {
  const attr = (runtime: string) => `size=56,policy=0,flags=0,nice=0,prio=0,runtime=${runtime},deadline=0,period=0,umin=0,umax=1024`;
  const a = variant();
  a.scenarios[0]!.steps[1]!.out = attr('3000000');
  const b = structuredClone(a);
  b.scenarios[0]!.steps[1]!.out = attr('2800000');
  const doc = compare(b, { traceA: a });
  assert.deepEqual(behaveLkml(doc).split('\n').slice(2, 4), ['  - param step 1, sched_getparam pid=self: out.runtime 3000000 on A,', '    2800000 on B']);
});

test('the mail lines name the first divergences and count the rest', () => {
  const b = variant();
  b.scenarios[0]!.steps[1]!.errno = 'EPERM';
  b.scenarios[0]!.steps[2]!.errno = 'EPERM';
  b.scenarios[0]!.steps[3]!.errno = 'EPERM';
  const doc = compare(b);
  const lines = behaveLkml(doc, 1).split('\n');
  assert.equal(lines.filter((l) => l.startsWith('  - param step')).length, 1);
  assert.ok(lines.includes('  - 2 more (each in the text, md and html reports)'), lines.join('\n'));
});

test('the mail headline counts the scenarios when there are more than four', () => {
  const many = ['s1', 's2', 's3', 's4', 's5'].map((name) => scenario(name, [st(1, 'getppid')]));
  const trace: Trace = { kernelRelease: '6.12.117', splats: [], scenarios: many };
  const doc = compare(structuredClone(trace), { traceA: trace, scenarios: many.map((s) => ({ name: s.name, source: 'built-in' })) });
  assert.equal(behaveLkml(doc), 'behaviour: 5 steps identical on A (booted twice) and B (5 scenarios)\n');
  assert.match(behaveText(doc), /^behaviour: 5 steps identical on A \(booted twice\) and B \(scenarios: s1, s2, s3, s4, s5\)$/m);
});
