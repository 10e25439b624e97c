/**
 * Which stressors a macro run measures, checked against what the installed
 * stress-ng offers.
 */
import { didYouMean } from '../format/suggest.ts';

/**
 * The scheduler set of the sched/core branch-hint thread (Colin Ian King,
 * "sched: add some likely/unlikey branch hints in scheduler core",
 * 2025-03-20), in its order.
 */
export const SCHED_SET: readonly string[] = [
  'cpu-sched', 'fifo', 'flipflop', 'futex', 'mq', 'msg', 'mtx', 'mutex', 'poll',
  'prio-inv', 'pthread', 'race-sched', 'schedmix', 'schedpolicy', 'switch', 'tee', 'yield',
];

/** Named sets accepted by `--set`. */
export const STRESSOR_SETS: Readonly<Record<string, readonly string[]>> = { sched: SCHED_SET };

/** A stressor asked for by a set that the installed stress-ng does not have. */
export interface UnavailableStressor {
  stressor: string;
  reason: string;
}

export interface StressorSelection {
  available: string[];
  unavailable: UnavailableStressor[];
}

/** A selection that cannot run (unknown set, unknown stressor named explicitly). */
export class StressorSelectionError extends Error {}

/** The version number from `stress-ng --version` ("stress-ng, version 0.15.06 (gcc ...)"). */
export function parseStressNgVersion(output: string): string {
  const m = /version\s+(\d+(?:\.\d+)+)/.exec(output);
  if (!m?.[1]) throw new StressNgOutputError(`cannot find a version number in 'stress-ng --version' output: '${output.trim()}'`);
  return m[1];
}

/** The stressor names printed by `stress-ng --stressors` (one line, space-separated). */
export function parseStressorList(output: string): string[] {
  const names = output.split(/\s+/).filter((n) => /^[a-z0-9][a-z0-9-]*$/.test(n));
  if (names.length === 0) throw new StressNgOutputError(`'stress-ng --stressors' listed no stressors: '${output.trim()}'`);
  return names;
}

/** stress-ng printed something this code does not understand. */
export class StressNgOutputError extends Error {}

/**
 * Resolve explicit stressor names and set names. A stressor named
 * explicitly must exist (a typo is an error); one that only a set asks for
 * and the installed stress-ng lacks is listed as unavailable with the
 * version. Duplicates are dropped, first occurrence kept.
 */
export function selectStressors(
  req: { stressors: string[]; sets: string[] },
  installed: { version: string; stressors: readonly string[] },
): StressorSelection {
  const have = new Set(installed.stressors);
  const available: string[] = [];
  const unavailable: UnavailableStressor[] = [];
  const seen = new Set<string>();
  for (const name of req.stressors) {
    if (!have.has(name)) {
      throw new StressorSelectionError(
        `--stressor ${name}: stress-ng ${installed.version} has no stressor '${name}'${didYouMean(name, [...have])}; 'stress-ng --stressors' lists the ones it has`,
      );
    }
    if (!seen.has(name)) available.push(name);
    seen.add(name);
  }
  for (const set of req.sets) {
    const members = STRESSOR_SETS[set];
    if (!members) {
      throw new StressorSelectionError(`--set ${set}: unknown set; known sets: ${Object.keys(STRESSOR_SETS).join(', ')}`);
    }
    for (const name of members) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (have.has(name)) available.push(name);
      else unavailable.push({ stressor: name, reason: `not in stress-ng ${installed.version}` });
    }
  }
  if (available.length === 0) {
    throw new StressorSelectionError(
      req.stressors.length + req.sets.length === 0
        ? 'name the stressors to run: --stressor NAME (repeatable) or --set sched'
        : `none of the requested stressors exists in stress-ng ${installed.version}`,
    );
  }
  return { available, unavailable };
}
