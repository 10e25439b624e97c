/**
 * A machine busy during a wall-clock run: more runnable tasks than CPUs
 * means the measured CPU was likely shared, and every preemption lands
 * inside a timed round (times inflate, their spread widens). pyperf warns
 * about an untuned system in the same spirit; this is the load the run
 * itself recorded, read back from its environment (load average at the
 * start and at the end, the CPUs online).
 *
 * Only runs timed on the wall clock are judged: the probe thread's CPU
 * clock (`--clock cpu`) leaves out the time other tasks held the CPU, a
 * guest's record describes the guest, and instruction counts are not time.
 */
import { readEnvironment } from '../environment/read.ts';
import { parseCpuList } from '../environment/host.ts';
import { fixed } from '../format/numbers.ts';
import type { RunWithRounds } from '../model.ts';
import type { RoleRun } from './checks.ts';
import type { ComparisonWarning } from './types.ts';

/** The units whose figures are wall time (ns per call, stress-ng's operations per second). */
const WALL_UNITS = new Set(['ns/call', 'bogo-ops/s']);

/** The clock a run's rounds were timed on: interleaved runs record it, plain runs are wall time. */
function clockOf(run: RunWithRounds): string {
  return run.params.extra.interleave?.clock ?? 'wall';
}

/**
 * Tasks of the run's own while the end-of-run load was read: the probe
 * (two in a duet), which the load at the end counts. stress-ng's workers
 * are as many as it was asked for, so a macro run is judged at its start only.
 */
function ownTasks(run: RunWithRounds): number | null {
  if (run.kind === 'macro') return null;
  return run.params.extra.interleave?.design === 'duet' ? 2 : 1;
}

/** The busy-machine warning of one run, or null when its load stayed within its CPUs (or was not recorded). */
function busyWarning({ role, run }: RoleRun): ComparisonWarning | null {
  if (!WALL_UNITS.has(run.unit) || clockOf(run) !== 'wall') return null;
  const env = readEnvironment(run);
  if (env.where === 'guest') return null;
  const online = env.cpu?.online;
  const cpus = online?.known && typeof online.value === 'string' ? parseCpuList(online.value).length : 0;
  if (cpus === 0) return null;
  const one = (l: unknown): number | null => (l !== null && typeof l === 'object' && (l as { known?: unknown }).known === true && Array.isArray((l as { value?: unknown }).value) ? Number((l as { value: unknown[] }).value[0]) : null);
  const start = one(env.load?.start);
  const end = one(env.load?.end);
  const own = ownTasks(run);
  // the 1-minute average at the end includes the run's own tasks: those are not competition
  const endOthers = end === null || own === null ? null : end - own;
  const busyAtStart = start !== null && start > cpus;
  const busyAtEnd = endOthers !== null && endOthers > cpus;
  if (!busyAtStart && !busyAtEnd) return null;
  const readings = [
    ...(start === null ? [] : [`${fixed(start, 2)} at the start`]),
    ...(end === null || own === null ? [] : [`${fixed(end, 2)} at the end (${own} of it its own probe)`]),
  ].join(', ');
  return {
    kind: 'busy-machine',
    role,
    runId: run.id,
    cpus,
    loadStart: start,
    loadEnd: end,
    message:
      `${role} (run ${run.id}) was timed on the wall clock on a busy machine: 1-minute load ${readings} on ${cpus} CPU${cpus === 1 ? '' : 's'}, ` +
      'so its CPU was likely shared (times and spread inflate); measure on a quiet machine, or on the probe thread\'s CPU clock (--clock cpu)',
  };
}

/** The busy-machine warnings of the compared runs, in role order. */
export function busyWarnings(runs: readonly RoleRun[]): ComparisonWarning[] {
  return runs.map(busyWarning).filter((w): w is ComparisonWarning => w !== null);
}
