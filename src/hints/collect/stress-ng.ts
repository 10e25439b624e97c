/**
 * `hints collect --workload stress-ng[:STRESSOR,...]`: the host's stress-ng
 * (with every library `ldd` names, as `vm --macro` puts it into a guest) run
 * in the coverage guest between the counter reset and the dump, one
 * invocation per stressor, one instance per guest CPU, `--stressor-seconds`
 * each. `stress-ng` alone is the scheduler set (`SCHED_SET`).
 *
 * stress-ng writes to the guest's console, and the session keeps each
 * invocation's lines. A failed invocation fails the whole collect (the set
 * would say stressors ran that did not): the message names the stressor,
 * its exit status and what stress-ng said.
 *
 * Under TCG the guest's clock runs at wall speed while the emulated CPU is
 * many times slower than the host, so a stressor does far fewer operations
 * per second than on real hardware, but a guest second still costs about a
 * wall second (plus about a second of stress-ng's start and stop per stressor).
 */
import { UserError } from '../../errors.ts';
import { parseStressNgVersion, parseStressorList, selectStressors, StressNgOutputError, StressorSelectionError, STRESSOR_SETS, type UnavailableStressor } from '../../macro/stressors.ts';
import type { TargetFile } from '../../targets/target.ts';
import { GUEST_STRESS_NG } from '../../launch/stress-ng-image.ts';
import { STRESS_NG_CONFIG } from './kernel.ts';

/** Seconds each stressor runs when `--stressor-seconds` is not given: the scheduler set (12 stressors in 0.15.06) made a 130 s boot of 6.12 under TCG. */
export const DEFAULT_STRESSOR_SECONDS = 10;
/** Where the probe reads the invocations (`--run-plan`). */
export const GUEST_STRESS_PLAN = '/hintlab.plan';
/** stress-ng's output goes to the console, where the session keeps it for a failure's message. */
export const GUEST_STRESS_LOG = '/dev/console';

/** The host's stress-ng (`files`: binary, libraries, loader), one invocation per stressor. */
export interface StressNgWorkload {
  kind: 'stress-ng';
  stressors: string[];
  seconds: number;
  version: string;
  files: TargetFile[];
}

/** What `--workload stress-ng[:LIST]` asks for: set names and stressor names, in the order given. */
export interface StressNgAsk {
  sets: string[];
  stressors: string[];
}

/** `stress-ng` (the sched set), `stress-ng:sched`, `stress-ng:fifo,yield`; null for any other workload. */
export function parseStressNgWorkload(value: string): StressNgAsk | null {
  if (value !== 'stress-ng' && !value.startsWith('stress-ng:')) return null;
  const names = value === 'stress-ng' ? ['sched'] : value.slice('stress-ng:'.length).split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new UserError(`--workload ${value}: name stressors after the colon (stress-ng:fifo,yield) or a set (stress-ng:sched)`, 2);
  return { sets: names.filter((n) => n in STRESSOR_SETS), stressors: names.filter((n) => !(n in STRESSOR_SETS)) };
}

/** The workload's name for `hintlab hints`: stress-ng-sched, stress-ng-fifo-yield, stress-ng-fifo-and-4-more. */
export function stressNgName(ask: StressNgAsk): string {
  const parts = [...ask.sets, ...ask.stressors];
  return parts.length <= 3 ? `stress-ng-${parts.join('-')}` : `stress-ng-${parts[0]}-and-${parts.length - 1}-more`;
}

/** One plan line per stressor: `LOGPATH PROGRAM ARG...` (instances 0: one per guest CPU). */
export function stressNgPlanText(stressors: readonly string[], seconds: number): string {
  return stressors.map((s) => `${GUEST_STRESS_LOG} ${GUEST_STRESS_NG} --${s} 0 --timeout ${seconds}s\n`).join('');
}

/** What the checked workload is, and what to tell the user. */
export interface ResolvedStressNg {
  workload: StressNgWorkload;
  name: string;
  /** Stored as the set's workload: what ran. */
  label: string;
  unavailable: UnavailableStressor[];
  /** Kernel options the stressors need. */
  kernelConfig: readonly string[];
}

/** The host's stress-ng as far as the check needs it (the macro executor's). */
export interface InstalledStressNg {
  version(): Promise<string>;
  stressors(): Promise<string>;
}

/**
 * Check the names against the installed stress-ng (the binary the guest
 * runs): an unknown name is refused with the closest known one; what a set
 * asks for and this stress-ng lacks is returned as unavailable.
 */
export async function resolveStressNgWorkload(
  value: string,
  ask: StressNgAsk,
  seconds: number,
  installed: InstalledStressNg,
  files: () => TargetFile[],
): Promise<ResolvedStressNg> {
  let version: string;
  let selection: ReturnType<typeof selectStressors>;
  try {
    version = parseStressNgVersion(await installed.version());
    selection = selectStressors(ask, { version, stressors: parseStressorList(await installed.stressors()) });
  } catch (err) {
    if (err instanceof StressorSelectionError || err instanceof StressNgOutputError) {
      throw new UserError(`--workload ${value}: ${err.message.replace(/^--(stressor|set) \S+: /, '')}`, 2);
    }
    throw err;
  }
  const stressors = selection.available;
  const what = ask.sets.length && !ask.stressors.length ? `${ask.sets.join(', ')} set (${stressors.length} stressors)` : `${stressors.length} stressor${stressors.length === 1 ? '' : 's'}`;
  return {
    workload: { kind: 'stress-ng', stressors, seconds, version, files: files() },
    name: stressNgName(ask),
    label: `stress-ng ${version} ${what}, ${seconds} s each, one instance per guest CPU: ${stressors.join(' ')}`,
    unavailable: selection.unavailable,
    kernelConfig: STRESS_NG_CONFIG,
  };
}

/** The guest's plan file and stress-ng's files (binary, libraries, loader). */
export function stressNgJobFiles(w: StressNgWorkload): TargetFile[] {
  return [...w.files, { path: GUEST_STRESS_PLAN.slice(1), data: Buffer.from(stressNgPlanText(w.stressors, w.seconds)) }];
}

/** Guest seconds of the plan: what the stressors alone cost. */
export function stressNgPlanSeconds(w: StressNgWorkload): number {
  return w.stressors.length * w.seconds;
}
