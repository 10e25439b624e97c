/**
 * The order in which a macro run invokes stress-ng.
 *
 * Every (stressor, instance count) pair is one subject, named
 * `stressor@instances`. Repeat r of every subject runs before repeat r+1
 * of any, so slow drift (temperature, background load) is spread over all
 * subjects alike instead of landing on whichever ran last.
 */
import { parseCpuList } from '../environment/host.ts';

/** One stress-ng invocation of the plan. */
export interface PlanItem {
  /** Position in the run, 0-based: the round's `seq`. */
  seq: number;
  subject: string;
  stressor: string;
  instances: number;
  /** 0-based repeat: the round's `index`. */
  repeat: number;
}

/** What the user asked for with --instances: counts, or `all` (one per usable CPU). */
export type InstanceSpec = number | 'all';

/** A bad --instances or --cpu value. */
export class PlanError extends Error {}

/** Parse `--instances 1,4,all`. */
export function parseInstances(text: string): InstanceSpec[] {
  const out: InstanceSpec[] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === 'all') out.push('all');
    else if (/^[1-9]\d*$/.test(part)) out.push(Number(part));
    else throw new PlanError(`--instances ${text}: '${part}' is neither a positive count nor 'all' (example: --instances 1,all)`);
  }
  return out;
}

/**
 * The CPUs stress-ng may use: `--cpu LIST` checked against the allowed
 * CPUs, or all allowed CPUs.
 */
export function usableCpus(allowedList: string, requested: string | null): number[] {
  const allowed = parseCpuList(allowedList);
  if (requested === null) return allowed;
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(requested)) {
    throw new PlanError(`--cpu ${requested}: not a CPU list (examples: --cpu 2, --cpu 0-3,8)`);
  }
  const cpus = parseCpuList(requested);
  const outside = cpus.filter((c) => !allowed.includes(c));
  if (cpus.length === 0 || outside.length > 0) {
    throw new PlanError(
      `--cpu ${requested}: CPU ${outside.join(', ') || requested} is not in this process's allowed CPUs (${allowedList}); pick from those`,
    );
  }
  return [...new Set(cpus)].sort((a, b) => a - b);
}

/** Instance counts with `all` resolved to the number of usable CPUs, duplicates dropped. */
export function resolveInstances(specs: InstanceSpec[], cpuCount: number): number[] {
  const counts = specs.map((s) => (s === 'all' ? cpuCount : s));
  return [...new Set(counts)];
}

export function subjectName(stressor: string, instances: number): string {
  return `${stressor}@${instances}`;
}

/** The interleaved plan: repeats outermost, then instance counts, then stressors. */
export function buildPlan(stressors: string[], instances: number[], repeats: number): PlanItem[] {
  const items: PlanItem[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const n of instances) {
      for (const stressor of stressors) {
        items.push({ seq: items.length, subject: subjectName(stressor, n), stressor, instances: n, repeat });
      }
    }
  }
  return items;
}
