/** Shared helpers for the hints tests. */
import { runCli, type CliResult } from '../helpers/cli.ts';

/** Run `hintlab ...args` in-process with captured output (paths given absolute). */
export function hintlab(args: string[]): Promise<CliResult> {
  return runCli(args);
}

/** 1-based line of the line holding `/* marker *\/` in `text`. */
export function markerLine(text: string, marker: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(`/* ${marker} */`));
  if (i < 0) throw new Error(`marker ${marker} not found`);
  return i + 1;
}
