/**
 * What `hintlab runs` prints: the table of stored runs (or the same list as
 * a versioned JSON document), and one run shown with its command, error,
 * rounds and, verbose, its params and environment. Text only; the CLI
 * decides where it goes.
 */
import { readEnvironment } from '../environment/read.ts';
import { printable, printableMessage } from '../errors.ts';
import type { Run, RunWithRounds } from '../model.ts';
import { alignColumns } from '../format/columns.ts';
import { environmentText, paramsText, runHeadline, runTable } from './run-table.ts';

/** A stored run with its measured rounds counted per subject. */
export interface ListedRun {
  run: Run;
  counts: Map<string, number>;
}

/**
 * `runs --json`: the stored runs as a versioned document for scripts.
 * Format history: 1 - first version.
 */
export const RUN_LIST_SCHEMA = 1;

function listLine({ run, counts }: ListedRun): string[] {
  const env = readEnvironment(run);
  const kernel = env.kernel?.release?.known ? env.kernel.release.value : 'unknown';
  const rounds = [...counts.values()];
  const min = rounds.length ? Math.min(...rounds) : 0;
  const subjects = run.params.subjects.length;
  return [
    `#${run.id}`,
    run.label ?? '-',
    run.kind,
    kernel,
    run.startedAt.replace('T', ' ').slice(0, 19),
    `${subjects} x ${min}${rounds.some((n) => n !== min) ? '+' : ''}`,
    run.unit,
    run.status,
  ];
}

/** The table of stored runs, or what to do when there is none. */
export function runListText(runs: readonly ListedRun[], database: string): string {
  if (runs.length === 0) return `no runs in ${database}; start one with 'hintlab bench'\n`;
  const header = ['id', 'label', 'kind', 'kernel', 'started (UTC)', 'subjects x rounds', 'unit', 'status'];
  return alignColumns([header, ...runs.map(listLine)]).join('\n') + '\n';
}

function listEntry({ run, counts }: ListedRun) {
  const env = readEnvironment(run);
  const release = env.kernel?.release;
  return {
    id: run.id,
    label: run.label,
    kind: run.kind,
    status: run.status,
    unit: run.unit,
    kernelRelease: release?.known ? release.value : null,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    measuredRounds: Object.fromEntries(run.params.subjects.map((s) => [s, counts.get(s) ?? 0])),
    command: run.command,
    error: run.error,
  };
}

/** The stored runs as the `runs --json` document (RUN_LIST_SCHEMA). */
export function runListJson(runs: readonly ListedRun[], database: string): string {
  return `${JSON.stringify({ schema: RUN_LIST_SCHEMA, database, runs: runs.map(listEntry) }, null, 2)}\n`;
}

/** A run's headline, its command and its error (a stored error can hold what a server or a file said: escaped, never run by the terminal). */
function runHead(run: Run): string {
  return `${runHeadline(run)}\ncommand: ${printable(run.command)}\n${run.error ? `error: ${printableMessage(run.error)}\n` : ''}`;
}

/** A run's params and environment record (`--verbose`). */
function runDetails(run: Run): string {
  return `params:\n${paramsText(run)}environment:\n${environmentText(run)}`;
}

/** `runs RUN`: the run's head, its rounds table, and with `verbose` its params and environment. */
export function runShowText(run: RunWithRounds, verbose: boolean): string {
  return `${runHead(run)}${runTable(run)}${verbose ? runDetails(run) : ''}`;
}

/** `runs --verbose` after the table: each run's head, params and environment. */
export function runListDetails(runs: readonly Run[]): string {
  return runs.map((r) => `\n${runHead(r)}${runDetails(r)}`).join('');
}
