/**
 * `bench --design abbaab` as compare reads it (src/compare/abbaab.ts): six
 * runs A B B A A B of one invocation, judged on the runs' log levels with
 * a linear drift fitted beside the change. Expected values from numpy's
 * least squares on ln(level) (see test/stats/drift-model.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compare } from '../../src/compare/compare.ts';
import { designOf } from '../../src/compare/design.ts';
import { positionsOf, runLevels } from '../../src/compare/abbaab.ts';
import { renderText } from '../../src/report/text.ts';
import { verdictRuleShort } from '../../src/report/lkml-table.ts';
import { abbaabRun } from './fixtures.ts';
import { assertClose } from '../stats/close.ts';

/** Levels per run, in each side's run order; two processes per run. */
const A_RUNS = [100, 101.2, 101.6];
const B_RUNS = [103.1, 103.5, 105.4];
const twoPerRun = (levels: number[]) => levels.flatMap((l) => [l * 0.999, l * 1.001]);

describe('the abbaab design in compare', () => {
  it('is recognised from the runs of one invocation, with its order and processes per run', () => {
    const d = designOf(abbaabRun(1, twoPerRun(A_RUNS), 2), abbaabRun(2, twoPerRun(B_RUNS), 2));
    assert.deepEqual(d, { kind: 'abbaab', order: 'ABBAAB', processesPerRun: 2 });
    assert.deepEqual(positionsOf('ABBAAB'), { A: [0, 3, 4], B: [1, 2, 5] });
  });

  it('groups units into runs by their index', () => {
    const units = new Map([[0, [1, 3] as const], [1, [5] as const], [2, [10] as const], [5, [7] as const]]);
    assert.deepEqual(runLevels(units, 2), [{ run: 0, level: 3.5 }, { run: 1, level: 10 }, { run: 2, level: 7 }]);
  });

  it('judges the change on the six run levels with the drift fitted, and says so', () => {
    const c = compare({ a: abbaabRun(1, twoPerRun(A_RUNS), 2), b: abbaabRun(2, twoPerRun(B_RUNS), 2) }, { thresholdPct: 1, correction: 'none' });
    const s = c.subjects[0]!;
    assert.ok(s.change.test.kind === 'ok');
    assert.equal(s.change.test.method, 'drift-model-t');
    assert.equal(s.change.test.df, 3);
    // numpy: lstsq([1, g, t], ln([100, 103.1, 103.5, 101.2, 101.6, 105.4])), g = 0 1 1 0 0 1
    assertClose(s.change.test.sePct, 100 * 0.001758202561318592, 1e-9, 'se');
    assertClose(s.change.changePct, 100 * Math.expm1(0.028304988823398457), 1e-9, 'change');
    assert.deepEqual(s.change.units, { baseline: 3, candidate: 3 });
    assert.equal(s.verdict.verdict, 'slower');
    assert.match(s.verdict.reason, /drift-model t p = .*run levels in ABBAAB order: run-to-run variation .* per run about a fitted drift of \+0\.\d+ % per run, 3 degrees of freedom/);
    assert.equal(c.design.kind, 'abbaab');
    assert.match(c.design.text, /^abbaab: 3 runs per side in ABBAAB order \(A B B A A B\), each of 2 probe processes, judged on the run levels with a linear drift fitted beside the change \(t with 3 degrees of freedom\)$/);
    const text = renderText(c);
    assert.match(text, /Design: abbaab: 3 runs per side in ABBAAB order/);
    assert.match(text, /Units: runs \(each run's level the mean of its processes/);
    assert.match(verdictRuleShort(c), /^Verdicts: drift-model t p < 0\.05 \(no correction, 1 subject\) on run levels in ABBAAB order \(linear drift fitted\) and beyond/);
    assert.match(text, /interval of the change: 95 % t interval of B vs A on the log run levels with a linear drift fitted beside it \(runs - 3 df\), as exp\(\.\) - 1/);
  });

  it('gives insufficient data when the runs do not record their processes per run', () => {
    const strip = (id: number, levels: number[]) => {
      const r = abbaabRun(id, levels, 1);
      const { processesPerRun: _dropped, ...rec } = r.params.extra.interleave!;
      return { ...r, params: { ...r.params, extra: { interleave: rec } } };
    };
    const s = compare({ a: strip(1, A_RUNS), b: strip(2, B_RUNS) }).subjects[0]!;
    assert.equal(s.verdict.verdict, 'insufficient data');
    assert.match(s.verdict.reason, /do not record their probe processes per run/);
  });

  it('says insufficient units when a side has fewer than three runs', () => {
    const s = compare({ a: abbaabRun(1, A_RUNS.slice(0, 2), 1), b: abbaabRun(2, B_RUNS, 1) }).subjects[0]!;
    assert.equal(s.verdict.verdict, 'insufficient units');
    assert.match(s.verdict.reason, /A has 2 runs and B has 3 in the order ABBAAB/);
  });
});
