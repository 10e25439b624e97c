/** What `hintlab behave --list` and `--show` print, as snapshots of hand-built scenarios and text. */
import { test } from 'node:test';
import type { Scenario } from '../../src/behave/scenario.ts';
import { numberedLines, scenarioListText } from '../../src/report/behave.ts';
import { assertSnapshot } from './snapshot.ts';

const scenario = (name: string, steps: number, peer: boolean, cpus: 1 | 2): Scenario => ({ name, source: 'built-in', line: 1, peer, cpus, steps: Array.from({ length: steps }, () => ({}) as Scenario['steps'][number]) });

test('the scenario list gives each scenario its steps, a peer task and the CPUs it needs', () => {
  assertSnapshot('behave-scenario-list', scenarioListText([scenario('getppid', 4, false, 1), scenario('sched_setattr', 30, true, 1), scenario('affinity_two_cpus', 112, true, 2)]));
});

test('a scenario shown is its lines numbered as a divergence names them, up to the next scenario', () => {
  const text = ['scenario a', 'getppid', '', 'scenario b', 'getpid'].join('\n');
  assertSnapshot('behave-scenario-show', numberedLines(text, 1, 4) + numberedLines(text, 4, Infinity));
});
