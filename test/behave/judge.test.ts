/**
 * The A-repeats rule on hand-built traces: a step of B is judged only where
 * A's two boots agree; what A did not repeat is named with both A values
 * in every output, and never becomes a divergence.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareTraces, readBehaveDocument, type BehaveKernel } from '../../src/behave/compare.ts';
import { splatSignature } from '../../src/behave/judge.ts';
import type { ScenarioTrace, Trace, TraceStep } from '../../src/behave/trace.ts';
import { behaveHeadline, behaveLkml, behaveText } from '../../src/report/behave.ts';

const debug = (slice: string) => `state:R,custom:0,slice:${slice}`;

function st(n: number, call: string, slice = '0.700000'): TraceStep {
  return { n, line: 158 + n, call, ret: '0', errno: '0', out: '-', state: { self: { nice: '0', runtime: String(Number(slice) * 1e6), debug: debug(slice) } } };
}

function scenario(name: string, steps: TraceStep[]): ScenarioTrace {
  return { name, steps: [{ n: 0, line: 0, call: '(start)', ret: '-', errno: '0', out: '-', state: {} }, ...steps], status: 0 };
}

/** The slice scenario around its base_slice step: the new base is read at step 2. */
function slice(atStep2: string): Trace {
  return {
    kernelRelease: '6.12.118',
    splats: [],
    scenarios: [
      scenario('slice', [st(1, 'sched_setattr pid=self runtime=default'), st(2, 'base_slice ns=2000000', atStep2), st(3, 'spin ms=30', '2.000000')]),
      scenario('param', [st(1, 'sched_getparam pid=self')]),
    ],
  };
}

function kernel(label: string): BehaveKernel {
  const image = label.startsWith('A') ? 'A' : 'B';
  return { label, image: `/k/${image}/bzImage`, imageSha256: `${image === 'A' ? 'aa' : 'bb'}${'0'.repeat(62)}`, kernelRelease: '6.12.118', traceKey: `key-${label}`, reused: false, bootSeconds: 18 };
}

const order = [{ name: 'slice', source: 'built-in' }, { name: 'param', source: 'built-in' }];

function compare(a: Trace, b: Trace, again: Trace) {
  return compareTraces({ a: kernel('A'), b: kernel('B'), aAgain: kernel('A again'), traceA: a, traceB: b, traceAAgain: again, scenarios: order, guest: { icount: true, cpus: 1, runnerBuild: 'r1' } });
}

test('a step where A differs from A again is not judged, whatever B did, and every output names it with both A values', () => {
  // the trial's case: A read the new base slice, B and A again the old one
  const doc = compare(slice('2.000000'), slice('0.700000'), slice('0.700000'));
  assert.deepEqual([doc.identical, doc.divergences, doc.steps], [false, [], 4]);
  assert.deepEqual(doc.notJudged, [
    {
      kind: 'step', scenario: 'slice', step: 2, line: 160, call: 'base_slice ns=2000000',
      a: { ret: '0', errno: '0', out: '-' }, aAgain: { ret: '0', errno: '0', out: '-' },
      differences: [{ field: 'self.runtime', a: '2000000', b: '700000' }, { field: 'self.debug', a: debug('2.000000'), b: debug('0.700000') }],
    },
  ]);
  assert.equal(behaveHeadline(doc), 'behaviour: 0 divergences in 4 steps between A (booted twice) and B (scenarios: slice, param); 1 step could not be judged (A varied): slice step 2');
  const text = behaveText(doc);
  assert.ok(
    text.endsWith([
      '',
      'not judged: scenario slice, step 2 (built-in:160): base_slice ns=2000000',
      '  A: ret=0 errno=0',
      '  A again: ret=0 errno=0',
      '  state self.runtime: A 2000000, A again 700000',
      `  state self.debug: A ${debug('2.000000')}, A again ${debug('0.700000')}`,
      '',
    ].join('\n')),
    text,
  );
  assert.equal(behaveLkml(doc), [
    'behaviour: 0 divergences in 4 steps between A (booted twice) and B',
    '(scenarios: slice, param); 1 step could not be judged (A varied): slice',
    'step 2:',
    '  - not judged: slice step 2, base_slice ns=2000000: self.runtime',
    '    2000000 on A, 700000 on A again; self.debug.slice 2.000000 on A,',
    '    0.700000 on A again',
    '',
  ].join('\n'));
});

test('a step A repeats and B does not is a divergence even where A varied at another step', () => {
  const b = slice('2.000000');
  b.scenarios[1]!.steps[1]!.errno = 'EFAULT';
  const doc = compare(slice('2.000000'), b, slice('0.700000'));
  assert.deepEqual(doc.divergences.map((d) => d.kind === 'step' && [d.scenario, d.step, d.differences]), [['param', 1, [{ field: 'errno', a: '0', b: 'EFAULT' }]]]);
  assert.deepEqual(doc.notJudged.map((u) => u.kind === 'step' && [u.scenario, u.step]), [['slice', 2]]);
  assert.match(behaveHeadline(doc), /^behaviour: 1 divergence in 4 steps between A \(booted twice\) and B \(scenarios: slice, param\); 1 step could not be judged \(A varied\): slice step 2$/);
});

test('A repeating itself step by step and B equal to it is identical', () => {
  const doc = compare(slice('2.000000'), slice('2.000000'), slice('2.000000'));
  assert.deepEqual([doc.identical, doc.divergences, doc.notJudged], [true, [], []]);
});

test("A's two boots taking different steps leave the rest of the scenario unjudged, and a different end status is not judged either", () => {
  const again = slice('0.700000');
  again.scenarios[0]!.steps.splice(2);
  again.scenarios[0]!.status = 1;
  const b = slice('0.700000');
  b.scenarios[0]!.steps[3]!.errno = 'EPERM';
  const doc = compare(slice('0.700000'), b, again);
  assert.deepEqual(doc.divergences, []);
  assert.deepEqual(doc.notJudged, [
    { kind: 'missing', scenario: 'slice', step: 2, steps: 2, call: 'base_slice ns=2000000' },
    { kind: 'end', scenario: 'slice', a: 0, aAgain: 1 },
  ]);
  assert.equal(doc.steps, 4, 'the steps A and B hold');
  assert.match(behaveHeadline(doc), /; 2 steps could not be judged \(A varied\): slice from step 2, slice's end status$/);
  assert.ok(behaveText(doc).includes("\nnot judged: scenario slice ended with status 0 on A, 1 on A again\n"));
});

test('kernel warnings: on one boot of A only not judged, on every boot no divergence, on B alone or on both boots of A alone a divergence', () => {
  const warn = (line: number, pid: number, off: string) => [`WARNING: CPU: 0 PID: ${pid} at kernel/sched/syscalls.c:${line} __x64_sys_sched_getparam+${off}/0x150`, 'Call Trace:'];
  const [a, b, again] = [slice('0.7'), slice('0.7'), slice('0.7')];
  a.splats.push(warn(1080, 38, '0x118'), warn(640, 38, '0x1a'), warn(900, 38, '0x2'));
  again.splats.push(warn(1080, 41, '0x118'), warn(640, 40, '0x1a'));
  b.splats.push(warn(1080, 39, '0x120'), warn(700, 38, '0x3'));
  const doc = compare(a, b, again);
  assert.deepEqual(doc.sharedSplats.map((l) => l[0]), [warn(1080, 38, '0x118')[0]]);
  assert.deepEqual(doc.divergences.map((d) => d.kind === 'splat' && [d.kernel, d.lines[0]]), [['A', warn(640, 38, '0x1a')[0]], ['B', warn(700, 38, '0x3')[0]]]);
  assert.deepEqual(doc.notJudged.map((u) => u.kind === 'splat' && u.lines[0]), [warn(900, 38, '0x2')[0]]);
  const text = behaveText(doc);
  assert.ok(text.includes('\nnot judged: a kernel warning on one boot of A only:\n  | WARNING: CPU: 0 PID: 38 at kernel/sched/syscalls.c:900'), text);
  assert.ok(text.includes('\nkernel warning on every boot of A and B alike (no divergence):\n  | WARNING: CPU: 0 PID: 38 at kernel/sched/syscalls.c:1080'), text);
  assert.match(behaveLkml(doc).replace(/\s+/g, ' '), /kernel warning on every boot of A and B alike: WARNING: CPU: 0 PID: 38 at kernel\/sched\/syscalls.c:1080/);
  assert.equal(splatSignature(['[   12.345678] WARNING: CPU: 1 PID: 7 at mm/x.c:3 f+0x1/0x2']), 'WARNING: CPU: _ PID: _ at mm/x.c:3 f');
});

test('a stored schema-1 comparison (A booted once) still reads and says its repeats were not checked; a newer schema is refused', () => {
  const v1 = {
    schema: 1, kind: 'hintlab-behave', a: kernel('A'), b: kernel('B'), guest: { icount: true, cpus: 1, runnerBuild: 'r1' },
    scenarios: [{ name: 'slice', source: 'built-in', state: 'compared', steps: 3 }], steps: 3, identical: true, divergences: [],
  };
  const doc = readBehaveDocument(JSON.parse(JSON.stringify(v1)), 'behave_comparisons row 1');
  assert.deepEqual([doc.aAgain, doc.notJudged, doc.sharedSplats], [null, [], []]);
  const text = behaveText(doc);
  assert.match(text, /^behaviour: 3 steps identical on A \(booted once, repeats not checked\) and B \(scenarios: slice\)\n/);
  assert.ok(text.includes('\nA again: not booted (a comparison from before A was booted twice; a step that varies from boot to boot is not told apart)\n'), text);
  assert.throws(() => readBehaveDocument({ ...v1, schema: 3 }, 'trial.json'), /trial.json: behaviour comparison schema 3 is newer than this hintlab reads \(2\); upgrade hintlab/);
  assert.throws(() => readBehaveDocument({ schema: 1 }, 'x.json'), /x.json: not a behaviour comparison/);
});
