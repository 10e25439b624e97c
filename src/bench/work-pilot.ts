/**
 * `--inject-work-b PCT%`: how many dependent additions per call make side B
 * cost PCT % more than A, from a short pilot on the same target: probe
 * processes with no work and with PILOT_ADDS additions, in the order
 * 0 K K 0 (a linear drift cancels), each one warm-up and three rounds. Per
 * profile, A's cost per call a and the cost of one addition s = (t_K - a)/K
 * give N = PCT/100 * a / s.
 */
import { ConsoleLines } from './protocol.ts';
import { opsFor, probeArgs, type CpuPlan } from './probe-run.ts';
import { BenchRequestError, type BenchDeps } from './runner.ts';
import { clockArgs, type InterleavedRequest } from './sides.ts';

/** Additions per call in the pilot's work processes: large enough to stand out of the noise of a short pilot. */
export const PILOT_ADDS = 4000;
/** The most the probe's unrolled block holds (probes/work.c). */
export const WORK_MAX = 65536;

/** Per profile, the mean ns per call of the measured rounds of one probe process. */
async function pilotProcess(req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan, adds: number): Promise<Map<string, number[]>> {
  const args = [...probeArgs({ ...req, warmups: 1, rounds: 3, injectSeccomp: req.a.injectSeccomp }, plan), ...(adds ? ['--inject-work', String(adds)] : []), ...clockArgs(req)];
  const lines = new ConsoleLines();
  const got = new Map<string, number[]>();
  const exit = await deps.target.run({ program: 'probe', args }, (l) => {
    for (const p of lines.push(l)) {
      if (p.kind === 'event' && p.event.type === 'round' && !p.event.warmup) got.set(p.event.profile, [...(got.get(p.event.profile) ?? []), p.event.elapsed / p.event.ops]);
    }
  }, deps.abort ?? new AbortController().signal);
  if (exit.end.kind !== 'exited' || exit.end.code !== 0) throw new BenchRequestError(exit.describe('the --inject-work-b pilot probe failed'));
  return got;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** N per profile so that B costs `pct` % more than A, from the pilot. */
export async function calibrateWork(req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan, pct: number): Promise<Record<string, number>> {
  const runs: [number, Map<string, number[]>][] = [];
  for (const adds of [0, PILOT_ADDS, PILOT_ADDS, 0]) runs.push([adds, await pilotProcess(req, deps, plan, adds)]);
  const out: Record<string, number> = {};
  for (const p of req.profiles) {
    const with0 = runs.filter(([k]) => k === 0).flatMap(([, m]) => m.get(p.name) ?? []);
    const withK = runs.filter(([k]) => k > 0).flatMap(([, m]) => m.get(p.name) ?? []);
    const a = mean(with0);
    const perAdd = (mean(withK) - a) / PILOT_ADDS;
    if (!(perAdd > 0) || !(a > 0)) {
      throw new BenchRequestError(`the --inject-work-b pilot could not see ${PILOT_ADDS} additions per call in ${p.name} (${opsFor(req, p)} calls per round) through the noise; give a count instead (--inject-work-b N)`);
    }
    out[p.name] = Math.max(1, Math.min(WORK_MAX, Math.round(((pct / 100) * a) / perAdd)));
  }
  return out;
}
