/** Runs that must not be compared: other units, other machines or settings, unfinished runs. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ComparisonRefused } from '../../src/compare/checks.ts';
import { compare } from '../../src/compare/compare.ts';
import { hostEnvironment, makeRun } from './fixtures.ts';

const A = [100, 101, 99, 100, 100, 102, 98];

describe('compare refuses', () => {
  it('runs on different CPUs, naming the field and both values', () => {
    const a = makeRun({ id: 1, values: { x: A } });
    const b = makeRun({ id: 2, values: { x: A }, environment: hostEnvironment({ cpu: 'AMD EPYC 7B13' }) });
    assert.throws(
      () => compare({ a, b }),
      (err: unknown) =>
        err instanceof ComparisonRefused &&
        err.message.includes("cpu.model: A = 'Intel(R) Xeon(R) CPU @ 2.20GHz', B = 'AMD EPYC 7B13'") &&
        err.message.includes('--allow-mismatch'),
    );
  });

  it('compares them anyway with allowMismatch and records what it let through', () => {
    const a = makeRun({ id: 1, values: { x: A } });
    const b = makeRun({ id: 2, values: { x: A }, environment: hostEnvironment({ cpu: 'AMD EPYC 7B13', pinnedCpu: null }) });
    const cmp = compare({ a, b }, { allowMismatch: true });
    assert.deepEqual(cmp.mismatchesAllowed.map((f) => f.field), ['cpu.model', 'pinnedCpu']);
    assert.deepEqual(cmp.mismatchesAllowed[1]!.values, { A: '1', B: 'not pinned' });
  });

  it('different ops per round and profile parameters', () => {
    const a = makeRun({ id: 1, values: { x: A }, subjectParams: { x: { fds: 1000 } } });
    const b = makeRun({ id: 2, values: { x: A }, ops: 50_000, subjectParams: { x: { fds: 10 } } });
    assert.throws(() => compare({ a, b }), /opsPerRound: A = 'x=100000', B = 'x=50000'\n {2}subjectParams: A = 'x=\{"fds":1000\}', B = 'x=\{"fds":10\}'/);
  });

  it('different parameters reported by the probe (custom slice, select nfds), naming them', () => {
    const a = makeRun({ id: 1, values: { x: A }, subjectParams: { x: { call: 'select', probe: { fds: 1000, nfds: 1006 } } } });
    const b = makeRun({ id: 2, values: { x: A }, subjectParams: { x: { call: 'select', probe: { fds: 1000, nfds: 1007 } } } });
    assert.throws(() => compare({ a, b }), /probeParams: A = 'x=\{"fds":1000,"nfds":1006\}', B = 'x=\{"fds":1000,"nfds":1007\}'/);
  });

  it('nothing for a run stored before the probe reported its parameters (it abstains)', () => {
    const old = makeRun({ id: 1, values: { x: A }, subjectParams: { x: { call: 'select' } } });
    const now = makeRun({ id: 2, values: { x: A }, subjectParams: { x: { call: 'select', probe: { fds: 1000, nfds: 1006 } } } });
    const cmp = compare({ a: old, b: now });
    const row = cmp.environment.find((f) => f.field === 'probeParams');
    assert.deepEqual(row?.values, { A: 'x=not recorded', B: 'x={"fds":1000,"nfds":1006}' });
    assert.equal(row.same, true);
  });

  it('different units always, even with allowMismatch', () => {
    const a = makeRun({ id: 1, values: { x: A } });
    const b = makeRun({ id: 2, values: { x: A }, unit: 'instructions/call' });
    assert.throws(
      () => compare({ a, b }, { allowMismatch: true }),
      /A \(run 1 'run1'\) measures 'ns\/call' but B \(run 2 'run2'\) measures 'instructions\/call'/,
    );
  });

  it('an incomplete run unless allowIncomplete, and then flags the verdict', () => {
    const a = makeRun({ id: 1, values: { x: A } });
    const b = makeRun({ id: 2, values: { x: A }, status: 'incomplete' });
    assert.throws(() => compare({ a, b }), /B \(run 2 'run2'\) is incomplete: only complete runs are compared; pass --allow-incomplete to compare its 7 recorded rounds anyway/);
    const cmp = compare({ a, b }, { allowIncomplete: true });
    assert.deepEqual(cmp.subjects[0]!.verdict.caveats, ['incomplete-run']);
  });
});

describe('compare accepts', () => {
  it('other kernels and a seccomp injection, shown side by side as expected differences', () => {
    const a = makeRun({ id: 1, values: { x: A } });
    const b = makeRun({ id: 2, values: { x: A }, environment: hostEnvironment({ release: '6.12.9-hintlab+', injectSeccomp: 64 }) });
    const cmp = compare({ a, b });
    const release = cmp.environment.find((f) => f.field === 'kernel.release')!;
    assert.deepEqual(release, { field: 'kernel.release', kind: 'expected', values: { A: '6.12.9-amd64', B: '6.12.9-hintlab+' }, same: false });
    const seccomp = cmp.environment.find((f) => f.field === 'injectSeccomp')!;
    assert.deepEqual(seccomp.values, { A: 'off', B: '64' });
    assert.deepEqual(cmp.mismatchesAllowed, []);
  });
});
