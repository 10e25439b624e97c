/** The label of `hintlab macro`'s progress bar, as a snapshot of hand-built progress points. */
import { test } from 'node:test';
import { progressLabel } from '../../src/report/macro.ts';
import type { MacroProgress } from '../../src/macro/runner.ts';
import { assertSnapshot } from './snapshot.ts';

const at = (phase: MacroProgress['phase'], repeat: number, secondsAfterPhase: number): MacroProgress => ({
  item: { seq: 3, subject: 'fifo@2', stressor: 'fifo', instances: 2, repeat },
  done: 3,
  total: 10,
  repeats: 5,
  phase,
  secondsAfterPhase,
  phaseSeconds: 10,
});

test('the progress label names the subject, the repeat, the phase and the time the plan still needs', () => {
  const labels = [progressLabel(at('running', 2, 115), 0), progressLabel(at('cooldown', 4, 0), 7.4), progressLabel(at('running', 0, 3600), 30)];
  assertSnapshot('macro-progress-labels', `${labels.join('\n')}\n`);
});
