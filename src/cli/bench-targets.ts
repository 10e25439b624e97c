/**
 * `hintlab bench --target ssh://[user@]host[:port] [--target ...]`: the same
 * plan on each box, the boxes in parallel, every round stored here as it
 * arrives. Each box is one SshTarget (one multiplexed ssh connection); its
 * runs carry `where: 'remote', remote: {hostname, url}` and the box's own environment,
 * and with several boxes each run's label ends in `@host`.
 */
import { buildProbe } from '../launch/probe-build.ts';
import { BenchRequestError, runBench, type BenchDeps, type BenchRequest } from '../bench/runner.ts';
import type { RunWithRounds } from '../model.ts';
import { runJson } from '../report/run-export.ts';
import { runHeadline, runTable } from '../report/run-table.ts';
import type { Store } from '../store/store.ts';
import type { SshAddress } from '../targets/ssh-address.ts';
import { SshTarget } from '../targets/ssh.ts';
import { interleavedRequest, isInterleaved, measureInterleaved } from './bench-interleave.ts';
import type { BenchOptions } from './bench-options.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import type { Progress } from './progress.ts';
import { boxLabel, connectAll, hostTags, parseTargetUrls } from './targets.ts';

/** The `--target` addresses, checked: each given once, and only with what a box can do. */
export function parseTargets(opts: BenchOptions): SshAddress[] {
  const addresses = parseTargetUrls(opts.target);
  if (opts.switchFile.length > 0) {
    throw new UserError('--switch-file writes files on this machine, not on a --target box; switch the box by hand between two runs, or use --inject-seccomp-b', 2);
  }
  if (addresses.length > 1 && opts.json && isInterleaved(opts)) {
    throw new UserError('--json with --label-b takes one --target at a time (each box prints its own pair of runs)', 2);
  }
  return addresses;
}

/** The failure of one box's run, saying whether the connection dropped and what was kept. */
async function failureOf(target: SshTarget, run: RunWithRounds, req: BenchRequest, reason: string, store: Store): Promise<string> {
  const measured = run.rounds.filter((r) => !r.warmup).length;
  const expected = req.profiles.length * req.rounds;
  const kept = `run #${run.id} is marked failed in ${store.path}; its ${measured} measured rounds are kept for inspection but never used as valid data`;
  if (!(await target.connection.alive())) {
    return `connection to ${target.name} lost after ${measured} of ${expected} measured rounds; rounds stored: ${kept}\n${reason}`;
  }
  return `${target.name}: ${reason}\n${kept}`;
}

/** One box: its run measured and printed, or its failure as text. */
async function measureOn(target: SshTarget, req: BenchRequest, deps: BenchDeps, io: CliIO, json: boolean): Promise<{ run: RunWithRounds | null; failure: string | null }> {
  try {
    const result = await runBench(req, deps);
    if (result.state === 'failed') return { run: null, failure: await failureOf(target, result.run, req, result.reason, deps.store) };
    if (!json) io.stdout(`${target.name}\n${runHeadline(result.run)}\n${runTable(result.run)}`);
    for (const w of result.warnings) io.stderr(`warning: ${target.name}: ${w.message}\n`);
    return { run: result.run, failure: null };
  } catch (err) {
    if (err instanceof BenchRequestError) return { run: null, failure: `${target.name}: ${err.message}` };
    throw err;
  }
}

export interface RemoteBench {
  opts: BenchOptions;
  /** The request as for this machine (label and seccomp from the options). */
  req: BenchRequest;
  store: Store;
  bar: Progress;
  abort: AbortSignal;
}

/** Progress over all boxes: rounds stored of rounds planned, and the box of the last one. */
function sharedProgress(bar: Progress, n: number): (i: number, host: string) => BenchDeps['onProgress'] {
  const done = new Array<number>(n).fill(0);
  const total = new Array<number>(n).fill(0);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return (i, host) => (d, t, p) => {
    done[i] = d;
    total[i] = t;
    bar.update(sum(done), sum(total), `${host} ${p}`);
  };
}

/** Run the bench on every `--target` box in parallel; print each box's run; fail naming every box that failed. */
export async function benchRemote(b: RemoteBench, io: CliIO): Promise<void> {
  const addresses = parseTargets(b.opts);
  const probe = io.services?.probeBuild ?? buildProbe({ static: true, env: io.env });
  const targets = await connectAll(addresses, probe, io);
  const tags = hostTags(addresses);
  const several = targets.length > 1;
  const progress = sharedProgress(b.bar, targets.length);
  try {
    const outcomes = await Promise.all(
      targets.map(async (target, i) => {
        const deps: BenchDeps = { store: b.store, target, probe, reader: await target.reader(), abort: b.abort, onProgress: progress(i, tags[i]!) };
        const suffix = several ? `@${tags[i]}` : '';
        if (isInterleaved(b.opts)) {
          const opts = { ...b.opts, label: `${b.opts.label ?? 'A'}${suffix}`, labelB: `${b.opts.labelB ?? 'B'}${suffix}` };
          return measureInterleaved(interleavedRequest(opts, b.req, io), io, deps, b.bar, b.opts.json === true).then(
            () => ({ run: null, failure: null }),
            (err: unknown) => ({ run: null, failure: `${target.name}: ${(err as Error).message}` }),
          );
        }
        const label = boxLabel(b.req.label, tags[i]!, several);
        return measureOn(target, { ...b.req, label }, deps, io, b.opts.json === true);
      }),
    );
    b.bar.clear();
    const runs = outcomes.flatMap((o) => (o.run ? [o.run] : []));
    if (b.opts.json && runs.length) io.stdout(several ? `[${runs.map((r) => runJson(r).trimEnd()).join(',\n')}]\n` : runJson(runs[0]!));
    const failures = outcomes.flatMap((o) => (o.failure ? [o.failure] : []));
    if (failures.length) throw new UserError(failures.join('\n'));
  } finally {
    await Promise.all(targets.map((t) => t.close()));
  }
}
