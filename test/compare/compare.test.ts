/** The comparison engine on hand-built runs whose statistics are known independently (by hand or scipy). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import { assertClose } from '../stats/close.ts';
import { makeRun } from './fixtures.ts';

const A = [100, 101, 99, 100, 100, 102, 98]; // mean 100, sd sqrt(10/6)
const B = A.map((x) => x + 10); // mean 110

describe('compare: B vs A', () => {
  const a = makeRun({ id: 1, values: { getppid: A, getpid: [50, 50.5, 49.5, 50, 50, 50.2, 49.8] } });
  const b = makeRun({ id: 2, values: { getppid: B, getpid: [50, 50.4, 49.6, 50.1, 49.9, 50.2, 49.8] } });
  const cmp = compare({ a, b });
  const getppid = cmp.subjects.find((s) => s.subject === 'getppid')!;

  it('summarizes each run: mean, median, stdev, CV, extremes and the t interval of the mean', () => {
    const s = getppid.runs[0]!;
    assert.equal(s.role, 'A');
    assert.equal(s.n, 7);
    assert.equal(s.meanInUnit, 100);
    assert.equal(s.medianInUnit, 100);
    assertClose(s.stdevInUnit, 1.2909944487358056); // numpy.std(A, ddof=1)
    assertClose(s.cvPct, 1.2909944487358056);
    assert.equal(s.minInUnit, 98);
    assert.equal(s.maxInUnit, 102);
    // t.ppf(0.975, 6) * sd / sqrt(7) = 1.1939707270155075
    assert.equal(s.ciMeanInUnit.kind, 'ok');
    assertClose(s.ciMeanInUnit.low, 100 - 1.1939707270155075);
    assertClose(s.ciMeanInUnit.high, 100 + 1.1939707270155075);
    assert.deepEqual(s.valuesInUnit, A);
    // Rounds interleave getppid and getpid, so getppid sits at even positions.
    assert.deepEqual(s.seqs, [0, 2, 4, 6, 8, 10, 12]);
    assert.deepEqual(s.opsPerRound, Array(7).fill(100_000));
  });

  it('gives the change in the unit and in %, with Welch and Mann-Whitney p-values (scipy)', () => {
    const c = getppid.change;
    assert.equal(c.changeInUnit, 10);
    assertClose(c.changePct, 10);
    assertClose(c.ratio, 1.1);
    // ttest_ind(B, A, equal_var=False): statistic=14.491376746189438, pvalue=5.7622355537709696e-09, df=12.0
    assert.equal(c.test.kind, 'ok');
    assert.equal(c.test.method, 'welch');
    assertClose(c.test.t, 14.491376746189438, 1e-12);
    assertClose(c.test.df, 12, 1e-12);
    assertClose(c.test.pValue, 5.7622355537709696e-9, 1e-9);
    // A has three rounds of 100, so the tie-corrected normal approximation applies:
    // mannwhitneyu(B, A, method='asymptotic'): statistic=49.0, pvalue=0.0019752575252092795
    const mw = c.rank;
    assert.equal(mw.kind, 'ok');
    assert.equal(mw.method, 'mann-whitney');
    assertClose(mw.pValue, 0.0019752575252092795, 1e-12);
  });

  it('bounds the bootstrap interval by the extreme resamples: 108/102 and 112/98', () => {
    const ci = getppid.change.ciPct;
    assert.equal(ci.kind, 'ok');
    assert.ok(ci.low > 100 * (108 / 102 - 1) && ci.low < 10, `low ${ci.low}`);
    assert.ok(ci.high < 100 * (112 / 98 - 1) && ci.high > 10, `high ${ci.high}`);
  });

  it('calls +10 % with p < alpha and the CI beyond 1 % slower, and a flat subject no difference proven', () => {
    assert.equal(getppid.verdict.verdict, 'slower');
    assert.match(getppid.verdict.reason, /beyond the ±1 % noise threshold/);
    assert.equal(cmp.subjects.find((s) => s.subject === 'getpid')!.verdict.verdict, 'no difference proven');
    assert.deepEqual(cmp.regressions, ['getppid']);
  });

  it('takes the geometric mean of the per-subject ratios', () => {
    const ratioGetpid = (50 / 50); // both getpid means are exactly 50
    assert.equal(cmp.geometricMean.kind, 'ok');
    assertClose(cmp.geometricMean.ratio, Math.sqrt(1.1 * ratioGetpid), 1e-12);
    assert.equal(cmp.geometricMean.improved, false);
    // getppid is 'slower', getpid 'no difference proven': one claim under the mean
    assert.equal(cmp.geometricMean.claims, 1);
  });

  it('records unit, direction and options', () => {
    assert.equal(cmp.unit, 'ns/call');
    assert.equal(cmp.direction, 'lower-is-better');
    assert.equal(cmp.options.alpha, 0.05);
    assert.equal(cmp.options.thresholdPct, 1);
    assert.equal(cmp.options.confidenceLevel, 0.95);
  });
});

describe('compare: verdict rules', () => {
  it('says insufficient data below 5 rounds per run instead of guessing', () => {
    const cmp = compare({ a: makeRun({ id: 1, values: { x: [100, 101, 99] } }), b: makeRun({ id: 2, values: { x: [120, 121, 119] } }) });
    const v = cmp.subjects[0]!.verdict;
    assert.equal(v.verdict, 'insufficient data');
    assert.match(v.reason, /A has 3 rounds and B has 3; at least 5/);
  });

  it('keeps a significant change inside the noise threshold at no difference proven', () => {
    const base = [100, 100.2, 99.8, 100.1, 99.9, 100, 100.05, 99.95];
    const cmp = compare({ a: makeRun({ id: 1, values: { x: base } }), b: makeRun({ id: 2, values: { x: base.map((v) => v + 0.5) } }) });
    const v = cmp.subjects[0]!.verdict;
    // Welch p = 1.08e-6 (scipy), but +0.5 % is inside ±1 %.
    assert.equal(v.verdict, 'no difference proven');
    assert.match(v.reason, /not shown beyond the ±1 % noise threshold/);
    assert.equal(compare({ a: makeRun({ id: 1, values: { x: base } }), b: makeRun({ id: 2, values: { x: base.map((v) => v + 0.5) } }) }, { thresholdPct: 0.1 }).subjects[0]!.verdict.verdict, 'slower');
  });

  it('reads higher-is-better units the other way: fewer bogo-ops/s is slower', () => {
    const a = makeRun({ id: 1, kind: 'macro', unit: 'bogo-ops/s', values: { 'fifo@2': B } });
    const b = makeRun({ id: 2, kind: 'macro', unit: 'bogo-ops/s', values: { 'fifo@2': A } });
    const cmp = compare({ a, b });
    assert.equal(cmp.direction, 'higher-is-better');
    assert.equal(cmp.subjects[0]!.verdict.verdict, 'slower');
    assert.deepEqual(cmp.regressions, ['fifo@2']);
    assert.equal(cmp.geometricMean.kind === 'ok' && cmp.geometricMean.improved, false);
    assert.equal(compare({ a: b, b: a }).subjects[0]!.verdict.verdict, 'faster');
  });

  it('lists subjects missing from A or B instead of comparing them', () => {
    const cmp = compare({ a: makeRun({ id: 1, values: { x: A, y: A } }), b: makeRun({ id: 2, values: { x: A, z: A } }) });
    assert.deepEqual(cmp.subjects.map((s) => s.subject), ['x']);
    assert.deepEqual(cmp.notCompared, [
      { subject: 'y', presentIn: ['A'] },
      { subject: 'z', presentIn: ['B'] },
    ]);
  });

  it('gives the minimum detectable effect and the units for --detect (here every round is its own unit)', () => {
    const cmp = compare({ a: makeRun({ id: 1, values: { x: A } }), b: makeRun({ id: 2, values: { x: A } }) }, { detectPct: 1, thresholdPct: 0 });
    const p = cmp.subjects[0]!.power;
    assert.equal(p.kind, 'ok');
    // the ncp with exact two-sided power 0.8 at 12 df (scipy nct: 3.0526574670540905; the textbook
    // t.ppf(.975, 12) + t.ppf(.8, 12) is 3.0514) x sqrt(2 * (10/6) / 7), as % of the mean 100
    assertClose(p.mdePct, 3.0526574670540905 * Math.sqrt((2 * 10) / 6 / 7), 1e-6);
    assert.equal(p.detectPct, 1);
    // 1 % of 100 at sd sqrt(10/6): 28 units, also the smallest n with exact noncentral-t power >= 0.8 (scipy)
    assert.equal(p.unitsNeeded, 28);
  });
});
