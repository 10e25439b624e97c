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

/** A row of `hintlab hints --format json`, the fields the tests read. */
export interface JsonRow {
  file: string;
  line: number;
  executions: number;
  thenCount: number | null;
  confidence: string;
  methods: string[];
  verdict: { kind: string; hint?: string; reason?: string; detail?: string };
}

/** [executions, then-branch runs, confidence, hint proposed or skip reason] of a row. */
export function rowSummary(r: JsonRow | undefined): unknown[] {
  return [r?.executions, r?.thenCount, r?.confidence, r?.verdict.kind === 'propose' ? r.verdict.hint : r?.verdict.reason];
}
