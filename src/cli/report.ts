/**
 * `hintlab report A B [A2] --format text|lkml|md|json|html [-o FILE]
 * [--codegen FILE] [--hints FILE]`: argument parsing only. Runs are loaded
 * and compared exactly as by `hintlab compare` (same flags, same refusals,
 * see ./compare.ts); the codegen and hints documents are read and checked
 * by src/report/documents.ts; the reporters of src/report/formats.ts turn
 * the Comparison into text, and one writer sends it to stdout or, atomically,
 * to FILE.
 */
import type { Command } from 'commander';
import { homedir } from 'node:os';
import { extensionsOf, formatsOf, reporterFor } from '../report/formats.ts';
import type { ReproduceContext } from '../report/reproduce.ts';
import { loadPatchDocuments } from '../report/documents.ts';
import { dbPathFrom } from '../store/path.ts';
import { VERSION } from '../version.ts';
import { addComparisonOptions, type ComparisonFlags, comparisonFromCli, metricComparisonFromCli, type RunRefs } from './compare.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import { outputFormat } from './output-format.ts';
import { writeOutput } from './runs.ts';

function formatOption(value: string): string {
  if (reporterFor('report', value) === undefined) {
    throw new UserError(`--format must be one of ${formatsOf('report').join(', ')}; got '${value}'`, 2);
  }
  return value;
}

/** A document flag given twice is a mistake (which one was meant?), not a silent override. */
function onceOption(flag: string): (value: string, previous: string | undefined) => string {
  return (value, previous) => {
    if (previous !== undefined) throw new UserError(`${flag} may be given once; got '${previous}' and '${value}'`, 2);
    return value;
  };
}

/**
 * What the reproduce commands are written for: the database named with
 * --db or $HINTLAB_DB (null for the default one), this directory and the
 * home directory.
 */
export function reproduceContext(db: string | undefined, io: CliIO): ReproduceContext {
  const home = io.env.HOME || homedir();
  return { db: db ?? (io.env.HINTLAB_DB || null), cwd: io.cwd, home };
}

interface ReportFlags extends ComparisonFlags {
  format: string;
  output?: string;
  codegen?: string;
  hints?: string;
  all?: boolean;
}

function writeMetricReport(refs: RunRefs, metric: string, flags: ReportFlags, io: CliIO): void {
  const reporter = reporterFor('metric', flags.format);
  if (reporter === undefined) {
    throw new UserError(`--metric reports are written as ${formatsOf('metric').join(', ')}; got --format ${flags.format}`, 2);
  }
  if (flags.codegen !== undefined || flags.hints !== undefined) {
    throw new UserError('--metric reports carry no --codegen or --hints evidence; write those with a report of the primary value', 2);
  }
  const text = reporter(metricComparisonFromCli(refs, metric, flags, io));
  writeOutput(io, text, flags.output, dbPathFrom(flags.db, io.env));
  if (flags.output !== undefined) io.stderr(`wrote ${flags.format} report to ${flags.output}\n`);
}

export function registerReport(program: Command, io: CliIO): void {
  const cmd = program
    .command('report')
    .description('Write the comparison of B (and A2) with A as text, an LKML-ready block, Markdown, JSON or a self-contained HTML page');
  addComparisonOptions(cmd)
    .option('--format <fmt>', `one of ${formatsOf('report').join(', ')} (default: from the extension of -o, else text)`, formatOption, 'text')
    .option('-o, --output <file>', 'write to FILE (atomically) instead of stdout')
    .option('--codegen <file>', "the patch's codegen effect: a `hintlab codegen ... --json` document", onceOption('--codegen'))
    .option('--hints <file>', 'the branch counts behind the hints: a `hintlab hints ... --format json` document', onceOption('--hints'))
    .option('--all', 'lkml: a table row for every subject (default: the ones with no proven change in one line)')
    .action((a: string, b: string, a2: string | undefined, parsed: ReportFlags, command: Command) => {
      const given = command.getOptionValueSource('format') === 'cli';
      const flags = { ...parsed, format: outputFormat({ format: parsed.format, given, output: parsed.output }, extensionsOf('report')) };
      const refs: RunRefs = a2 === undefined ? { command: 'report', a, b } : { command: 'report', a, b, a2 };
      if (flags.metric !== undefined) {
        writeMetricReport(refs, flags.metric, flags, io);
        return;
      }
      // Checked before the runs are compared: a wrong file fails fast.
      const evidence = loadPatchDocuments({ codegen: flags.codegen, hints: flags.hints }, io.cwd);
      const comparison = comparisonFromCli(refs, flags, io);
      const reporter = reporterFor('report', flags.format)!;
      const reproduce = reproduceContext(flags.db, io);
      const text = reporter(comparison, { hintlabVersion: VERSION, generatedAt: new Date().toISOString(), evidence, reproduce, all: flags.all === true });
      writeOutput(io, text, flags.output, dbPathFrom(flags.db, io.env));
      if (flags.output !== undefined) io.stderr(`wrote ${flags.format} report to ${flags.output}\n`);
    });
}
