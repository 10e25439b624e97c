/**
 * `hintlab bench --target ssh://[user@]host[:port] [--target ...]`: the same
 * plan on each box, the boxes in parallel, every round stored here as it
 * arrives. Each box is one SshTarget (one multiplexed ssh connection); its
 * runs carry `where: 'remote', remote: {hostname, url}` and the box's own environment,
 * and with several boxes each run's label ends in `@host`.
 */
import { buildProbe, type ProbeBuild } from '../launch/probe-build.ts';
import { BenchRequestError, runBench, type BenchDeps, type BenchRequest } from '../bench/runner.ts';
import type { RunWithRounds } from '../model.ts';
import { runJson } from '../report/run-export.ts';
import { runHeadline, runTable } from '../report/run-table.ts';
import type { Store } from '../store/store.ts';
import { boxProgress, onBoxes, type Box } from '../targets/boxes.ts';
import { parsePlace } from '../targets/place.ts';
import type { SshAddress } from '../targets/ssh-address.ts';
import type { SshTarget } from '../targets/ssh.ts';
import { interleavedRequest, isInterleaved, measureInterleaved } from './bench-interleave.ts';
import type { BenchOptions } from './bench-options.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import type { Progress } from './progress.ts';

/** The `--target` boxes, checked: each given once, and only with what a box can do. */
export function parseTargets(opts: BenchOptions, env: NodeJS.ProcessEnv): SshAddress[] {
  const place = parsePlace('bench', { target: opts.target, switchFile: opts.switchFile, json: opts.json, pairedB: isInterleaved(opts) }, env);
  return place.kind === 'ssh' ? place.boxes : [];
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
  /** The boxes, from parseTargets. */
  boxes: SshAddress[];
  /** The request as for this machine (label and seccomp from the options). */
  req: BenchRequest;
  store: Store;
  bar: Progress;
  abort: AbortSignal;
}

/** Run the bench on every `--target` box in parallel; print each box's run; fail naming every box that failed. */
export async function benchRemote(b: RemoteBench, io: CliIO): Promise<void> {
  const probe = io.services?.probeBuild ?? buildProbe({ static: true, env: io.env });
  await onBoxes(b.boxes, { probe, env: io.env }, async (boxes) => {
    const progress = boxProgress(boxes.map(() => 0), (d, t, what) => b.bar.update(d, t, what));
    const outcomes = await Promise.all(boxes.map((box) => measureBox(b, box, probe, progress(box.index, box.tag), io)));
    b.bar.clear();
    const runs = outcomes.flatMap((o) => (o.run ? [o.run] : []));
    if (b.opts.json && runs.length) io.stdout(boxes.length > 1 ? `[${runs.map((r) => runJson(r).trimEnd()).join(',\n')}]\n` : runJson(runs[0]!));
    const failures = outcomes.flatMap((o) => (o.failure ? [o.failure] : []));
    if (failures.length) throw new UserError(failures.join('\n'));
  });
}

/** One box's part: an A/B pair (printed as it ends) or one run. */
async function measureBox(b: RemoteBench, box: Box, probe: ProbeBuild, onProgress: BenchDeps['onProgress'], io: CliIO): Promise<{ run: RunWithRounds | null; failure: string | null }> {
  const { target } = box;
  const deps: BenchDeps = { store: b.store, target, probe, reader: await target.reader(), abort: b.abort, onProgress };
  if (isInterleaved(b.opts)) {
    const opts = { ...b.opts, label: box.label(b.opts.label ?? 'A') ?? undefined, labelB: box.label(b.opts.labelB ?? 'B') ?? undefined };
    return measureInterleaved(interleavedRequest(opts, b.req, io), io, deps, b.bar, b.opts.json === true).then(
      () => ({ run: null, failure: null }),
      (err: unknown) => ({ run: null, failure: `${target.name}: ${(err as Error).message}` }),
    );
  }
  return measureOn(target, { ...b.req, label: box.label(b.req.label) }, deps, io, b.opts.json === true);
}
