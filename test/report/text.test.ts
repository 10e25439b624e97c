/**
 * The terminal report of a hand-built Comparison (no statistics run): the
 * key lines are written out by hand here, not captured from the code.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_OPTIONS } from '../../src/compare/compare.ts';
import type { Comparison, Contrast, RunSummary, SubjectComparison } from '../../src/compare/types.ts';
import type { Unit } from '../../src/model.ts';
import { renderText } from '../../src/report/text.ts';

function summary(role: 'A' | 'B' | 'A2', runId: number, mean: number, stdev: number): RunSummary {
  return {
    role,
    runId,
    n: 15,
    replicateUnit: { known: true, value: 'process' },
    units: 3,
    roundsPerUnit: [5, 5, 5],
    unitMeansInUnit: [mean - stdev / 2, mean, mean + stdev / 2],
    unitCvPct: (50 * stdev) / mean,
    meanInUnit: mean,
    medianInUnit: mean - 0.1,
    stdevInUnit: stdev,
    cvPct: (100 * stdev) / mean,
    minInUnit: mean - 2 * stdev,
    maxInUnit: mean + 2 * stdev,
    ciMeanInUnit: { kind: 'ok', low: mean - 0.5 * stdev, high: mean + 0.5 * stdev, level: 0.95 },
    valuesInUnit: [],
    seqs: [],
    opsPerRound: [],
  };
}

function contrast(base: number, cand: number, ci: [number, number], p: number): Contrast {
  return {
    candidate: 'B',
    baseline: 'A',
    baselineMeanInUnit: base,
    candidateMeanInUnit: cand,
    changeInUnit: cand - base,
    changePct: 100 * (cand / base - 1),
    ratio: cand / base,
    ciPct: { kind: 'ok', low: ci[0], high: ci[1], level: 0.95 },
    units: { baseline: 5, candidate: 5 },
    test: { kind: 'ok', method: 'welch', t: 5, df: 7.5, pValue: p, sePct: 0.1 },
    rank: { kind: 'ok', method: 'mann-whitney', pValue: 0.0004, minPValue: 0.0079 },
    pairs: null,
    roundWelch: { kind: 'ok', t: 12, df: 27.5, pValue: p / 100 },
    runToRun: { kind: 'not-estimated' },
    // Holm over two subjects with equal p-values: 2 p each.
    adjusted: { kind: 'adjusted', correction: 'holm', familySize: 2, pValue: 2 * p, rankPValue: 0.0008 },
  };
}

function subject(name: string, a: number, b: number, ci: [number, number], verdict: SubjectComparison['verdict']): SubjectComparison {
  return {
    subject: name,
    runs: [summary('A', 1, a, a * 0.004), summary('B', 2, b, b * 0.005)],
    change: contrast(a, b, ci, 2e-9),
    drift: { kind: 'no-a2' },
    power: { kind: 'ok', alpha: 0.05, power: 0.8, mdePct: 0.42, claimablePct: 0.42, detectPct: 0.5, unitsNeeded: 21, advice: null },
    verdict,
    judgedOn: 'B vs A',
    control: false,
  };
}

function comparison(unit: Unit): Comparison {
  return {
    schema: 9,
    design: { kind: 'processes', text: 'processes: A and B probe processes interleaved A B B A in one invocation, unpaired, 5 units per side', processesPerSide: null, cpus: null },
    unit,
    clock: { known: true, value: 'wall' },
    measures: unit === 'instructions/call' ? 'instructions' : 'time',
    direction: 'lower-is-better',
    runs: [1, 2].map((id) => ({
      role: id === 1 ? ('A' as const) : ('B' as const),
      id,
      label: id === 1 ? 'plain' : 'patched',
      kind: 'bench' as const,
      status: 'complete' as const,
      replicateUnit: { known: true as const, value: 'process' as const },
      startedAt: `2026-11-29T12:0${id}:00.000Z`,
      finishedAt: null,
      error: null,
      command: 'hintlab bench',
      hintlabVersion: '0.1.0',
      params: { subjects: [], ops: null, warmups: 0, rounds: 15, cpu: 1, subjectParams: {}, extra: {} },
      environment: {},
      clock: { known: true as const, value: 'wall' as const },
    })),
    options: { ...DEFAULT_OPTIONS, detectPct: 0.5, allowMismatch: true },
    subjects: [
      subject('getppid', 166.2, 168.2, [1.1, 1.3], {
        verdict: 'slower',
        reason: '+1.20 % (95 % CI +1.10 % to +1.30 %) lies beyond the ±1 % noise threshold, Welch p = 2.0e-9',
        caveats: [],
      }),
      subject('getpid', 150, 142.5, [-5.4, -4.6], { verdict: 'faster', reason: 'by hand', caveats: ['tests-disagree'] }),
    ],
    notCompared: [{ subject: 'select-1000', presentIn: ['A'] }],
    notRun: [],
    multipleComparisons: { correction: 'holm', familySize: 2, driftFamilySize: null },
    geometricMean: { kind: 'ok', ratio: 0.9792, changePct: -2.08, improved: true, subjects: 2, claims: 2 },
    regressions: ['getppid'],
    controls: [],
    environment: [
      { field: 'hostname', kind: 'checked', values: { A: 'lab1', B: 'lab1' }, same: true },
      { field: 'pinnedCpu', kind: 'checked', values: { A: '1', B: 'not pinned' }, same: false },
      { field: 'kernel.release', kind: 'expected', values: { A: '6.12.9-amd64', B: '6.12.9-hintlab+' }, same: false },
    ],
    mismatchesAllowed: [{ field: 'pinnedCpu', kind: 'checked', values: { A: '1', B: 'not pinned' }, same: false }],
  };
}

describe('text report', () => {
  const text = renderText(comparison('ns/call'));
  const lines = text.split('\n');

  it('prints one table row per subject: means with their round CV, change in ns and %, CI, raw and Holm p-values and verdict', () => {
    // 166.2 * 0.004 / 166.2 = 0.40 % CV; 168.2 - 166.2 = +2.0 ns; 100 * (168.2 / 166.2 - 1) = +1.20 %;
    // Holm over two equal p-values of 2.0e-9: 2 x 2.0e-9 = 4.0e-9 each.
    const header = lines.findIndex((l) => l.startsWith('subject  '));
    assert.deepEqual(lines.slice(header, header + 3), [
      'subject  A ± round CV       B ± round CV       B vs A             95 % CI             Welch p  Holm p  MWU p   verdict',
      'getppid  166.2 ns ± 0.40 %  168.2 ns ± 0.50 %  +2.0 ns (+1.20 %)  +1.10 % .. +1.30 %  2.0e-9   4.0e-9  4.0e-4  slower',
      'getpid   150.0 ns ± 0.40 %  142.5 ns ± 0.50 %  -7.5 ns (-5.00 %)  -5.40 % .. -4.60 %  2.0e-9   4.0e-9  4.0e-4  faster',
    ]);
  });

  it('lists the design, regressions and the geometric mean before the per-subject table and blocks', () => {
    assert.deepEqual(lines.slice(2, 12), [
      'unit: ns/call (lower is better); faster/slower needs Holm-adjusted Welch p < 0.05 and the change shown beyond ±1 % by a one-sided test (p < 0.05, Holm-adjusted)',
      'clock: wall clock (CLOCK_MONOTONIC_RAW): includes the time other tasks held the CPU',
      'measured: 3 processes per side x 5 rounds',
      'Design: processes: A and B probe processes interleaved A B B A in one invocation, unpaired, 5 units per side.',
      "Units: processes (Welch's t on unit means; Mann-Whitney shown).",
      '',
      'regressions: getppid (+1.20 %)',
      'geometric mean of B/A over 2 subjects: 0.9792 (-2.08 %), better',
      'not compared: select-1000 (measured only in A)',
      '',
    ]);
    assert.ok(lines[12]!.startsWith('subject  A'));
    assert.ok(lines.indexOf('getppid') > 12);
  });

  it('ends with how the interval was computed and the correction used, over how many subjects', () => {
    assert.deepEqual(lines.slice(-3), [
      "interval of the change: 95 % Welch t interval of the difference of unit-mean levels, in % of A's level",
      "p-values: Holm's step-down correction over 2 subjects",
      '',
    ]);
  });

  it('without a correction shows no adjusted column and says so', () => {
    const c = comparison('ns/call');
    c.options.correction = 'none';
    c.multipleComparisons = { correction: 'none', familySize: 2, driftFamilySize: null };
    const plain = renderText(c).split('\n');
    assert.ok(plain.includes('subject  A ± round CV       B ± round CV       B vs A             95 % CI             Welch p  MWU p   verdict'));
    assert.match(plain[2]!, /faster\/slower needs Welch p < 0\.05 and/);
    assert.equal(plain.at(-2), 'p-values: no multiple-comparison correction (--correction none), each of 2 subjects at alpha');
  });

  it('names the stressors a macro run could not run', () => {
    const c = comparison('bogo-ops/s');
    c.notRun = ['cpu-sched', 'flipflop', 'mtx'].map((stressor) => ({ stressor, reason: 'not in stress-ng 0.15.06', runs: ['A', 'B'] }));
    c.notRun.push({ stressor: 'fifo', reason: 'not in stress-ng 0.14.00', runs: ['B'] });
    assert.ok(
      renderText(c).includes('\nnot run: cpu-sched, flipflop, mtx (not in stress-ng 0.15.06); fifo (not in stress-ng 0.14.00; in B only)\n'),
    );
  });

  it('gives a compact block per subject with the noise of each run, the power and the verdict reason', () => {
    const start = lines.indexOf('getppid');
    assert.deepEqual(lines.slice(start, start + 6), [
      'getppid',
      '  run  units  rounds  mean      unit CV  median    stdev   CV      95 % CI of mean       min .. max',
      '  A        3      15  166.2 ns  0.20 %   166.1 ns  0.7 ns  0.40 %  165.9 ns .. 166.5 ns  164.9 ns .. 167.5 ns',
      '  B        3      15  168.2 ns  0.25 %   168.1 ns  0.8 ns  0.50 %  167.8 ns .. 168.6 ns  166.5 ns .. 169.9 ns',
      '  smallest detectable change: 0.42 % (alpha 0.05, power 80 %); 0.5 % needs 21 processes per run',
      '  verdict: slower: +1.20 % (95 % CI +1.10 % to +1.30 %) lies beyond the ±1 % noise threshold, Welch p = 2.0e-9',
    ]);
    assert.ok(lines.includes('  caveat: tests-disagree'));
  });

  it('lists the regression above the geometric mean that improved', () => {
    const regressions = lines.indexOf('regressions: getppid (+1.20 %)');
    const geomean = lines.indexOf('geometric mean of B/A over 2 subjects: 0.9792 (-2.08 %), better');
    assert.ok(regressions >= 0 && geomean === regressions + 1, text);
    assert.equal(lines[geomean + 1], 'not compared: select-1000 (measured only in A)');
  });

  it('words no direction for the geometric mean when no subject\'s own verdict claims a change', () => {
    const c = comparison('ns/call');
    for (const s of c.subjects) s.verdict = { verdict: 'no difference proven', reason: 'the CI includes 0', caveats: [] };
    c.regressions = [];
    c.geometricMean = { kind: 'ok', ratio: 0.9792, changePct: -2.08, improved: true, subjects: 2, claims: 0 };
    const plain = renderText(c).split('\n');
    assert.ok(plain.includes('geometric mean of B/A over 2 subjects: 0.9792 (-2.08 %), no change claimed for any subject'), plain.join('\n'));
    assert.ok(!plain.some((l) => /geometric mean.*better/.test(l)));
  });

  it('shows differing environment fields side by side, marking the allowed mismatch', () => {
    const at = lines.indexOf('environment     A             B');
    assert.ok(at >= 0, text);
    assert.deepEqual(lines.slice(at + 1, at + 5), [
      'pinnedCpu       1             not pinned       DIFFERS (allowed by --allow-mismatch)',
      'kernel.release  6.12.9-amd64  6.12.9-hintlab+  (expected)',
      'same in every run:',
      '  hostname: lab1',
    ]);
  });

  it('never prints ns for instruction-counted runs', () => {
    const icount = renderText(comparison('instructions/call'));
    assert.doesNotMatch(icount, /\bns\b/);
    assert.match(icount, /getppid {2}166\.2 instr ± 0\.40 % {2}168\.2 instr ± 0\.50 % {2}\+2\.0 instr \(\+1\.20 %\)/);
  });
});
