/** `hintlab bench --label-b`: arguments and output of an interleaved A/B invocation. */
import { DEFAULT_ALPHA, DEFAULT_BLOCK_ROUNDS, DEFAULT_SECONDS_PER_PROFILE } from '../bench/budget.ts';
import { DESIGNS, type DesignKind } from '../run-record.ts';
import { runInterleaved } from '../bench/interleave.ts';
import type { DesignRequest, InterleavedRequest, SidesRequest, WorkRequest } from '../bench/sides.ts';
import { BenchRequestError, type BenchDeps } from '../bench/runner.ts';
import { WORK_EXTRA_MAX } from '../bench/known-work.ts';
import { type FileSwitchSpec } from '../bench/switch-file.ts';
import { SwitchBusyError } from '../bench/switch-lock.ts';
import { SwitchError } from '../bench/switch-check.ts';
import { runJson } from '../report/run-export.ts';
import { runHeadline, runTable } from '../report/run-table.ts';
import type { BenchOptions } from './bench-options.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import type { Progress } from './progress.ts';
import { noteReusedLabels } from './run-refs.ts';

/** Any B-side option makes the invocation interleaved. */
export function isInterleaved(opts: BenchOptions): boolean {
  return opts.labelB !== undefined || opts.injectSeccompB !== undefined || opts.switchFile.length > 0 || opts.injectWorkB !== undefined;
}

/** Flags only the paired designs (duet, alternation) read: anywhere else they would be ignored. */
const PAIRED_ONLY: [flag: string, given: (o: BenchOptions) => boolean][] = [
  ['--precision', (o) => o.precision !== undefined],
  ['--time', (o) => o.time !== undefined],
  ['--block-rounds', (o) => o.blockRounds !== undefined],
  ['--min-pairs', (o) => o.minPairs !== undefined],
];

/** How the design is known when the flags are parsed: as asked, else whole processes on a box; `auto` is chosen when the run starts. */
function askedDesign(opts: BenchOptions): DesignRequest['design'] {
  return parseDesign(opts.design) ?? (opts.target.length > 0 ? 'processes' : 'auto');
}

/** Refuse a flag of a design where that design does not run, naming the flag and the fix: the budget's flags, and --seed. */
export function refuseIgnoredPairedFlags(opts: BenchOptions): void {
  const flag = PAIRED_ONLY.find(([, given]) => given(opts))?.[0] ?? (opts.seed !== undefined ? '--seed' : undefined);
  if (flag === undefined) return;
  const readers = flag === '--seed' ? 'the alternation (its random ABBA order)' : 'duet and alternation';
  if (!isInterleaved(opts)) {
    throw new UserError(`${flag} applies to an A/B invocation (${flag === '--seed' ? 'alternation' : 'duet or alternation'}) only, and this run has no B side: add one (--label-b B with --inject-seccomp-b N, --switch-file or --inject-work-b), or drop ${flag}`, 2);
  }
  const design = askedDesign(opts);
  if (design === 'processes' || design === 'abbaab') {
    const asked = opts.design === 'processes' || opts.design === 'abbaab' ? `--design ${opts.design}` : 'a run on a box (--target)';
    throw new UserError(`${flag} applies to ${readers} only, and ${asked} measures whole probe processes (--rounds over --processes): drop ${flag}`, 2);
  }
  if (design === 'duet' && flag === '--seed') {
    throw new UserError(`--seed applies to ${readers} only, and --design duet runs A and B at once, in no random order: drop --seed, or use --design alternation`, 2);
  }
}

/** `--inject-work-b N` (additions per call, up to three decimals) or `PCT%` (calibrated by a pilot). */
export function parseWork(text: string | undefined): WorkRequest | null {
  if (text === undefined) return null;
  const t = text.trim();
  const pct = /^(\d+(?:\.\d+)?)\s*%$/.exec(t);
  if (pct && Number(pct[1]) > 0 && Number(pct[1]) < 1000) return { kind: 'percent', pct: Number(pct[1]) };
  if (/^\d+(?:\.\d{1,3})?$/.test(t) && Number(t) <= WORK_EXTRA_MAX) return Number(t) === 0 ? null : { kind: 'count', n: Number(t) };
  throw new UserError(`--inject-work-b takes N (0..${WORK_EXTRA_MAX} additions per call, up to three decimals: 3.5 runs 3 or 4 per round, 3.5 on average) or PCT% (e.g. 3%), got '${text}'`, 2);
}

export function parseClock(text: string | undefined): 'wall' | 'thread-cpu' | null {
  if (text === undefined) return null;
  if (text === 'wall' || text === 'cpu') return text === 'cpu' ? 'thread-cpu' : 'wall';
  throw new UserError(`--clock must be wall or cpu, got '${text}'`, 2);
}

function parseDesign(text: string | undefined): DesignKind | null {
  if (text === undefined) return null;
  if ((DESIGNS as readonly string[]).includes(text)) return text as DesignKind;
  throw new UserError(`--design must be one of ${DESIGNS.join(', ')}, got '${text}'`, 2);
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

/**
 * The design with what it reads (refuseIgnoredPairedFlags has refused what
 * it would not). Not asked for, it is chosen when the run starts, which
 * says why on a box.
 */
function designRequest(opts: BenchOptions): DesignRequest {
  const design = parseDesign(opts.design) ?? 'auto';
  if (design === 'processes' || design === 'abbaab') return { design };
  const budget = { secondsPerProfile: opts.time ?? DEFAULT_SECONDS_PER_PROFILE, precisionPct: opts.precision ?? null, blockRounds: opts.blockRounds ?? DEFAULT_BLOCK_ROUNDS, alpha: DEFAULT_ALPHA, ...(opts.minPairs === undefined ? {} : { minPairs: opts.minPairs }) };
  if (design === 'duet') return { design, budget };
  return { design, budget, ...(opts.seed === undefined ? {} : { seed: opts.seed }) };
}

/** The two sides of an interleaved invocation, on top of what every bench asks for. */
export function interleavedRequest(opts: BenchOptions, common: Omit<SidesRequest, 'a' | 'b' | 'files'>, io: CliIO): InterleavedRequest {
  const files = parseSwitchFiles(opts.switchFile, opts.switchFileA);
  const seccompB = opts.injectSeccompB === undefined || opts.injectSeccompB === 0 ? null : opts.injectSeccompB;
  if (seccompB === 1) throw new UserError('--inject-seccomp-b must be 0 (no filter) or at least 2 instructions, got 1', 2);
  return {
    ...common,
    a: { label: opts.label ?? 'A', injectSeccomp: opts.injectSeccomp ?? null },
    b: { label: opts.labelB ?? 'B', injectSeccomp: seccompB },
    files,
    switchOptions: { force: opts.force === true, wait: opts.wait === true, command: common.command, onNote: (m) => io.stderr(`hintlab: ${m}\n`) },
    warmupsAsked: opts.warmupsGiven === true,
    workB: parseWork(opts.injectWorkB),
    ...designRequest(opts),
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
    io.stdout(`${result.designText} (A = '${a.label}', B = '${b.label}'); compare with: hintlab compare ${a.label} ${b.label}\n`);
  }
  for (const n of result.notes) io.stderr(`note: ${n}\n`);
  for (const w of result.warnings) io.stderr(`warning: ${w.message}\n`);
  noteReusedLabels(deps.store, [a.label, b.label], io);
}
