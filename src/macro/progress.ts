/**
 * The progress label of a macro run: subject, repeat, phase and the time
 * the plan still needs. Pure text; the CLI draws it on a terminal.
 */
import type { MacroProgress } from './runner.ts';
import { formatDuration } from '../format/durations.ts';

/** Seconds left in the whole plan, `elapsedSeconds` into the current phase. */
export function secondsLeft(p: MacroProgress, elapsedSeconds: number): number {
  return Math.max(0, p.phaseSeconds - elapsedSeconds) + p.secondsAfterPhase;
}

/** e.g. `fifo@2 repeat 3/5 running, 2m05s left`. */
export function progressLabel(p: MacroProgress, elapsedSeconds: number): string {
  const what = p.phase === 'running' ? 'running' : 'cooling down';
  return `${p.item.subject} repeat ${p.item.repeat + 1}/${p.repeats} ${what}, ${formatDuration(secondsLeft(p, elapsedSeconds))} left`;
}
