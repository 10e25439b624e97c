/** `hintlab runs` and `hintlab export`: what is stored, and raw rounds out. */
import { readEnvironment } from '../environment/read.ts';
import { printable, printableMessage, UserError } from '../errors.ts';
import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Run } from '../model.ts';
import { runCsv, runJson } from '../report/run-export.ts';
import { environmentText, paramsText, runHeadline, runTable } from '../report/run-table.ts';
import { databaseFiles, dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { writeFileSafely } from '../write-file.ts';
import { type CliIO } from './io.ts';
import { DB_HELP } from './options.ts';
import { outputFormat } from './output-format.ts';
import { resolveShown } from './run-refs.ts';
import { alignColumns } from '../format/columns.ts';

/** `runs` and `export` only read: a missing database is reported, never created. */
function openStore(db: string | undefined, io: CliIO): Store {
  return Store.openExisting(dbPathFrom(db, io.env));
}

function listLine(run: Run, counts: Map<string, number>): string[] {
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

/**
 * `runs --json`: the stored runs as a versioned document for scripts.
 * Format history: 1 - first version.
 */
export const RUN_LIST_SCHEMA = 1;

function listEntry(run: Run, counts: Map<string, number>) {
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

function runListJson(store: Store): string {
  const runs = store.listRuns().map((r) => listEntry(r, store.roundCounts(r.id)));
  return `${JSON.stringify({ schema: RUN_LIST_SCHEMA, database: store.path, runs }, null, 2)}\n`;
}

function table(rows: string[][]): string {
  return alignColumns(rows).join('\n') + '\n';
}

interface RunsFlags {
  db?: string;
  verbose?: boolean;
  json?: boolean;
}

function runsAction(ref: string | undefined, opts: RunsFlags, io: CliIO): void {
  if (opts.json && opts.verbose) throw new UserError('runs --json carries every field already; drop --verbose', 2);
  const store = openStore(opts.db, io);
  try {
    if (ref !== undefined) {
      const run = resolveShown(store, ref, 'showing', io);
      if (opts.json) { io.stdout(runJson(run)); return; }
      io.stdout(`${runHeadline(run)}\ncommand: ${printable(run.command)}\n`);
      // a stored error can hold what a server or a file said: escaped, never run by the terminal
      if (run.error) io.stdout(`error: ${printableMessage(run.error)}\n`);
      io.stdout(runTable(run));
      if (opts.verbose) io.stdout(`params:\n${paramsText(run)}environment:\n${environmentText(run)}`);
      return;
    }
    if (opts.json) { io.stdout(runListJson(store)); return; }
    const runs = store.listRuns();
    if (runs.length === 0) {
      io.stdout(`no runs in ${store.path}; start one with 'hintlab bench'\n`);
      return;
    }
    const header = ['id', 'label', 'kind', 'kernel', 'started (UTC)', 'subjects x rounds', 'unit', 'status'];
    io.stdout(table([header, ...runs.map((r) => listLine(r, store.roundCounts(r.id)))]));
    if (opts.verbose) {
      for (const r of runs) {
        io.stdout(`\n${runHeadline(r)}\ncommand: ${printable(r.command)}\n`);
        if (r.error) io.stdout(`error: ${printableMessage(r.error)}\n`);
        io.stdout(`params:\n${paramsText(r)}environment:\n${environmentText(r)}`);
      }
    }
  } finally {
    store.close();
  }
}

/**
 * Write text to stdout, or to `file` through the one file writer (atomic for
 * a regular file, through for a device or FIFO, a symlink followed). `db` is
 * the results database in use: output onto it or its -wal/-shm is refused.
 */
export function writeOutput(io: CliIO, text: string, file: string | undefined, db?: string): void {
  if (file === undefined) { io.stdout(text); return; }
  if (file === '') throw new UserError('-o is empty: name the output file, or drop -o to print to stdout', 2);
  writeFileSafely(resolve(io.cwd, file), text, { shownAs: file, protect: db === undefined ? [] : databaseFiles(db) });
}

function exportAction(ref: string, parsed: { db?: string; format: string; output?: string }, given: boolean, io: CliIO): void {
  const opts = { ...parsed, format: outputFormat({ format: parsed.format, given, output: parsed.output }, { '.json': ['json'], '.csv': ['csv'] }, 'default') };
  if (opts.format !== 'json' && opts.format !== 'csv') {
    throw new UserError(`--format must be json or csv, got '${opts.format}'`, 2);
  }
  const store = openStore(opts.db, io);
  try {
    const run = resolveShown(store, ref, 'exporting', io);
    writeOutput(io, opts.format === 'json' ? runJson(run) : runCsv(run), opts.output, store.path);
  } finally {
    store.close();
  }
}

export function registerRuns(program: Command, io: CliIO): void {
  program
    .command('runs [run]')
    .description('list stored runs, or show one run (id or label)')
    .option('--db <path>', DB_HELP)
    .option('-v, --verbose', 'also show each run\'s environment record')
    .option('--json', `print a versioned JSON document instead: the list (schema ${RUN_LIST_SCHEMA}), or one run with its rounds as export writes it`)
    .action((ref: string | undefined, opts: RunsFlags) => runsAction(ref, opts, io));
  program
    .command('export <run>')
    .description('write the raw rounds of a run (id or label)')
    .option('--db <path>', DB_HELP)
    .option('--format <fmt>', 'json or csv (default: from the extension of -o, else json)', 'json')
    .option('-o, --output <file>', 'write to FILE instead of stdout')
    .action((ref: string, opts: { db?: string; format: string; output?: string }, command: Command) =>
      exportAction(ref, opts, command.getOptionValueSource('format') === 'cli', io));
}
