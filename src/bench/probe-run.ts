/**
 * What a probe run asks for, shared by every place the probe measures
 * profiles (`hintlab bench` on the host, `hintlab vm` as a guest's /init):
 * its command line, the parameters stored with the run, and the shape its
 * rounds are checked against.
 */
import type { RunParams } from '../model.ts';
import type { RoundClock, RunExtra } from '../run-record.ts';
import type { ProfileInfo } from './profiles.ts';
import type { ProbeRunShape } from './session.ts';

/** The profile fields of a request, wherever the probe runs. */
export interface ProbeRequest {
  profiles: ProfileInfo[];
  /** Calls per round for every profile; null = each profile's default. */
  ops: number | null;
  /** Warm-up rounds per probe process. */
  warmups: number;
  rounds: number;
  /** Instructions of the calibration seccomp filter; null = none. */
  injectSeccomp: number | null;
}

/**
 * The clock a host invocation times on when --clock is not given, the same
 * for a plain run and every A/B design so their numbers agree (docs/bench.md,
 * "Which clock"): the thread's CPU time, unless a profile hands the CPU to
 * a partner and waits for it (its CPU time would leave the wait out), then
 * the wall clock for the whole invocation.
 */
export function defaultClock(profiles: readonly Pick<ProfileInfo, 'waits'>[]): RoundClock {
  return profiles.some((p) => p.waits === true) ? 'wall' : 'thread-cpu';
}

/** The probe arguments of a clock (none for wall time, the probe's default). */
export function clockFlags(clock: RoundClock): string[] {
  return clock === 'thread-cpu' ? ['--clock', 'thread-cpu'] : [];
}

export interface CpuPlan {
  cpu: number;
  /** A second allowed CPU for helper threads, or null on a one-CPU mask. */
  otherCpu: number | null;
}

/** Calls per round of a profile: --ops for all, else the profile's default. */
export function opsFor(req: Pick<ProbeRequest, 'ops'>, p: ProfileInfo): number {
  return req.ops ?? p.defaultOps;
}

/** What the probe's rounds are checked against, for a request. */
export function probeRunShape(req: Pick<ProbeRequest, 'profiles' | 'ops' | 'warmups' | 'rounds'> & { processes?: number }): ProbeRunShape {
  return { expectedOps: new Map(req.profiles.map((p) => [p.name, opsFor(req, p)])), warmups: req.warmups, rounds: req.rounds, processes: req.processes ?? 1 };
}

/** Split `rounds` over `processes` as evenly as possible, larger shares first: 16 over 3 is 6, 5, 5. */
export function splitRounds(rounds: number, processes: number): number[] {
  const n = Math.max(1, Math.min(processes, rounds));
  return Array.from({ length: n }, (_, i) => Math.floor(rounds / n) + (i < rounds % n ? 1 : 0));
}

/** The probe's command line for a request. */
export function probeArgs(req: ProbeRequest, plan: CpuPlan): string[] {
  const args = ['--cpu', String(plan.cpu), '--warmups', String(req.warmups), '--rounds', String(req.rounds)];
  if (plan.otherCpu !== null) args.push('--other-cpu', String(plan.otherCpu));
  if (req.injectSeccomp !== null) args.push('--inject-seccomp', String(req.injectSeccomp));
  for (const p of req.profiles) args.push('--profile', `${p.name}:${opsFor(req, p)}`);
  return args;
}

/** What a probe run measured, as stored with the run (host bench and VM boots alike). */
export function runParams(req: Pick<ProbeRequest, 'profiles' | 'ops' | 'warmups' | 'rounds'>, plan: CpuPlan, extra: RunExtra = {}): RunParams {
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
