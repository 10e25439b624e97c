/**
 * `hintlab bench`: validate the request, record the environment, start a
 * run, let the probe measure, and store every round as it arrives.
 */
import { invocationExtra, type RunInvocation, type RunParams, type RunWithRounds } from '../model.ts';
import type { Store } from '../store/store.ts';
import type { ProbeBuild } from './build.ts';
import { collectEnvironment, finishEnvironment, parseCpuList } from '../environment/host.ts';
import type { SysReader } from '../environment/reader.ts';
import type { EnvWarning, HostEnvironment } from '../environment/record.ts';
import type { ProbeExecutor } from './executor.ts';
import type { ProfileInfo } from './profiles.ts';
import { startProbeRun, type ProbeRunShape, type SessionOutcome } from './session.ts';

export interface BenchRequest {
  profiles: ProfileInfo[];
  /** Calls per round for every profile; null = each profile's default. */
  ops: number | null;
  /** Warm-up rounds per probe process. */
  warmups: number;
  rounds: number;
  /**
   * Probe processes the rounds are split across, one after another. Rounds
   * within one process vary less than between processes (memory layout, page
   * placement), so a single process understates the noise two runs show.
   */
  processes: number;
  /** CPU to pin to; null = the last allowed CPU. */
  cpu: number | null;
  label: string | null;
  injectSeccomp: number | null;
  command: string;
  /** The arguments as typed and the working directory, stored as params.extra.invocation. */
  invocation?: RunInvocation;
  hintlabVersion: string;
}

export interface BenchDeps {
  store: Store;
  executor: ProbeExecutor;
  probe: ProbeBuild;
  reader?: SysReader;
  abort?: AbortSignal;
  onProgress?: (done: number, total: number, profile: string) => void;
}

export type BenchResult =
  | { state: 'complete'; run: RunWithRounds; warnings: EnvWarning[] }
  | { state: 'failed'; run: RunWithRounds; reason: string };

/** A request that cannot run on this machine (bad CPU, one CPU for a two-CPU profile). */
export class BenchRequestError extends Error {}

export interface CpuPlan {
  cpu: number;
  /** A second allowed CPU for helper threads, or null on a one-CPU mask. */
  otherCpu: number | null;
}

/** Choose the pinned CPU (default: the last allowed) and a second one. */
export function planCpus(allowedList: string, requested: number | null, profiles: ProfileInfo[]): CpuPlan {
  const allowed = parseCpuList(allowedList);
  if (allowed.length === 0) throw new BenchRequestError(`cannot parse the allowed CPU list '${allowedList}'`);
  const cpu = requested ?? allowed[allowed.length - 1]!;
  if (!allowed.includes(cpu)) {
    throw new BenchRequestError(`--cpu ${cpu} is not in this process's allowed CPUs (${allowedList}); pick one of those`);
  }
  const others = allowed.filter((c) => c !== cpu);
  const otherCpu = others.length ? others[others.length - 1]! : null;
  const needTwo = profiles.filter((p) => p.cpus === 2);
  if (otherCpu === null && needTwo.length) {
    throw new BenchRequestError(
      `profile ${needTwo.map((p) => p.name).join(', ')} needs two CPUs, but only CPU ${cpu} is allowed; ` +
        'drop it from --profile or run where two CPUs are available',
    );
  }
  return { cpu, otherCpu };
}

/** Calls per round of a profile: --ops for all, else the profile's default. */
export function opsFor(req: Pick<BenchRequest, 'ops'>, p: ProfileInfo): number {
  return req.ops ?? p.defaultOps;
}

/** What the probe's rounds are checked against, for a request. */
export function probeRunShape(req: Pick<BenchRequest, 'profiles' | 'ops' | 'warmups' | 'rounds'> & { processes?: number }): ProbeRunShape {
  return { expectedOps: new Map(req.profiles.map((p) => [p.name, opsFor(req, p)])), warmups: req.warmups, rounds: req.rounds, processes: req.processes ?? 1 };
}

/** Split `rounds` over `processes` as evenly as possible, larger shares first: 16 over 3 is 6, 5, 5. */
export function splitRounds(rounds: number, processes: number): number[] {
  const n = Math.max(1, Math.min(processes, rounds));
  return Array.from({ length: n }, (_, i) => Math.floor(rounds / n) + (i < rounds % n ? 1 : 0));
}

/** The probe's command line for a request. */
export function probeArgs(req: BenchRequest, plan: CpuPlan): string[] {
  const args = ['--cpu', String(plan.cpu), '--warmups', String(req.warmups), '--rounds', String(req.rounds)];
  if (plan.otherCpu !== null) args.push('--other-cpu', String(plan.otherCpu));
  if (req.injectSeccomp !== null) args.push('--inject-seccomp', String(req.injectSeccomp));
  for (const p of req.profiles) args.push('--profile', `${p.name}:${opsFor(req, p)}`);
  return args;
}

/** What a probe run measured, as stored with the run (host bench and VM boots alike). */
export function runParams(req: Pick<BenchRequest, 'profiles' | 'ops' | 'warmups' | 'rounds'>, plan: CpuPlan, extra: Record<string, unknown> = {}): RunParams {
  const subjectParams: RunParams['subjectParams'] = {};
  for (const p of req.profiles) subjectParams[p.name] = { call: p.call, ops: opsFor(req, p), cpus: p.cpus };
  return {
    subjects: req.profiles.map((p) => p.name),
    ops: req.ops,
    warmups: req.warmups,
    rounds: req.rounds,
    cpu: plan.cpu,
    subjectParams,
    extra: { otherCpu: plan.otherCpu, ...extra },
  };
}

/** Run the benchmark; every round is committed as it is measured. */
export async function runBench(req: BenchRequest, deps: BenchDeps): Promise<BenchResult> {
  const env0 = collectEnvironment({ probe: deps.probe, pinnedCpu: req.cpu, injectSeccomp: req.injectSeccomp, reader: deps.reader });
  if (!env0.cpu.allowed.known) throw new BenchRequestError(`cannot read the allowed CPUs: ${env0.cpu.allowed.reason}`);
  const plan = planCpus(env0.cpu.allowed.value, req.cpu, req.profiles);
  const env: HostEnvironment = { ...env0, pinnedCpu: plan.cpu };

  const { runId, session } = startProbeRun(
    deps.store,
    {
      label: req.label,
      kind: 'bench',
      unit: 'ns/call',
      replicateUnit: 'process',
      command: req.command,
      hintlabVersion: req.hintlabVersion,
      params: runParams(req, plan, { processes: splitRounds(req.rounds, req.processes).length, ...invocationExtra(req) }),
      environment: env as unknown as Record<string, unknown>,
    },
    probeRunShape(req),
    deps.onProgress,
  );
  let outcome: SessionOutcome = { state: 'failed', reason: 'no probe process ran' };
  for (const rounds of splitRounds(req.rounds, req.processes)) {
    // a signal that lands between two probe processes reaches no probe: stop here, not after the rest
    if (deps.abort?.aborted) {
      outcome = { state: 'failed', reason: 'interrupted before its next probe process' };
      break;
    }
    session.startSegment(rounds);
    try {
      const abort = deps.abort ? AbortSignal.any([deps.abort, session.stopped]) : session.stopped;
      const exit = await deps.executor.run(probeArgs({ ...req, rounds }, plan), (l) => session.feed(l), abort);
      outcome = session.outcome(exit);
    } catch (err) {
      outcome = { state: 'failed', reason: `cannot run the probe: ${(err as Error).message}` };
    }
    if (outcome.state === 'failed') break;
  }
  // disk full (or an I/O error) while storing: the probe was stopped; keep what was committed
  if (session.storeFailure) deps.store.abandonRun(runId, session.storeFailure);
  const finalEnv = finishEnvironment(env, deps.reader);
  deps.store.updateEnvironment(runId, finalEnv as unknown as Record<string, unknown>);
  if (outcome.state === 'failed') {
    deps.store.finishRun(runId, 'failed', outcome.reason);
    return { state: 'failed', run: deps.store.getRun(runId), reason: outcome.reason };
  }
  deps.store.finishRun(runId, 'complete');
  return { state: 'complete', run: deps.store.getRun(runId), warnings: finalEnv.warnings };
}
