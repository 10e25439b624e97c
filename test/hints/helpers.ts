/** Shared helpers for the hints tests: run the CLI in-process, find marker lines. */
import { run } from '../../src/cli/main.ts';
import type { CliIO } from '../../src/cli/io.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `hintlab ...args` in-process with captured output. */
export async function hintlab(args: string[], cwd = process.cwd()): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    isTTY: false,
    env: process.env,
    cwd,
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

/** 1-based line of the line holding `/* marker *\/` in `text`. */
export function markerLine(text: string, marker: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(`/* ${marker} */`));
  if (i < 0) throw new Error(`marker ${marker} not found`);
  return i + 1;
}
