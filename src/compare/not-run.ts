/**
 * Stressors a macro run asked for but could not run. `hintlab macro`
 * records them in `run.params.extra.unavailable` as
 * `{ stressor, reason }[]` (src/macro/stressors.ts, e.g. reason
 * 'not in stress-ng 0.15.06'); a comparison carries them so every report can
 * say the measured set was incomplete.
 */
import type { RunWithRounds } from '../model.ts';
import type { NotRun, RunRole } from './types.ts';

/** Every stressor some run could not run, in first-recorded order, with the runs that lacked it. */
export function notRunOf(runs: readonly { role: RunRole; run: RunWithRounds }[]): NotRun[] {
  const byKey = new Map<string, NotRun>();
  for (const { role, run } of runs) {
    for (const { stressor, reason } of run.params.extra.unavailable ?? []) {
      const key = JSON.stringify([stressor, reason]);
      const entry = byKey.get(key) ?? { stressor, reason, runs: [] };
      if (!entry.runs.includes(role)) entry.runs.push(role);
      byKey.set(key, entry);
    }
  }
  return [...byKey.values()];
}
