/**
 * The text `hintlab macro` prints, as snapshots of a hand-built run and
 * plan: the plan line, the run's table with its stressor metrics, the
 * stressors missing, the warnings, and a failed run's message. The
 * reporters' bytes must not change when they move.
 */
import { test } from 'node:test';
import { guestPlanText, macroTable, planText, unavailableText } from '../../src/report/macro.ts';
import type { VmMacroPlan } from '../../src/vm/macro.ts';
import { macroOutcome } from '../../src/cli/macro-output.ts';
import type { MacroPlan, MacroResult } from '../../src/macro/runner.ts';
import type { Store } from '../../src/store/store.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { makeRun } from '../compare/fixtures.ts';
import { assertSnapshot } from './snapshot.ts';

function macroRun() {
  const run = makeRun({ id: 4, label: 'macro-A', kind: 'macro', unit: 'bogo-ops/s', values: { 'yield@1': [1000, 1200, 800], 'get@1': [50], 'fifo@2': [49, 49] } });
  const ns = [100, 110, 90];
  for (const r of run.rounds.filter((x) => x.subject === 'yield@1')) {
    r.metrics = [
      { name: 'bogo-ops-per-second-usr-sys-time', value: 2 * r.value, unit: 'bogo-ops/s', direction: 'higher-is-better' },
      { name: 'ns-duration-per-schedyield-call', value: ns[r.index]!, unit: 'ns', direction: 'lower-is-better' },
      { name: 'cpu-usage-per-instance', value: 99.5, unit: '%', direction: 'higher-is-better' },
    ];
  }
  for (const r of run.rounds.filter((x) => x.subject === 'get@1')) r.metrics = [{ name: 'syscalls-per-sec', value: 7, unit: 'calls/s', direction: 'higher-is-better' }];
  for (const r of run.rounds.filter((x) => x.subject === 'fifo@2')) r.metrics = [{ name: 'cpu-usage-per-instance', value: 0.07, unit: '%', direction: 'higher-is-better' }];
  return run;
}

const unavailable = [{ stressor: 'sched', reason: 'needs root' }, { stressor: 'futex', reason: 'not in stress-ng 0.15.06' }];

function plan(stressors: string[]): MacroPlan {
  return {
    req: { repeats: 3, seconds: 2, cooldownSeconds: 1 },
    stressNgVersion: '0.15.06',
    stressors,
    unavailable,
    instances: [1, 2],
    items: [],
    plannedSeconds: 125,
  } as unknown as MacroPlan;
}

function capture(): { io: CliIO; out: () => string } {
  let text = '';
  const io = { stdout: (t: string) => void (text += `[stdout] ${t}`), stderr: (t: string) => void (text += `[stderr] ${t}`) } as unknown as CliIO;
  return { io, out: () => text };
}

test('the macro table gives each subject its mean, CV and range, and each stressor metric its mean with its CV', () => {
  assertSnapshot('macro-table', macroTable(macroRun()));
  assertSnapshot('macro-table-empty', macroTable(makeRun({ id: 5, kind: 'macro', unit: 'bogo-ops/s', values: { 'yield@1': [] } })));
});

test('the macro plan line says what runs and how long, after the stressors that are missing', () => {
  assertSnapshot('macro-plan', [planText(plan(['yield', 'fifo'])), planText(plan(['yield']), 'box1: '), unavailableText([])].join('---\n'));
});

test('a finished macro run prints its headline, table, missing stressors and warnings; a failed one returns its message', () => {
  const store = { path: '/tmp/lab.db' } as unknown as Store;
  const complete: MacroResult = {
    state: 'complete',
    run: macroRun(),
    warnings: [{ kind: 'load', message: 'load average at start was 3.10 (> 0.5): other work competed for the CPU' }],
    unclassifiedMetrics: ['odd-metric'],
  };
  const local = capture();
  const failure = macroOutcome(complete, plan(['yield']), store, local.io);
  const boxed = capture();
  macroOutcome(complete, plan(['yield']), store, boxed.io, 'box1');
  const failed = macroOutcome({ state: 'failed', run: macroRun(), reason: 'stress-ng exited with status 2' }, plan(['yield']), store, capture().io, 'box1');
  assertSnapshot('macro-outcome', [local.out(), String(failure), boxed.out(), failed].join('\n---\n'));
});

test('vm --macro says before the boots what each guest runs and for about how long', () => {
  const items = Array.from({ length: 12 }, () => ({}));
  const guest = (boots: number, stressors: string[]) =>
    guestPlanText({ stressNgVersion: '0.15.06', stressors, unavailable: boots === 1 ? [] : unavailable, instances: [1, 2], items } as unknown as VmMacroPlan, 10, 3, boots);
  assertSnapshot('macro-guest-plan', [guest(6, ['yield', 'fifo']), guest(1, ['yield'])].join('---\n'));
});
