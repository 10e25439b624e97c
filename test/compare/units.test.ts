/** Verdicts on units of replication: processes, boots and invocations, never rounds one by one. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import { reproduceCommands } from '../../src/report/reproduce.ts';
import { htmlReport } from '../../src/report/html.ts';
import { lkmlReport } from '../../src/report/lkml.ts';
import { markdownReport } from '../../src/report/md.ts';
import { renderText } from '../../src/report/text.ts';
import { CTX } from '../report/fixtures.ts';
import { makeRun } from './fixtures.ts';
import { detectableNcp } from '../../src/stats/noncentral.ts';
import { assertClose } from '../stats/close.ts';

/** Five rounds per unit around each unit's mean, tight within the unit (±0.05 %). */
const units = (means: number[], rounds = 5) => means.flatMap((m) => Array.from({ length: rounds }, (_, i) => m * (1 + 0.0005 * Math.sin(i + m))));

describe('unit-level verdicts', () => {
  it('do not claim a change that only rounds sharing a process support', () => {
    // Two runs whose processes scatter the same way: rounds of one process agree, processes do not.
    const a = makeRun({ id: 1, values: { getppid: units([100, 103, 99]) }, units: 3 });
    const b = makeRun({ id: 2, values: { getppid: units([105, 102, 106]) }, units: 3 });
    const byRounds = compare({ a, b }, { roundsAsUnits: true }).subjects[0]!;
    const byUnits = compare({ a, b }).subjects[0]!;
    assert.equal(byRounds.verdict.verdict, 'slower', 'fifteen rounds taken as independent look certain');
    assert.equal(byUnits.verdict.verdict, 'no difference proven');
    assert.deepEqual(byUnits.change.units, { baseline: 3, candidate: 3 });
    // df from units: Welch on 3 unit means per side has at most 4 degrees of freedom
    assert.ok(byUnits.change.test.kind === 'ok' && byUnits.change.test.df <= 4);
    assert.ok(byUnits.change.roundWelch.kind === 'ok' && byUnits.change.roundWelch.df > 20, 'the round-level test is kept for reference');
    assert.deepEqual(byUnits.runs.map((r) => [r.units, r.roundsPerUnit]), [[3, [5, 5, 5]], [3, [5, 5, 5]]]);
  });

  it('the interval resamples units: wider than the one over rounds for the same data', () => {
    const a = makeRun({ id: 1, values: { x: units([100, 103, 99]) }, units: 3 });
    const b = makeRun({ id: 2, values: { x: units([105, 102, 106]) }, units: 3 });
    const ci = compare({ a, b }).subjects[0]!.change.ciPct;
    const roundCi = compare({ a, b }, { roundsAsUnits: true }).subjects[0]!.change.ciPct;
    assert.ok(ci.kind === 'ok' && roundCi.kind === 'ok');
    assert.ok(ci.high - ci.low > 1.5 * (roundCi.high - roundCi.low), `${ci.low}..${ci.high} vs ${roundCi.low}..${roundCi.high}`);
  });

  it('say insufficient units, and what to run, when a run has one probe process', () => {
    const a = makeRun({ id: 1, values: { getppid: units([100]) }, units: 1 });
    const b = makeRun({ id: 2, values: { getppid: units([120]) }, units: 1 });
    const s = compare({ a, b }).subjects[0]!;
    assert.equal(s.verdict.verdict, 'insufficient units');
    assert.match(s.verdict.reason, /^A has 1 process and B has 1 process; a claim needs at least 3 per run/);
    assert.match(s.verdict.reason, /run 3 or more probe processes per run: hintlab bench --processes 5/);
    assert.deepEqual(s.change.adjusted, { kind: 'not-tested', reason: s.verdict.reason });
  });

  it('say what a vm user must boot, in boots', () => {
    const a = makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: { getppid: units([1000]) }, units: 1 });
    const b = makeRun({ id: 2, kind: 'vm', unit: 'instructions/call', values: { getppid: units([1010]) }, units: 1 });
    const s = compare({ a, b }).subjects[0]!;
    assert.equal(s.verdict.verdict, 'insufficient units');
    assert.match(s.verdict.reason, /A has 1 boot and B has 1 boot/);
    assert.match(s.verdict.reason, /boot each kernel 3 or more times/);
  });

  it('count a run recorded before units were stored as one unit, and say so', () => {
    const old = (id: number, v: number) => ({ ...makeRun({ id, values: { getppid: units([v, v, v]) }, units: 1 }), replicateUnit: { known: false as const, reason: 'units not recorded' } });
    const s = compare({ a: old(1, 100), b: old(2, 120) }).subjects[0]!;
    assert.equal(s.verdict.verdict, 'insufficient units');
    assert.match(s.verdict.reason, /A has 1 unit \(units not recorded\)/);
    assert.match(s.verdict.reason, /measure again with this hintlab, which records units/);
  });
});

// icount is repeatable to about 0.001 % between boots and 0.01 % between rounds.
const boots = (base: number, offsets: number[]) => offsets.flatMap((o) => Array.from({ length: 5 }, (_, i) => base * (1 + o / 1e5) * (1 + 1e-4 * Math.sin(7 * i + o))));

describe('instruction counts', () => {

  it('find a 1 % change with 3 boots per kernel, in more/fewer instructions, never slower/faster', () => {
    const a = makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: { getppid: boots(1800, [0, 1, -1]), sched_getattr: boots(2400, [1, 0, -1]) }, units: 3 });
    const b = makeRun({ id: 2, kind: 'vm', unit: 'instructions/call', values: { getppid: boots(1800, [1, -1, 0]), sched_getattr: boots(2424, [0, -1, 1]) }, units: 3 });
    // The default ±1 % noise threshold is for times; a 1 % claim needs a smaller one, which icount's 0.001 % noise allows.
    const cmp = compare({ a, b }, { thresholdPct: 0.1 });
    assert.equal(cmp.measures, 'instructions');
    const [getppid, sched] = cmp.subjects;
    assert.equal(sched!.verdict.verdict, 'more instructions');
    assert.equal(getppid!.verdict.verdict, 'no difference proven');
    assert.deepEqual(cmp.regressions, ['sched_getattr']);
    assert.ok(sched!.power.kind === 'ok' && sched!.power.mdePct < 0.1, 'three boots see far below 1 %');
    assert.ok(getppid!.power.kind === 'ok' && getppid!.power.claimablePct >= 0.1, 'but nothing inside the threshold can be claimed');
    const text = renderText(cmp);
    assert.match(text, /fewer\/more instructions needs/);
    assert.match(text, /^more instructions: sched_getattr \(\+1\.00 %\)$/m);
    assert.equal(text.match(/ignore cycles, caches and stalls/g)?.length, 1, 'said once');
    assert.doesNotMatch(text, /\b(slower|faster|regressions)\b/);
  });
});

describe('the detectable change', () => {
  it('is the change claimed with 80 % power: the threshold plus the one-sided noncentral-t multiple of the standard error', () => {
    const a = makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: { getppid: boots(1800, [0, 1, -1]) }, units: 3 });
    const b = makeRun({ id: 2, kind: 'vm', unit: 'instructions/call', values: { getppid: boots(1800, [1, -1, 0]) }, units: 3 });
    const s = compare({ a, b }).subjects[0]!;
    assert.ok(s.power.kind === 'ok' && s.change.ciPct.kind === 'ok');
    const test = s.change.test;
    assert.ok(test.kind === 'ok');
    assert.ok(s.power.mdePct < 0.01, `Welch alone sees ${s.power.mdePct} %`);
    // one-sided at alpha 0.05 with power 0.8 at Welch's df: the ncp solved from scipy's nct is checked in test/stats/noncentral.test.ts
    assertClose(s.power.claimablePct, 1 + detectableNcp(test.df, 0.05, 0.8, 1) * test.sePct, 1e-12);
    assert.ok(s.power.claimablePct > 1 + (s.change.ciPct.high - s.change.ciPct.low) / 2, 'more than the whole-CI figure, which claims about half the time');
    assert.match(renderText(compare({ a, b })), /smallest detectable change: 1\.0\d* % \(alpha 0\.05, power 80 %; the test alone 0\.\d+ %, but a claim needs the change shown beyond the noise threshold\)/);
    const bare = compare({ a, b }, { thresholdPct: 0 }).subjects[0]!.power;
    assert.equal(bare.kind === 'ok' && bare.claimablePct, s.power.mdePct);
  });
});

describe('a significant change inside the noise threshold', () => {
  it('is no difference proven with the caveat inside-threshold, which the sentence says', () => {
    const a = makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: { getppid: boots(258.1, [0, 1, -1]) }, units: 3 });
    const b = makeRun({ id: 2, kind: 'vm', unit: 'instructions/call', values: { getppid: boots(257.1, [1, -1, 0]) }, units: 3 });
    const cmp = compare({ a, b });
    const s = cmp.subjects[0]!;
    assert.equal(s.verdict.verdict, 'no difference proven');
    assert.deepEqual(s.verdict.caveats, ['inside-threshold']);
    assert.match(s.verdict.reason, /not shown beyond the ±1 % noise threshold/);
    assert.match(lkmlReport(cmp, CTX), /^getppid .* no difference~\n~ significant but inside the noise threshold\n/m);
    const finer = compare({ a, b }, { thresholdPct: 0.1 }).subjects[0]!;
    assert.deepEqual([finer.verdict.verdict, finer.verdict.caveats], ['fewer instructions', []]);
  });
});

describe('control subjects', () => {
  it('are shown with their verdict but left out of the geometric mean and the regressions', () => {
    const values = (f: number) => ({ getppid: units([100 * f, 101 * f, 99 * f]), sched_getattr: units([200, 202, 198]) });
    const cmp = compare({ a: makeRun({ id: 1, values: values(1), units: 3 }), b: makeRun({ id: 2, values: values(1.1), units: 3 }) }, { controls: ['getppid'] });
    const getppid = cmp.subjects[0]!;
    assert.equal(getppid.verdict.verdict, 'slower');
    assert.equal(getppid.control, true);
    assert.deepEqual(cmp.regressions, []);
    assert.deepEqual(cmp.controls, ['getppid']);
    assert.ok(cmp.geometricMean.kind === 'ok' && cmp.geometricMean.subjects === 1 && cmp.geometricMean.ratio === 1);
    assert.match(renderText(cmp), /^controls \(left out of the geometric mean and regressions\): getppid$/m);
    // the reproduce line keeps the control, so a rerun leaves it out again
    assert.match(reproduceCommands(cmp).at(-1)!, / --control getppid$/);
  });
});

describe('instruction counts in the other formats', () => {
  it('lkml, Markdown and HTML say once that counts ignore cycles, caches and stalls, and call a claim more instructions', () => {
    const base = (f: number) => ({ getppid: units([1800 * f, 1800.01 * f, 1799.99 * f]) });
    const cmp = compare(
      { a: makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: base(1), units: 3 }), b: makeRun({ id: 2, kind: 'vm', unit: 'instructions/call', values: base(1.02), units: 3 }) },
      { thresholdPct: 0.1 },
    );
    assert.equal(cmp.subjects[0]!.verdict.verdict, 'more instructions');
    for (const text of [lkmlReport(cmp, CTX), markdownReport(cmp, CTX), htmlReport(cmp, CTX)]) {
      assert.equal(text.replace(/\n\s*/g, ' ').match(/ignore cycles, caches and stalls/g)?.length, 1);
    }
    for (const text of [markdownReport(cmp, CTX), htmlReport(cmp, CTX)]) assert.match(text.replace(/\n\s*/g, ' '), /More instructions: getppid\./);
    // The lkml table's verdict column: "more" under a caption in instructions/call.
    assert.match(lkmlReport(cmp, CTX), /^getppid .* more$/m);
  });
});

describe('spreads of instruction counts', () => {
  it('a unit CV far below 0.01 % prints with a nonzero digit, not as 0.00 %', async () => {
    const { formatSpreadPct } = await import('../../src/format/percent.ts');
    assert.equal(formatSpreadPct(0.00043), '0.0004 %');
    assert.equal(formatSpreadPct(21.7), '21.70 %');
    assert.equal(formatSpreadPct(0), '0.00 %');
  });
});

describe('the interval of a run\'s mean', () => {
  it('is over unit means: 3 processes at 100, 102, 104 give ± t(2) x 2 / sqrt 3, not the rounds\' narrower interval', () => {
    const values = [100, 102, 104].flatMap((m) => [m, m, m, m, m]);
    const cmp = compare({ a: makeRun({ id: 1, values: { getppid: values }, units: 3 }), b: makeRun({ id: 2, values: { getppid: values }, units: 3 }) });
    const ci = cmp.subjects[0]!.runs[0]!.ciMeanInUnit;
    assert.equal(ci.kind, 'ok');
    // t(0.975, 2) = 4.302653 (published tables); sd of {100, 102, 104} = 2
    const half = (4.302653 * 2) / Math.sqrt(3);
    assert.ok(Math.abs(ci.low - (102 - half)) < 1e-5 && Math.abs(ci.high - (102 + half)) < 1e-5, `${ci.low} .. ${ci.high}`);
  });
});
