/** `hintlab bench --label-b`: arguments and output of an interleaved A/B invocation. */
import { abbaOrder, runInterleaved, type InterleavedRequest } from '../bench/interleave.ts';
import { BenchRequestError, splitRounds, type BenchDeps } from '../bench/runner.ts';
import { SwitchBusyError, SwitchError, type FileSwitchSpec } from '../bench/switch-file.ts';
import { runJson } from '../report/run-export.ts';
import { runHeadline, runTable } from '../report/run-table.ts';
import type { BenchOptions } from './bench-options.ts';
import { type CliIO, UserError } from './io.ts';
import type { Progress } from './progress.ts';

/** Any B-side option makes the invocation interleaved. */
export function isInterleaved(opts: BenchOptions): boolean {
  return opts.labelB !== undefined || opts.injectSeccompB !== undefined || opts.switchFile.length > 0;
}

function splitAssignment(flag: string, text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UserError(`${flag} takes PATH=VALUE (e.g. ${flag} /proc/sys/kernel/timer_migration=0), got '${text}'`, 2);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** `--switch-file PATH=B` with an optional `--switch-file-a PATH=A` for the same path. */
export function parseSwitchFiles(b: string[], a: string[]): FileSwitchSpec[] {
  const specs = b.map((t) => splitAssignment('--switch-file', t)).map(([path, valueB]) => ({ path, valueB, valueA: null as string | null }));
  const paths = specs.map((s) => s.path);
  const dup = paths.find((p, i) => paths.indexOf(p) !== i);
  if (dup) throw new UserError(`--switch-file ${dup} is given twice; give each file once`, 2);
  for (const [path, valueA] of a.map((t) => splitAssignment('--switch-file-a', t))) {
    const spec = specs.find((s) => s.path === path);
    if (!spec) throw new UserError(`--switch-file-a ${path}: no --switch-file names that path; give B's value with --switch-file ${path}=VALUE`, 2);
    spec.valueA = valueA;
  }
  return specs;
}

/** The two sides of an interleaved invocation, on top of what every bench asks for. */
export function interleavedRequest(opts: BenchOptions, common: Omit<InterleavedRequest, 'a' | 'b' | 'files'>, io: CliIO): InterleavedRequest {
  const files = parseSwitchFiles(opts.switchFile, opts.switchFileA);
  const seccompB = opts.injectSeccompB === undefined || opts.injectSeccompB === 0 ? null : opts.injectSeccompB;
  if (seccompB === 1) throw new UserError('--inject-seccomp-b must be 0 (no filter) or at least 2 instructions, got 1', 2);
  return {
    ...common,
    a: { label: opts.label ?? 'A', injectSeccomp: opts.injectSeccomp ?? null },
    b: { label: opts.labelB ?? 'B', injectSeccomp: seccompB },
    files,
    switchOptions: { force: opts.force === true, wait: opts.wait === true, command: common.command, onNote: (m) => io.stderr(`hintlab: ${m}\n`) },
  };
}

/** Measure both sides, print both runs, and say how to compare them. */
export async function measureInterleaved(req: InterleavedRequest, io: CliIO, deps: BenchDeps, bar: Progress, json: boolean): Promise<void> {
  let result;
  try {
    result = await runInterleaved(req, deps);
  } catch (err) {
    // another run holding a file is no usage error: exit 1 (or 130 when Ctrl-C ended the wait)
    if (err instanceof SwitchBusyError) throw new UserError(err.message, 1);
    if (err instanceof BenchRequestError || err instanceof SwitchError) throw new UserError(err.message, 2);
    throw err;
  }
  bar.clear();
  const [a, b] = result.runs;
  if (result.state === 'failed') {
    throw new UserError(`${result.reason}\nruns #${a.id} and #${b.id} are marked failed in ${deps.store.path}; their rounds are kept for inspection but never used as valid data`);
  }
  if (json) {
    io.stdout(`[${runJson(a).trimEnd()},\n${runJson(b).trimEnd()}]\n`);
  } else {
    io.stdout(`${runHeadline(a)}\n${runTable(a)}\n${runHeadline(b)}\n${runTable(b)}`);
    const order = abbaOrder(splitRounds(req.rounds, req.processes).length).join(' ');
    io.stdout(`probe processes in the order ${order} (A = '${a.label}', B = '${b.label}'); compare with: hintlab compare ${a.label} ${b.label}\n`);
  }
  for (const w of result.warnings) io.stderr(`warning: ${w.message}\n`);
}
