/** `hintlab runs` and `hintlab export`: what is stored, and raw rounds out. */
import { UserError } from '../errors.ts';
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { runJson } from '../report/run-export.ts';
import { extensionsOf, formatChoices, reporterFor } from '../report/formats.ts';
import { RUN_LIST_SCHEMA, runListDetails, runListJson, runListText, runShowText } from '../report/runs.ts';
import { databaseFiles, dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { writeFileSafely } from '../write-file.ts';
import { type CliIO } from './io.ts';
import { DB_HELP } from './options.ts';
import { outputFormat } from './output-format.ts';
import { resolveShown } from './run-refs.ts';

/** `runs` and `export` only read: a missing database is reported, never created. */
function openStore(db: string | undefined, io: CliIO): Store {
  return Store.openExisting(dbPathFrom(db, io.env));
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
      io.stdout(opts.json ? runJson(run) : runShowText(run, opts.verbose === true));
      return;
    }
    const runs = store.listRuns();
    const listed = runs.map((run) => ({ run, counts: store.roundCounts(run.id) }));
    if (opts.json) {
      io.stdout(runListJson(listed, store.path));
      return;
    }
    io.stdout(runListText(listed, store.path));
    if (opts.verbose && runs.length > 0) io.stdout(runListDetails(runs));
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
  const opts = { ...parsed, format: outputFormat({ format: parsed.format, given, output: parsed.output }, extensionsOf('run'), 'default') };
  const reporter = reporterFor('run', opts.format);
  if (reporter === undefined) {
    throw new UserError(`--format must be ${formatChoices('run')}, got '${opts.format}'`, 2);
  }
  const store = openStore(opts.db, io);
  try {
    const run = resolveShown(store, ref, 'exporting', io);
    writeOutput(io, reporter(run), opts.output, store.path);
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
