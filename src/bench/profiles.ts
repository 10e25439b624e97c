/**
 * The syscall profiles the probe implements (probes/profiles_*.c), with the
 * calls per round that make one round last roughly 10-30 ms on a current
 * x86_64 machine: long enough to dwarf clock_gettime's cost, short enough
 * that 15 interleaved rounds of every profile finish in seconds.
 */
import { didYouMean } from '../format/suggest.ts';

export interface ProfileInfo {
  name: string;
  /** The syscall timed, as in the kernel's syscall table. */
  call: string;
  defaultOps: number;
  /** Needs a second allowed CPU (refused clearly on a one-CPU machine). */
  cpus: 1 | 2;
  /** What one op is, for reports. */
  summary: string;
  /** The timed thread hands the CPU to a partner and waits for it: its own CPU time leaves the wait out (./probe-run.ts defaultClock). */
  waits?: true;
}

export const PROFILES: readonly ProfileInfo[] = [
  { name: 'getppid', call: 'getppid', defaultOps: 100_000, cpus: 1, summary: 'null syscall baseline' },
  { name: 'sched_getattr', call: 'sched_getattr', defaultOps: 100_000, cpus: 1, summary: 'read own attributes' },
  { name: 'sched_setattr', call: 'sched_setattr', defaultOps: 20_000, cpus: 1, summary: 'rewrite unchanged SCHED_OTHER attributes' },
  { name: 'sched_getparam', call: 'sched_getparam', defaultOps: 100_000, cpus: 1, summary: 'read own priority' },
  { name: 'sched_getscheduler', call: 'sched_getscheduler', defaultOps: 100_000, cpus: 1, summary: 'read own policy' },
  { name: 'sched_setscheduler', call: 'sched_setscheduler', defaultOps: 20_000, cpus: 1, summary: 'rewrite unchanged SCHED_OTHER policy' },
  { name: 'sched_setparam-default', call: 'sched_setparam', defaultOps: 20_000, cpus: 1, summary: 'sched_setparam(0, {0}), default slice' },
  { name: 'sched_setparam-custom', call: 'sched_setparam', defaultOps: 50_000, cpus: 1, summary: 'sched_setparam(0, {0}), 10 ms custom slice' },
  { name: 'select-1000', call: 'select', defaultOps: 500, cpus: 1, summary: 'select() over 1000 fds, zero timeout' },
  { name: 'select-1000-empty', call: 'select', defaultOps: 50_000, cpus: 1, summary: 'select() with nfds 1000, empty sets' },
  { name: 'mincore-256k', call: 'mincore', defaultOps: 20_000, cpus: 1, summary: 'mincore() on 256 KiB, half resident' },
  { name: 'sched_yield', call: 'sched_yield', defaultOps: 50_000, cpus: 1, summary: 'sched_yield() alone on the CPU' },
  { name: 'sched_yield-dual', call: 'sched_yield', defaultOps: 10_000, cpus: 1, summary: 'sched_yield() with a partner on the CPU', waits: true },
  { name: 'sched_setaffinity-same-mask', call: 'sched_setaffinity', defaultOps: 20_000, cpus: 1, summary: 'unchanged mask on a running thread' },
  { name: 'sched_setaffinity-queued', call: 'sched_setaffinity', defaultOps: 2_000, cpus: 2, summary: 'move a busy thread between two CPUs', waits: true },
];

export function findProfile(name: string): ProfileInfo | undefined {
  return PROFILES.find((p) => p.name === name);
}

/**
 * Expand `--profile` values: repeatable, comma-separated, or `all`.
 * Unknown names throw with the list of known ones.
 */
export function selectProfiles(requested: string[]): ProfileInfo[] {
  const names = requested.flatMap((r) => r.split(',')).map((s) => s.trim()).filter(Boolean);
  if (requested.length > 0 && names.length === 0) {
    throw new Error(`--profile is empty: name a profile (known profiles: ${PROFILES.map((x) => x.name).join(', ')}), or 'all'`);
  }
  if (names.length === 0 || names.includes('all')) return [...PROFILES];
  const out: ProfileInfo[] = [];
  for (const n of names) {
    const p = findProfile(n);
    if (!p) {
      throw new Error(`unknown profile '${n}' in --profile${didYouMean(n, PROFILES.map((x) => x.name))}; known profiles: ${PROFILES.map((x) => x.name).join(', ')}, or 'all'`);
    }
    if (!out.includes(p)) out.push(p);
  }
  return out;
}
