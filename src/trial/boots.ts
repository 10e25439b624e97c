/**
 * How many boots per kernel a trial makes unless `--repeat` says. Exact
 * verdicts (counts every boot repeats) skip Holm, so a claim needs boots
 * enough for the family it belongs to (src/compare/exact.ts): 3 per side
 * for one subject, 4 for 2 to 6, 5 for up to 25. The trial compares its
 * profiles as one family and its stressors as another; the larger decides.
 */
import { exactBootsNeeded } from '../compare/exact.ts';
import { STRESSOR_SETS } from '../macro/stressors.ts';

/** A verdict needs 3 units per side whatever the family. */
const MIN_BOOTS = 3;

/** The stressors a request names, its sets expanded (an upper bound: the installed stress-ng may lack some). */
export function stressorsNamed(stressors: readonly string[], sets: readonly string[]): number {
  return new Set([...stressors, ...sets.flatMap((s) => STRESSOR_SETS[s] ?? [])]).size;
}

/** Boots per kernel at which every exact claim of the trial holds `alpha` over its family. */
export function defaultRepeat(profiles: number, stressors: number, alpha: number): number {
  return Math.max(MIN_BOOTS, exactBootsNeeded(Math.max(profiles, stressors, 1), alpha));
}
