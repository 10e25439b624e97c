/**
 * `hintlab compare A B [A2]`: argument parsing only. The statistics live in
 * src/compare/, the table in src/report/text.ts. `addComparisonOptions` and
 * `comparisonFromCli` are shared with `hintlab report`, so both commands
 * accept the same flags and refuse the same runs.
 */
import type { Command } from 'commander';
import { ComparisonRefused } from '../compare/checks.ts';
import { type CompareInput, compare } from '../compare/compare.ts';
import { type MetricComparison, compareMetrics } from '../compare/metric.ts';
import { mergeRuns } from '../compare/merge.ts';
import type { Comparison } from '../compare/types.ts';
import type { ComparisonOptions, Correction } from '../compare/options.ts';
import { COST_METRICS } from '../cost-counters.ts';
import type { RunWithRounds } from '../model.ts';
import { reporterFor } from '../report/formats.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import { collect, intOption, pctOption, DB_HELP } from './options.ts';
import { refuseMixedPair, type ResolvedRef, resolveRef, reusedLabelAdvice, reusedLabelNote } from './run-refs.ts';

function alphaOption(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n >= 0.5) {
    throw new UserError(`--alpha must be a probability between 0 and 0.5 (exclusive), such as 0.05; got '${value}'`, 2);
  }
  return n;
}

function correctionOption(value: string): Correction {
  if (value !== 'holm' && value !== 'none') {
    throw new UserError(
      `--correction must be holm (Holm's step-down over the subjects compared) or none (each subject at alpha on its own); got '${value}'`,
      2,
    );
  }
  return value;
}

function metricOption(value: string): string {
  if (value !== 'all' && !COST_METRICS.includes(value)) {
    throw new UserError(`--metric must be a cost counter of vm --cost (${COST_METRICS.join(', ')}) or all; got '${value}'`, 2);
  }
  return value;
}

/** The flags compare and report share. */
export interface ComparisonFlags {
  threshold: number;
  alpha: number;
  correction: Correction;
  detect?: number;
  resamples: number;
  seed: number;
  allowMismatch?: boolean;
  allowIncomplete?: boolean;
  control: string[];
  db?: string;
  metric?: string;
}

/** Add the run arguments and the statistics flags to a command. */
export function addComparisonOptions(cmd: Command): Command {
  return cmd
    .argument('<A>', 'baseline run (id, #id or label); several runs of one configuration as one side: vm-A-1,vm-A-2,vm-A-3')
    .argument('<B>', 'candidate run (or runs, comma-separated)')
    .argument('[A2]', 'the baseline measured again after B (A/B/A)')
    .option('--threshold <pct>', 'noise threshold: a change is claimed when a one-sided test puts it beyond ±PCT (Holm-adjusted over the subjects)', pctOption('--threshold', '1%', true), 1)
    .option('--alpha <p>', 'significance level of the tests (family-wise with --correction holm)', alphaOption, 0.05)
    .option(
      '--correction <method>',
      'multiple-comparison correction over the subjects: holm, or none for a single pre-registered subject',
      correctionOption,
      'holm' as Correction,
    )
    .option('--detect <pct>', 'also say how many rounds would detect this change, e.g. 0.5%', pctOption('--detect', '0.5%', false))
    .option('--resamples <n>', 'bootstrap resamples', intOption('--resamples', 100), 10_000)
    .option('--seed <n>', 'bootstrap seed', intOption('--seed', 0), 1)
    .option('--control <subject>', 'a control subject (e.g. getppid): shown, left out of the geometric mean and the regressions; repeatable', collect, [] as string[])
    .option('--allow-mismatch', 'compare runs whose checked environment differs')
    .option('--allow-incomplete', 'compare runs that did not complete (their recorded rounds)')
    .option('--db <path>', DB_HELP)
    .option('--metric <name>', 'compare a cost counter of vm --cost runs instead of the primary value, e.g. taken-branches/call, or all', metricOption);
}

function optionsOf(flags: ComparisonFlags): Partial<ComparisonOptions> {
  return {
    alpha: flags.alpha,
    correction: flags.correction,
    thresholdPct: flags.threshold,
    detectPct: flags.detect ?? null,
    bootstrapResamples: flags.resamples,
    bootstrapSeed: flags.seed,
    allowMismatch: flags.allowMismatch === true,
    allowIncomplete: flags.allowIncomplete === true,
    controls: flags.control.flatMap((c) => c.split(',')).map((c) => c.trim()).filter(Boolean),
  };
}

/** A run compared with itself shows no change by construction: A, B and A2 must be three different runs. */
function refuseSameRun(named: { role: string; ref: string; run: RunWithRounds }[]): void {
  for (const [i, x] of named.entries()) {
    const y = named.slice(0, i).find((other) => other.run.id === x.run.id);
    if (y) {
      throw new UserError(
        `${y.role} '${y.ref}' and ${x.role} '${x.ref}' are the same run (#${x.run.id}); compare different runs (see 'hintlab runs')`,
        2,
      );
    }
  }
}

/** The run arguments of compare and report, and which of the two commands was typed (for the lines it suggests). */
export interface RunRefs {
  command: 'compare' | 'report';
  a: string;
  b: string;
  a2?: string;
}

/** Each side's references resolved; a reused label is said on stderr, a pair of labels mixing two invocations refused. */
function resolveSides(store: Store, refs: RunRefs, io: CliIO): { named: Record<'A' | 'B' | 'A2', ResolvedRef[]>; sides: string[] } {
  const sidesOf = (ref: string) => ref.split(',').map((r) => r.trim()).filter(Boolean).map((r) => resolveRef(store, r));
  const named = { A: sidesOf(refs.a), B: sidesOf(refs.b), A2: refs.a2 === undefined ? [] : sidesOf(refs.a2) };
  refuseSameRun(Object.entries(named).flatMap(([role, list]) => list.map((x) => ({ role, ...x }))));
  const [a, b] = [named.A, named.B];
  if (refs.a2 === undefined && a.length === 1 && b.length === 1) refuseMixedPair(store, a[0]!, b[0]!, refs.command);
  const sides = refs.a2 === undefined ? [refs.a, refs.b] : [refs.a, refs.b, refs.a2];
  const note = reusedLabelNote(refs.command, sides, [...named.A, ...named.B, ...named.A2]);
  if (note !== null) io.stderr(`note: ${note}\n`);
  return { named, sides };
}

/** Load the runs named on the command line and hand them, with the options, to `use`; refusals become user errors. */
function withRuns<T>(refs: RunRefs, flags: ComparisonFlags, io: CliIO, use: (input: CompareInput, options: Partial<ComparisonOptions>) => T): T {
  const store = Store.openExisting(dbPathFrom(flags.db, io.env));
  try {
    const { named, sides } = resolveSides(store, refs, io);
    const joined = (list: ResolvedRef[]) => mergeRuns(list.map((x) => x.run));
    try {
      const [a, b] = [joined(named.A), joined(named.B)];
      const a2 = refs.a2 === undefined ? undefined : joined(named.A2);
      return use(a2 ? { a, b, a2 } : { a, b }, optionsOf(flags));
    } catch (err) {
      if (!(err instanceof ComparisonRefused)) throw err;
      // runs taken from a reused label: their ids are the fix, not the refusal's own way out (--allow-mismatch)
      const advice = reusedLabelAdvice(refs.command, sides, [...named.A, ...named.B, ...named.A2]);
      throw new UserError(advice === null ? err.message : `${err.finding}\n${advice}`);
    }
  } finally {
    store.close();
  }
}

/** Load the runs named on the command line and compare them; refusals become user errors. */
export function comparisonFromCli(refs: RunRefs, flags: ComparisonFlags, io: CliIO): Comparison {
  return withRuns(refs, flags, io, (input, options) => {
    const cmp = compare(input, options);
    const unknown = (options.controls ?? []).filter((name) => !cmp.subjects.some((s) => s.subject === name));
    if (unknown.length > 0) {
      throw new UserError(`--control ${unknown.join(', ')}: no such subject in both A and B; subjects compared: ${cmp.subjects.map((s) => s.subject).join(', ')}`, 2);
    }
    return cmp;
  });
}

/** Compare the cost counter named by --metric (or all of them) of the runs named on the command line. */
export function metricComparisonFromCli(refs: RunRefs, metric: string, flags: ComparisonFlags, io: CliIO): MetricComparison {
  return withRuns(refs, flags, io, (input, options) => compareMetrics(input, metric, options));
}

export function registerCompare(program: Command, io: CliIO): void {
  const cmd = program
    .command('compare')
    .description('Compare run B (and A2) with baseline A: change, confidence interval, tests and a verdict per subject');
  addComparisonOptions(cmd)
    .option('--json', 'print the comparison document as JSON instead of the table')
    .action((a: string, b: string, a2: string | undefined, flags: ComparisonFlags & { json?: boolean; metric?: string }) => {
      const refs: RunRefs = a2 === undefined ? { command: 'compare', a, b } : { command: 'compare', a, b, a2 };
      if (flags.metric !== undefined) {
        const m = metricComparisonFromCli(refs, flags.metric, flags, io);
        io.stdout(reporterFor('metric', flags.json ? 'json' : 'text')!(m));
        return;
      }
      const cmp = comparisonFromCli(refs, flags, io);
      io.stdout(reporterFor('compare', flags.json ? 'json' : 'text')!(cmp));
    });
}
