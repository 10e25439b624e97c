/**
 * The lines `hintlab trial` prints on stderr as its steps go: each step as
 * it starts, and as it ends with its wall time and what it did, or how it
 * failed. Text only; the CLI decides where it goes.
 */
import type { StepEvent } from '../trial/request.ts';
import { secondsText, stepName } from './trial-words.ts';

/** One step event as its line, newline included. */
export function stepEventLine(e: StepEvent): string {
  const at = `[${e.index}/${e.total}]`;
  if (e.kind === 'start') return `${at} ${e.title} ...\n`;
  if (e.kind === 'end') return `${at} ${stepName(e.step.name)} ${secondsText(e.step.seconds)}: ${e.step.summary}\n`;
  return `${at} ${stepName(e.name)} ${secondsText(e.seconds)}: ${e.interrupted ? 'interrupted' : 'FAILED'}\n`;
}
