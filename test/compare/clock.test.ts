/** The clock a run was timed on: read from what it stored (or what the probe could do then), checked between runs, named by reports. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ComparisonRefused } from '../../src/compare/checks.ts';
import { clockOf } from '../../src/compare/clock.ts';
import { compare } from '../../src/compare/compare.ts';
import type { RunWithRounds } from '../../src/model.ts';
import type { RoundClock, RunExtra } from '../../src/run-record.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { renderText } from '../../src/report/text.ts';
import { makeRun } from './fixtures.ts';

const A = [100, 101, 99, 100, 100, 102, 98];
const B = [103, 104, 102, 103, 103, 105, 101];

function withExtra(run: RunWithRounds, extra: RunExtra): RunWithRounds {
  return { ...run, params: { ...run.params, extra: { ...run.params.extra, ...extra } } };
}

/** The interleave record of makeRun's partners, with a clock in it as bench --label-b stores it. */
function interleavedOn(run: RunWithRounds, clock: RoundClock): RunWithRounds {
  const rec = run.params.extra.interleave!;
  return withExtra(run, { interleave: { ...rec, clock } });
}

describe('the clock of a run', () => {
  it('is the one stored with it', () => {
    assert.deepEqual(clockOf(withExtra(makeRun({ id: 1, values: { x: A } }), { clock: 'thread-cpu' })), { known: true, value: 'thread-cpu' });
    assert.deepEqual(clockOf(withExtra(makeRun({ id: 1, values: { x: A } }), { clock: 'wall' })), { known: true, value: 'wall' });
  });

  it('of an A/B run stored before runs carried it is its interleave record\'s', () => {
    assert.deepEqual(clockOf(interleavedOn(makeRun({ id: 1, values: { x: A } }), 'thread-cpu')), { known: true, value: 'thread-cpu' });
  });

  it('of a host run that stored none is the wall clock: the probe had no other before it recorded one', () => {
    assert.deepEqual(clockOf(makeRun({ id: 1, values: { x: A }, design: 'separate' })), { known: true, value: 'wall' });
    assert.deepEqual(clockOf(makeRun({ id: 1, values: { x: A } })), { known: true, value: 'wall' });
  });

  it('of a guest run is the guest\'s, by its unit', () => {
    assert.deepEqual(clockOf(makeRun({ id: 1, values: { x: A }, unit: 'instructions/call', kind: 'vm' })), { known: true, value: 'guest-icount' });
    assert.deepEqual(clockOf(makeRun({ id: 1, values: { x: A }, unit: 'emulated-time/call', kind: 'vm' })), { known: true, value: 'guest-emulated' });
  });
});

describe('compare and the clock', () => {
  it('refuses runs on different clocks, naming both', () => {
    const a = withExtra(makeRun({ id: 1, values: { x: A } }), { clock: 'thread-cpu' });
    const b = withExtra(makeRun({ id: 2, values: { x: B } }), { clock: 'wall' });
    assert.throws(
      () => compare({ a, b }),
      (err: unknown) =>
        err instanceof ComparisonRefused &&
        err.message.includes("clock: A = 'thread-cpu', B = 'wall'") &&
        err.message.includes('hintlab bench --clock wall or --clock cpu') &&
        err.message.includes('--allow-mismatch'),
    );
  });

  it('with --allow-mismatch every report says the clocks differ, in the table caption and the facts', () => {
    const a = withExtra(makeRun({ id: 1, values: { x: A } }), { clock: 'thread-cpu' });
    const b = withExtra(makeRun({ id: 2, values: { x: B } }), { clock: 'wall' });
    const cmp = compare({ a, b }, { allowMismatch: true });
    assert.equal(cmp.clock.known, false);
    assert.deepEqual(cmp.runs.map((r) => r.clock), [{ known: true, value: 'thread-cpu' }, { known: true, value: 'wall' }]);
    const lkml = lkmlReport(cmp, { hintlabVersion: 't', generatedAt: 't' }).replace(/\n\s*/g, ' ');
    assert.match(lkml, /Means in ns\/call \(CLOCKS DIFFER: A thread CPU clock, B wall clock\), B vs A/);
    assert.match(lkml, /Mismatch allowed: clock: A thread-cpu, B wall/);
    assert.match(renderText(cmp), /^clock: CLOCKS DIFFER: A the probe thread's CPU time/m);
  });

  it('names the shared clock in the document and the reports', () => {
    const a = interleavedOn(makeRun({ id: 1, values: { x: A } }), 'thread-cpu');
    const b = interleavedOn(makeRun({ id: 2, values: { x: B } }), 'thread-cpu');
    const cmp = compare({ a, b });
    assert.deepEqual(cmp.clock, { known: true, value: 'thread-cpu' });
    assert.match(lkmlReport(cmp, { hintlabVersion: 't', generatedAt: 't' }), /^Means in ns\/call \(thread CPU clock\), B vs A/m);
    assert.match(renderText(cmp), /^clock: the probe thread's CPU time \(CLOCK_THREAD_CPUTIME_ID\): the time other tasks held the CPU left out$/m);
  });
});
