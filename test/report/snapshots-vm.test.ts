/**
 * The text `hintlab vm` prints, as snapshots of hand-built boots: the table
 * of every boot, each boot's line, the compare command, and the boots a
 * claim needs. The reporters' bytes must not change when they move.
 */
import { test } from 'node:test';
import type { BootsNeeded } from '../../src/vm/boots-needed.ts';
import { bootsNeededText, compareLine, stepLine, stepsTable } from '../../src/report/vm.ts';
import type { StepResult } from '../../src/vm/runner.ts';
import type { VmKernel } from '../../src/vm/kernels.ts';
import { makeRun } from '../compare/fixtures.ts';
import { assertSnapshot } from './snapshot.ts';

const kernel = (label: string): VmKernel => ({ label, image: `/k/${label}/bzImage`, manifest: null, configHash: { known: false, reason: 'no .config beside the image' } });

function boot(index: number, label: string, bootIndex: number, runId: number, outcome: { seconds: number } | { reason: string }, pooled = false): StepResult {
  const plan = { index, kernel: kernel(label), bootIndex, runLabel: pooled ? `vm-${label}` : `vm-${label}-${bootIndex}` };
  return 'seconds' in outcome ? { ...plan, state: 'complete', runId, seconds: outcome.seconds } : { ...plan, state: 'failed', runId, reason: outcome.reason };
}

test('the vm table gives each boot a column and each profile its median with its CV, a failed boot its status', () => {
  const runs = [
    makeRun({ id: 1, label: 'vm-A-1', kind: 'vm', unit: 'instructions/call', values: { getppid: [412, 412, 413], 'sched_yield': [1890, 1902, 1888] } }),
    makeRun({ id: 2, label: 'vm-B-1', kind: 'vm', unit: 'instructions/call', values: { getppid: [405, 405, 405], 'sched_yield': [1802, 1800, 1799] } }),
    makeRun({ id: 3, label: null, kind: 'vm', unit: 'instructions/call', status: 'failed', values: { getppid: [] } }),
  ];
  assertSnapshot('vm-steps-table-instructions', stepsTable(runs));
  const kvm = [makeRun({ id: 7, label: 'vm-A-1', kind: 'vm', unit: 'ns/call', values: { getppid: [61.25, 60.5, 63.75] } })];
  assertSnapshot('vm-steps-table-ns', stepsTable(kvm));
  const bogo = [makeRun({ id: 8, label: 'vm-A-1', kind: 'vm', unit: 'bogo-ops/s', values: { 'yield@1': [120400, 119800] } })];
  assertSnapshot('vm-steps-table-throughput', stepsTable(bogo));
  assertSnapshot('vm-steps-table-empty', stepsTable([]));
});

test('each boot prints one line: complete with its run and seconds, or FAILED with the reason indented below', () => {
  const lines = [
    stepLine(boot(0, 'A', 1, 11, { seconds: 7.04 })),
    stepLine(boot(1, 'B', 2, 12, { seconds: 12.96 }, true)),
    stepLine(boot(2, 'A', 2, 13, { reason: 'qemu exited with status 1\nkernel panic - not syncing' })),
  ];
  assertSnapshot('vm-step-lines', lines.join(''));
});

test('the compare command names each kernel\'s runs, the --db, and says when fewer than 3 boots cannot carry a claim', () => {
  const three = [1, 2, 3].flatMap((i) => [boot(2 * i - 2, 'A', i, 2 * i - 1, { seconds: 7 }), boot(2 * i - 1, 'B', i, 2 * i, { seconds: 7 })]);
  const two = three.slice(0, 4);
  assertSnapshot('vm-compare-line', [compareLine(three, undefined), compareLine(three, '/tmp/lab.db'), compareLine(two, undefined)].join('---\n'));
});

test('the boots a claim needs are listed per subject, with the spread between boots, tiny spreads in two significant digits', () => {
  const rows: BootsNeeded[] = [
    { subject: 'getppid', boots: 6, spreadPct: 0.000412, needed: { kind: 'ok', boots: 2 } },
    { subject: 'sched_yield', boots: 6, spreadPct: 1.2345, needed: { kind: 'ok', boots: 14 } },
    { subject: 'open', boots: 6, spreadPct: null, needed: { kind: 'unknown', reason: 'needs two boots of one kernel to measure the spread between boots' } },
    { subject: 'close', boots: 6, spreadPct: 0, needed: { kind: 'ok', boots: 2 } },
  ];
  assertSnapshot('vm-boots-needed', bootsNeededText(rows, 0.5));
  assertSnapshot('vm-boots-needed-none', bootsNeededText([], 1));
});
