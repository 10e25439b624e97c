/**
 * The table `hintlab macro` prints after a run, from a hand-built run whose
 * figures are worked out here by hand: throughput with its CV, the usr+sys
 * throughput, and each stressor metric with its unit and its spread.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { macroTable } from '../../src/report/macro.ts';
import { makeRun } from '../compare/fixtures.ts';

function macroRun() {
  const run = makeRun({ id: 1, kind: 'macro', unit: 'bogo-ops/s', values: { 'yield@1': [1000, 1200, 800], 'get@1': [50] } });
  const ns = [100, 110, 90];
  for (const r of run.rounds.filter((x) => x.subject === 'yield@1')) {
    r.metrics = [
      { name: 'bogo-ops-per-second-usr-sys-time', value: 2 * r.value, unit: 'bogo-ops/s', direction: 'higher-is-better' },
      { name: 'ns-duration-per-schedyield-call', value: ns[r.index]!, unit: 'ns', direction: 'lower-is-better' },
    ];
  }
  for (const r of run.rounds.filter((x) => x.subject === 'get@1')) {
    r.metrics = [{ name: 'syscalls-per-sec', value: 7, unit: 'calls/s', direction: 'higher-is-better' }];
  }
  return run;
}

test('the macro table gives each subject its mean, CV (none for one round) and range, and each stressor metric its mean with its CV', () => {
  // yield@1: mean 1000, sample stdev 200 -> CV 20 %; its ns metric: mean 100, stdev 10 -> CV 10 %
  assert.equal(
    macroTable(macroRun()),
    [
      'subject  mean bogo-ops/s      CV    min    max  rounds  usr+sys bogo-ops/s',
      'yield@1             1000  20.0 %  800.0   1200       3                2000',
      'get@1              50.00     n/a  50.00  50.00       1                   -',
      'stressor metrics:',
      '  yield@1 ns-duration-per-schedyield-call: mean 100.0 ns, CV 10.0 % over 3 rounds',
      '  get@1 syscalls-per-sec: mean 7.000 calls/s, CV n/a over 1 round',
      '',
    ].join('\n'),
  );
});
