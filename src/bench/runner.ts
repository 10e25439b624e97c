/**
 * `hintlab bench`: validate the request, record the environment, start a
 * run, let the probe measure on the target (this machine unless a test or
 * `--target` gives another), and store every round as it arrives. Each
 * probe process is one segment of the run driver (src/targets/driver.ts).
 */
import type { RunWithRounds } from '../model.ts';
import { invocationExtra, type RoundClock, type RunExtra, type RunInvocation } from '../run-record.ts';
import type { Store } from '../store/store.ts';
import { drive, type DriverSegment } from '../targets/driver.ts';
import { placedEnvironment, type Target } from '../targets/target.ts';
import type { ProbeBuild } from '../launch/probe-build.ts';
import { collectEnvironment, finishEnvironment, parseCpuList } from '../environment/host.ts';
import type { EnvWarning, HostEnvironment, RemoteEnvironment } from '../environment/record.ts';
import type { SysReader } from '../environment/reader.ts';
import { clockFlags, defaultClock, probeArgs, probeRunShape, runParams, splitRounds, type CpuPlan, type ProbeRequest } from './probe-run.ts';
import type { ProfileInfo } from './profiles.ts';
import { startProbeRun } from './session.ts';
import { boundOps, OpsBoundError } from './pilot.ts';


export interface BenchRequest extends ProbeRequest {
  /**
   * Probe processes the rounds are split across, one after another. Rounds
   * within one process vary less than between processes (memory layout, page
   * placement), so a single process understates the noise two runs show.
   */
  processes: number;
  /** CPU to pin to; null = the last allowed CPU. */
  cpu: number | null;
  label: string | null;
  command: string;
  /** The arguments as typed and the working directory, stored as params.extra.invocation. */
  invocation?: RunInvocation;
  hintlabVersion: string;
  /** What a round's time counts (--clock); null or absent = defaultClock of the profiles. Stored as params.extra.clock. */
  clock?: RoundClock | null;
  /**
   * The run is one boot of a session on a box (`hintlab session`): the boot
   * is its one unit of replication, its probe processes share it, and
   * `extra` (session, step, kernel label, boot index) goes into params.extra.
   */
  boot?: { extra: RunExtra };
}

export interface BenchDeps {
  store: Store;
  /** Where the probe runs. */
  target: Target;
  probe: ProbeBuild;
  reader?: SysReader;
  abort?: AbortSignal;
  onProgress?: (done: number, total: number, profile: string) => void;
  /** The run was created (before its first round): a session records which run its step measures. */
  onRunCreated?: (runId: number) => void;
}

export type BenchResult =
  | { state: 'complete'; run: RunWithRounds; warnings: EnvWarning[] }
  | { state: 'failed'; run: RunWithRounds; reason: string };

/** A request that cannot run on this machine (bad CPU, one CPU for a two-CPU profile). */
export class BenchRequestError extends Error {}

/** A signal that lands between two probe processes reaches no probe: the run stops there, not after the rest. */
export const INTERRUPTED_BETWEEN = 'interrupted before its next probe process';

/** INTERRUPTED_BETWEEN with the signal that aborted the run, when the abort's reason names one (src/cli/interrupt.ts). */
export function interruptedBetween(abort?: AbortSignal): string {
  const reason: unknown = abort?.reason;
  return typeof reason === 'string' && reason.startsWith('SIG') ? `${INTERRUPTED_BETWEEN} (${reason})` : INTERRUPTED_BETWEEN;
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

/** The environment at the start and the CPUs to pin to, checked against the allowed mask. */
export function benchStart(req: Pick<BenchRequest, 'cpu' | 'profiles'>, deps: Pick<BenchDeps, 'probe' | 'reader' | 'target'>, injectSeccomp: number | null): { env: HostEnvironment | RemoteEnvironment; plan: CpuPlan } {
  const env0 = collectEnvironment({ probe: deps.probe, pinnedCpu: req.cpu, injectSeccomp, reader: deps.reader });
  if (!env0.cpu.allowed.known) throw new BenchRequestError(`cannot read the allowed CPUs: ${env0.cpu.allowed.reason}`);
  const plan = planCpus(env0.cpu.allowed.value, req.cpu, req.profiles);
  return { env: placedEnvironment({ ...env0, pinnedCpu: plan.cpu }, deps.target), plan };
}

/** Refuse an --ops whose rounds would pass the cap (./pilot.ts), before any run is created. */
export async function checkOps(req: ProbeRequest, plan: CpuPlan, deps: Pick<BenchDeps, 'target' | 'abort'>): Promise<void> {
  try {
    await boundOps(req, plan, deps.target, deps.abort ?? new AbortController().signal);
  } catch (err) {
    if (err instanceof OpsBoundError) throw new BenchRequestError(err.message);
    throw err;
  }
}

/** Run the benchmark; every round is committed as it is measured. */
export async function runBench(req: BenchRequest, deps: BenchDeps): Promise<BenchResult> {
  const { env, plan } = benchStart(req, deps, req.injectSeccomp);
  await checkOps(req, plan, deps);
  const shares = splitRounds(req.rounds, req.processes);
  const clock = req.clock ?? defaultClock(req.profiles);
  const opened = startProbeRun(
    deps.store,
    {
      label: req.label,
      kind: 'bench',
      unit: 'ns/call',
      replicateUnit: req.boot ? 'boot' : 'process',
      command: req.command,
      hintlabVersion: req.hintlabVersion,
      params: runParams(req, plan, { processes: shares.length, clock, ...invocationExtra(req), ...req.boot?.extra }),
      environment: env,
    },
    { ...probeRunShape(req), processesAreUnits: !req.boot },
    deps.onProgress,
  );
  deps.onRunCreated?.(opened.runId);
  let finalEnv = env;
  const segments: DriverSegment[] = shares.map((rounds) => ({
    run: 0,
    target: deps.target,
    what: 'the probe',
    job: { program: 'probe', args: [...probeArgs({ ...req, rounds }, plan), ...clockFlags(clock)] },
    begin: () => opened.session.startSegment(rounds),
  }));
  const result = await drive({
    store: deps.store,
    abort: deps.abort ?? new AbortController().signal,
    runs: [{ open: () => opened, finalEnvironment: () => (finalEnv = finishEnvironment(env, deps.reader)) }],
    segments,
    stopOnFailure: true,
    together: true,
    interruptedBefore: () => interruptedBetween(deps.abort),
  });
  const run = deps.store.getRun(opened.runId);
  if (result.stop?.kind === 'failed') return { state: 'failed', run, reason: result.stop.reason };
  return { state: 'complete', run, warnings: finalEnv.warnings };
}
