/** The percentile bootstrap of the % change, on samples whose resampling distribution is known exactly. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hierarchicalBootstrapChangePct, sortedPercentile } from '../../src/stats/bootstrap.ts';
import { mulberry32 } from '../../src/stats/random.ts';
import { assertClose } from './close.ts';

const options = { resamples: 10_000, seed: 1, level: 0.95 };

/** Every round its own unit: the two-stage bootstrap reduces to the one-stage one, whose distribution these tests know. */
const oneRoundUnits = (baseline: number[][], candidate: number[], opts = options) =>
  hierarchicalBootstrapChangePct(baseline.map((run) => run.map((x): [number] => [x])), candidate.map((x): [number] => [x]), opts);

describe('percentile bootstrap of the % change', () => {
  it('is a single point when every resample gives the same change', () => {
    const ci = oneRoundUnits([[100, 100, 100]], [110, 110], options);
    assert.equal(ci.kind, 'ok');
    assertClose(ci.low, 10);
    assertClose(ci.high, 10);
    assert.equal(ci.level, 0.95);
  });

  it('spans the resampling distribution: B = {100, 120} resamples to means 100/110/120 with chances 1/4, 1/2, 1/4', () => {
    // Against a constant baseline of 100 the change is 0, 10 or 20 %; 2.5 % and 97.5 % percentiles are 0 and 20.
    const ci = oneRoundUnits([[100, 100, 100]], [100, 120], options);
    assert.equal(ci.kind, 'ok');
    assertClose(ci.low, 0, 1e-12);
    assertClose(ci.high, 20);
  });

  it('resamples a pooled baseline run by run: A = {100, 100}, A2 = {90, 90} always pools to 95', () => {
    // Pooling before resampling would let the pooled mean wander between 90 and 100.
    const ci = oneRoundUnits([[100, 100], [90, 90]], [95, 95], options);
    assert.deepEqual(ci, { kind: 'ok', low: 0, high: 0, level: 0.95 });
  });

  it('is repeatable for a seed and moves with another seed', () => {
    const a = [100, 101, 99, 102, 98];
    const b = [103, 104, 102, 105, 101];
    assert.deepEqual(oneRoundUnits([a], b, options), oneRoundUnits([a], b, options));
    assert.notDeepEqual(oneRoundUnits([a], b, options), oneRoundUnits([a], b, { ...options, seed: 2 }));
  });

  it('says insufficient data with fewer than 2 rounds in a run', () => {
    assert.equal(oneRoundUnits([[100]], [101, 102], options).kind, 'insufficient-data');
  });

  it('takes type-7 percentiles like numpy.percentile', () => {
    // numpy.percentile([1, 2, 3, 4, 10], [2.5, 50, 97.5]) = [1.1, 3.0, 9.4]
    assertClose(sortedPercentile([1, 2, 3, 4, 10], 0.025), 1.1);
    assertClose(sortedPercentile([1, 2, 3, 4, 10], 0.5), 3);
    assertClose(sortedPercentile([1, 2, 3, 4, 10], 0.975), 9.4);
  });
});

describe('mulberry32', () => {
  it('gives the reference outputs of the published C implementation for seed 0', () => {
    // The C original (a += 0x6D2B79F5; ...) compiled with gcc, seed 0: 1144304738, then 1416247
    const r = mulberry32(0);
    assert.equal(r() * 4294967296, 1144304738);
    assert.equal(r() * 4294967296, 1416247);
  });
});

describe('hierarchical (two-stage) bootstrap of the % change', () => {
  it('resamples units: two units at 100 and 120 give levels 100, 110, 120 with chances 1/4, 1/2, 1/4', () => {
    // Rounds within a unit are equal, so only the first stage moves the level: as with two rounds above.
    const ci = hierarchicalBootstrapChangePct([[[100, 100, 100], [100, 100, 100]]], [[100, 100], [120, 120]], options);
    assert.equal(ci.kind, 'ok');
    assertClose(ci.low, 0, 1e-12);
    assertClose(ci.high, 20);
  });

  it('needs two units in every run, however many rounds they hold', () => {
    const ci = hierarchicalBootstrapChangePct([[[100, 101, 99, 100]]], [[110, 111], [109, 110]], options);
    assert.deepEqual(ci, { kind: 'insufficient-data', reason: 'the bootstrap interval needs at least 2 units of replication in every run' });
  });
});
