/** `hintlab hints`: propose likely()/unlikely() from branch profiles (argument parsing only). */
import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { analyzeHints } from '../hints/analyze.ts';
import { applyResult } from '../hints/patch.ts';
import { formatChoices, reporterFor } from '../report/formats.ts';
import { parseWorkloadSpec } from '../hints/workload.ts';
import { VERSION } from '../version.ts';
import { registerHintsCollect } from './hints-collect.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import { collect, intOption } from './options.ts';
import { progressBar } from './progress.ts';


interface HintsFlags {
  src?: string;
  path: string[];
  minBias: number;
  minHits: number;
  static?: boolean;
  format: string;
  apply?: boolean;
  layout: 'any' | 'changes';
  jobs: number;
}

function layoutOption(value: string): 'any' | 'changes' {
  if (value === 'any' || value === 'changes') return value;
  throw new UserError(`--layout must be any or changes, got '${value}'`, 2);
}

function biasOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0.5 || n > 1) {
    throw new UserError(`--min-bias must be a share above 0.5 and at most 1 (e.g. 0.99), got '${value}'`, 2);
  }
  return n;
}

function formatOption(value: string): string {
  if (reporterFor('hints', value) !== undefined) return value;
  throw new UserError(`--format must be ${formatChoices('hints')}, got '${value}'`, 2);
}

async function hintsAction(profiles: string[], flags: HintsFlags, io: CliIO): Promise<void> {
  if (!flags.src) throw new UserError('hints needs --src DIR: the C source tree the profile was taken from', 2);
  if (flags.static && profiles.length > 0) throw new UserError('--static takes no profiles: drop either --static or the profile arguments', 2);
  if (!flags.static && profiles.length === 0) {
    throw new UserError('give profiles (gcov JSON files or directories, branch profiler files; [name=]path) or --static', 2);
  }
  const progress = progressBar(io);
  const result = await analyzeHints({
    root: resolve(io.cwd, flags.src),
    workloads: profiles.map((p) => {
      const spec = parseWorkloadSpec(p);
      return { ...spec, path: resolve(io.cwd, spec.path) };
    }),
    paths: flags.path.map((p) => p.replace(/^\.\//, '').replace(/\/+$/, '')),
    thresholds: { minBias: flags.minBias, minHits: flags.minHits },
    layout: flags.layout,
    jobs: flags.jobs,
    onProgress: (done, total) => progress.update(done, total, 'files parsed'),
  });
  progress.clear();
  io.stdout(reporterFor('hints', flags.format)!(result, { generatedBy: `hintlab ${VERSION}` }));
  if (flags.apply) {
    const written = applyResult(result);
    io.stderr(written.length ? `hints: changed ${written.length} file(s): ${written.join(', ')}\n` : 'hints: nothing to change\n');
  }
}

/** Add `hintlab hints` to the program. */
export function registerHints(program: Command, io: CliIO): void {
  const hints = program
    .command('hints')
    .description('propose likely()/unlikely() from gcov, branch-profiler or compiled-jump counts, and flag annotations they contradict')
    .argument('[profiles...]', '[name=]path: a .gcov.json(.gz), a branch_annotated/branch_all file, a branches.json, or a directory of them; one workload per name')
    .option('--src <dir>', 'the C source tree the profiles were taken from')
    .option('--path <dir>', 'only files under this root-relative path (repeatable)', collect, [])
    .option('--min-bias <share>', 'propose when the then-branch runs in >= share (likely) or <= 1-share (unlikely)', biasOption, 0.99)
    .option('--min-hits <n>', 'minimum executions of the if', intOption('--min-hits', 1), 1000)
    .option('--static', 'no profile: heuristic candidates (early error exits in syscall implementations)')
    .option('--layout <which>', 'any, or changes: only proposals whose compiled common path jumps today (needs a branch set from hints collect --exact)', layoutOption, 'any')
    .option('--format <fmt>', 'table, patch (unified diff) or json', formatOption, 'table')
    .option('--apply', 'write the changes into the source tree (atomically; refuses files changed since profiling)')
    .option('--jobs <n>', 'parser threads', intOption('--jobs', 1), Math.max(1, availableParallelism()))
    .action((profiles: string[], flags: HintsFlags) => hintsAction(profiles, flags, io));
  registerHintsCollect(hints, io);
}
