/**
 * Boots of one kernel under the cost plugin should give identical
 * per-function tables; when they do not, `vm --cost` and `trial --cost`
 * print how far apart they are (issue 35, "or bound it and print the
 * bound"). Tables here are built by hand, so the bound is known.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FunctionCost } from '../../src/cost-counters.ts';
import { type BootFunctions, bootsBound } from '../../src/compare/cost-functions.ts';
import { functionCountsWords } from '../../src/report/cost.ts';

const fn = (name: string, insns: number, taken = 0): FunctionCost => ({ name, addr: 'ffffffff81000000', size: 64, perCall: { insns, taken, fetches: 0, misses: 0, mispred: 0 } });
const boot = (serialInsns: number, tickTaken: number): BootFunctions => ({
  getppid: [fn('__x64_sys_getppid', 12), fn('serial8250_tx_chars', serialInsns)],
  sched_getattr: [fn('__x64_sys_sched_getattr', 90), fn('update_process_times', 0.5, tickTaken)],
});

test('boots whose tables are equal have no bound', () => {
  assert.equal(bootsBound([boot(0, 0.25), boot(0, 0.25), boot(0, 0.25)]), null);
});

test('the bound is the largest per-call difference from the first boot, in any counter, named by subject and function', () => {
  // boot 2: a transmit interrupt in getppid's window (0.0125 instructions per call); boot 3: a tick moved (0.002 taken per call)
  const bound = bootsBound([boot(0, 0.25), boot(0.0125, 0.25), boot(0, 0.252)]);
  assert.deepEqual(bound, { subject: 'getppid', function: 'serial8250_tx_chars', counter: 'insns', perCall: 0.0125 });
});

test('a function only one boot ran counts 0 in the others', () => {
  const extra = boot(0, 0.25);
  extra.getppid!.push(fn('serial8250_handle_irq', 0.004));
  assert.deepEqual(bootsBound([boot(0, 0.25), extra]), { subject: 'getppid', function: 'serial8250_handle_irq', counter: 'insns', perCall: 0.004 });
});

test('the words say identical, or DIFFER with the bound in the counter\'s own words', () => {
  assert.equal(functionCountsWords({ boots: 4, identical: true }), 'per-function counts identical across 4 boot(s)');
  assert.equal(
    functionCountsWords({ boots: 4, identical: false, bound: { subject: 'getppid', function: 'serial8250_tx_chars', counter: 'insns', perCall: 0.0125 } }),
    'per-function counts DIFFER across 4 boot(s), by at most 0.013 kernel instructions per call (getppid: serial8250_tx_chars)',
  );
  assert.equal(functionCountsWords({ boots: 3, identical: false, bound: null }), 'per-function counts DIFFER across 3 boot(s), in which functions they list but in no per-call count');
  // a trial document written before the bound was recorded (TRIAL_COST_SCHEMA 2) has none to print
  assert.equal(functionCountsWords({ boots: 3, identical: false }), 'per-function counts DIFFER across 3 boot(s)');
});
