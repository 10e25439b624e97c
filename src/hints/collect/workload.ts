/**
 * What the coverage guest runs: hintlab's own syscall profiles with a
 * quarter of their default call counts, in two rounds (on 6.12 with three
 * directories profiled the whole boot takes about 7 s under TCG; profiling
 * the whole kernel costs more), or a user's static x86_64 program. The guest has
 * no libc, no loader and no files but the program, so a dynamically linked
 * program is refused before any build starts. `stress-ng[:LIST]` runs the
 * host's stress-ng (stress-ng.ts).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { PROFILES } from '../../bench/profiles.ts';
import { UserError } from '../../errors.ts';
import { processExecutor, StressNgMissingError } from '../../macro/executor.ts';
import type { UnavailableStressor } from '../../macro/stressors.ts';
import type { TargetFile } from '../../targets/target.ts';
import { GUEST_STRESS_NG, stressNgFiles } from '../../launch/stress-ng-image.ts';
import type { GuestWorkload } from './guest.ts';
import { DEFAULT_STRESSOR_SECONDS, parseStressNgWorkload, resolveStressNgWorkload, type InstalledStressNg } from './stress-ng.ts';

/** Each profile runs its default calls per round divided by this, in ROUNDS rounds (no warm-ups). */
export const OPS_DIVISOR = 4;
export const ROUNDS = 2;
const MIN_OPS = 50;

/** Every profile of the probe with the reduced call count. */
export function profilesWorkload(): GuestWorkload {
  return {
    kind: 'profiles',
    rounds: ROUNDS,
    profiles: PROFILES.map((p) => ({ name: p.name, ops: Math.max(MIN_OPS, Math.round(p.defaultOps / OPS_DIVISOR)) })),
  };
}

const PT_INTERP = 3;
const EM_X86_64 = 62;

/** Why `data` cannot run as a static program in the guest, or null when it can. */
export function staticElfProblem(data: Buffer): string | null {
  if (data.length < 64 || data.readUInt32BE(0) !== 0x7f454c46) return 'it is not an ELF executable';
  if (data[4] !== 2 || data[5] !== 1) return 'it is not a 64-bit little-endian ELF file';
  const type = data.readUInt16LE(16);
  if (type !== 2 && type !== 3) return 'it is an ELF object or core file, not an executable';
  if (data.readUInt16LE(18) !== EM_X86_64) return `it is built for ELF machine ${data.readUInt16LE(18)}, not x86_64`;
  const phoff = Number(data.readBigUInt64LE(32));
  const phentsize = data.readUInt16LE(54);
  const phnum = data.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 4 > data.length) return 'its program headers are truncated';
    if (data.readUInt32LE(at) === PT_INTERP) return 'it is dynamically linked (it needs a loader and shared libraries the guest does not have)';
  }
  return null;
}

/** `--workload profiles` or a path to a static program. */
export function resolveWorkload(value: string, absPath: string): { workload: GuestWorkload; label: string } {
  if (value === 'profiles') return { workload: profilesWorkload(), label: 'profiles' };
  let data: Buffer;
  try {
    data = readFileSync(absPath);
  } catch (err) {
    throw new UserError(`--workload ${value}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; give 'profiles' or the path of a static x86_64 program`, 2);
  }
  const problem = staticElfProblem(data);
  if (problem) throw new UserError(`--workload ${value}: ${problem}; the guest runs it as its only program, so build it with 'gcc -static' for x86_64`, 2);
  return { workload: { kind: 'program', path: absPath, data }, label: basename(absPath) };
}

/** A checked `--workload`: what runs, its default name, what the set records, and what the kernel needs for it. */
export interface WorkloadChoice {
  workload: GuestWorkload;
  name: string;
  label: string;
  /** Stressors a set asks for that the installed stress-ng lacks (said once on stderr). */
  unavailable: UnavailableStressor[];
  /** Kernel options on top of the coverage kernel's (part of the build's key). */
  kernelConfig: readonly string[];
}

export interface WorkloadDeps {
  /** The host's stress-ng (default: the one on PATH). */
  stressNg?: InstalledStressNg;
  /** stress-ng's guest files (default: /usr/bin/stress-ng and what ldd lists). */
  stressNgFiles?: () => TargetFile[];
}

function hostStressNgFiles(): TargetFile[] {
  return stressNgFiles(GUEST_STRESS_NG).entries.flatMap((e) => (e.kind === 'file' ? [{ path: e.path, data: e.data, mode: e.mode }] : []));
}

/** `--workload` and `--stressor-seconds`, checked before any build starts. */
export async function chooseWorkload(value: string, absPath: string, stressorSeconds: number | undefined, deps: WorkloadDeps = {}): Promise<WorkloadChoice> {
  const ask = parseStressNgWorkload(value);
  if (!ask) {
    if (stressorSeconds !== undefined) throw new UserError(`--stressor-seconds applies to --workload stress-ng[:STRESSOR,...] only; drop it for --workload ${value}`, 2);
    const { workload, label } = resolveWorkload(value, absPath);
    return { workload, name: label, label, unavailable: [], kernelConfig: [] };
  }
  try {
    return await resolveStressNgWorkload(value, ask, stressorSeconds ?? DEFAULT_STRESSOR_SECONDS, deps.stressNg ?? processExecutor(), deps.stressNgFiles ?? hostStressNgFiles);
  } catch (err) {
    if (err instanceof StressNgMissingError) throw new UserError(`--workload ${value}: ${err.message}`);
    throw err;
  }
}
