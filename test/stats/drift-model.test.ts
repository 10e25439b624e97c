/**
 * The drift-adjusted difference of two groups of runs (src/stats/drift-model.ts)
 * against numpy's least squares and scipy's t distribution
 * (numpy.linalg.lstsq on [1, group, position], scipy.stats.t.sf).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { driftAdjustedDifference, type SequencedRun } from '../../src/stats/drift-model.ts';
import { assertClose } from './close.ts';

const ABBAAB = [false, true, true, false, false, true];
const runs = (ys: number[], groups: boolean[] = ABBAAB): SequencedRun[] => ys.map((y, i) => ({ y, second: groups[i]!, position: i }));

describe('the drift-adjusted difference', () => {
  // numpy.linalg.lstsq on [1, group, position] and scipy.stats.t.sf, 3 df
  const cases = [
    { ys: [10.0, 10.9, 11.3, 10.2, 10.6, 11.8], estimate: 1.0096153846153846, se: 0.13856388667447, drift: 0.17115384615384646, p: 0.0053365511313852145 },
    { ys: [1.0, 2.3, 2.9, 3.1, 4.2, 5.6], estimate: 0.5634615384615399, se: 0.15353199762013184, drift: 0.8096153846153854, p: 0.03500022607340062, residualSd: 0.18713996772834915 },
  ];
  for (const c of cases) {
    it(`matches numpy and scipy for six runs in ABBAAB order (${c.ys.join(' ')})`, () => {
      const r = driftAdjustedDifference(runs(c.ys));
      assert.ok(r.kind === 'ok');
      assertClose(r.estimate, c.estimate, 1e-12, 'estimate');
      assertClose(r.se, c.se, 1e-12, 'se');
      assertClose(r.driftPerRun, c.drift, 1e-12, 'drift');
      assert.equal(r.df, 3);
      assertClose(r.pValue, c.p, 1e-9, 'p');
      if (c.residualSd !== undefined) assertClose(r.residualSd, c.residualSd, 1e-12, 'residual sd');
    });
  }

  it('is not moved by a linear drift, whatever its slope', () => {
    const base = [0.3, 1.4, 1.1, -0.2, 0.1, 1.2];
    const flat = driftAdjustedDifference(runs(base));
    const steep = driftAdjustedDifference(runs(base.map((y, i) => y + 7 * i)));
    assert.ok(flat.kind === 'ok' && steep.kind === 'ok');
    assertClose(steep.estimate, flat.estimate, 1e-9, 'estimate');
    assertClose(steep.se, flat.se, 1e-9, 'se');
    assertClose(steep.driftPerRun - flat.driftPerRun, 7, 1e-9, 'drift');
  });

  it('widens for a nearly blocked order and refuses a confounded order, too few runs and non-finite levels', () => {
    // A A A B B B is nearly collinear with a drift: the fit exists, its se per residual sd 1.708 against ABBAAB's 0.820 (numpy: sqrt of inv(X'X)[1, 1])
    const ys = [1, 1.1, 0.9, 2, 2.1, 1.9];
    const blocked = driftAdjustedDifference(runs(ys, [false, false, false, true, true, true]));
    const interleaved = driftAdjustedDifference(runs(ys));
    assert.ok(blocked.kind === 'ok' && interleaved.kind === 'ok');
    assertClose(blocked.se / blocked.residualSd, 1.7078251276599334, 1e-12, 'AAABBB');
    assertClose(interleaved.se / interleaved.residualSd, 0.820412654142367, 1e-12, 'ABBAAB');
    const collinear = driftAdjustedDifference([{ y: 1, second: false, position: 0 }, { y: 2, second: false, position: 0 }, { y: 3, second: true, position: 1 }, { y: 4, second: true, position: 1 }]);
    assert.ok(collinear.kind === 'insufficient-data');
    assert.match(collinear.reason, /confounds the groups with a linear drift/);
    const few = driftAdjustedDifference(runs([1, 2, 3], [false, true, false]));
    assert.ok(few.kind === 'insufficient-data');
    assert.match(few.reason, /at least 4 runs/);
    const nan = driftAdjustedDifference(runs([1, 2, Number.NaN, 1, 1, 2]));
    assert.ok(nan.kind === 'insufficient-data');
    assert.match(nan.reason, /NaN/);
  });
});
