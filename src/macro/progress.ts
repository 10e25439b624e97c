/** How long a macro run's plan still needs (its progress label is src/report/macro.ts's). */
import type { MacroProgress } from './runner.ts';

/** Seconds left in the whole plan, `elapsedSeconds` into the current phase. */
export function secondsLeft(p: MacroProgress, elapsedSeconds: number): number {
  return Math.max(0, p.phaseSeconds - elapsedSeconds) + p.secondsAfterPhase;
}
