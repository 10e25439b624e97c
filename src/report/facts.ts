/**
 * The facts about the machine and the runs that every report states next to
 * its numbers: CPU, host, kernels, probe compiler, tuning and calibration
 * (the commands that reproduce the runs are in ./reproduce.ts). Read from the runs' stored
 * environment records (src/environment/), where every machine value
 * is a Known<T>: an unreadable value prints as "unknown", never a guess.
 */
import type { Comparison, ComparedRun, RunRole } from '../compare/types.ts';
import { knownText, readEnvironment, vmOf, type StoredEnvironment } from '../environment/read.ts';
import { comparisonClockText, designOf } from './comparison-words.ts';

/** One labelled fact line, e.g. { label: 'Kernels', text: 'A 6.1.0, B 6.12.0' }. */
export interface Fact {
  label: string;
  text: string;
}

/** A run's environment record, typed and tagged (src/environment/read.ts). */
function env(run: ComparedRun): StoredEnvironment {
  return readEnvironment(run);
}

/**
 * One value per run: "6.12.0" when all runs agree, else
 * "A 6.1.0, B 6.12.0, A2 6.1.0". Undefined when no run has the value.
 */
function perRole(runs: ComparedRun[], get: (r: ComparedRun) => string | undefined): string | undefined {
  const values = runs.map((r) => ({ role: r.role, v: get(r) }));
  if (values.every((x) => x.v === undefined)) return undefined;
  const distinct = new Set(values.map((x) => x.v ?? 'not recorded'));
  if (distinct.size === 1) return values[0]?.v ?? 'not recorded';
  return values.map((x) => `${x.role} ${x.v ?? 'not recorded'}`).join(', ');
}

/** First word of a Known text such as "on (cpufreq/boost=1)". */
function headWord(text: string | undefined): string | undefined {
  return text?.split(' (')[0];
}

/** `run 12 "base"`: how the reports name a run. */
export function runName(run: ComparedRun): string {
  return run.label === null ? `run ${run.id}` : `run ${run.id} "${run.label}"`;
}

function kernelOf(r: ComparedRun): string | undefined {
  const release = knownText(env(r).kernel?.release);
  const vmLabel = knownText(vmOf(env(r))?.kernelLabel);
  if (vmLabel === undefined) return release;
  return `${release ?? 'unknown'} (VM kernel "${vmLabel}")`;
}

/** Whether the runs booted guests: their facts then come from two machines (see guestFieldSide in src/environment/guest.ts). */
function isVm(runs: ComparedRun[]): boolean {
  return runs.some((r) => env(r).where === 'guest');
}

/** The pinned CPU per run: "CPU 1", or "none". */
function pinnedText(runs: ComparedRun[]): string | undefined {
  return perRole(runs, (r) => {
    const cpu = env(r).pinnedCpu;
    return typeof cpu === 'number' ? `CPU ${cpu}` : 'none';
  });
}

/** A design on two CPUs (a duet, A's CPU first): "CPUs 1 and 0 (A and B at once, one on each)", not the one CPU the environment records. */
function designCpusText(c: Comparison): string | undefined {
  const cpus = designOf(c)?.cpus;
  if (!Array.isArray(cpus) || cpus.length !== 2) return undefined;
  return `CPUs ${cpus[0]} and ${cpus[1]} (A and B at once, one on each)`;
}

/** Turbo, governor, SMT and isolcpus: the tuning of the machine the numbers were measured on (a VM's host). */
function hostTuning(runs: ComparedRun[], cpus?: string): string[] {
  const parts: string[] = [];
  const add = (name: string, v: string | undefined): void => {
    if (v !== undefined) parts.push(`${name} ${v}`);
  };
  add('turbo', perRole(runs, (r) => headWord(knownText(env(r).cpu?.boost))));
  add('governor', perRole(runs, (r) => knownText(env(r).cpu?.governor)));
  add('SMT', perRole(runs, (r) => knownText(env(r).cpu?.smt)));
  if (!isVm(runs)) add('pinned', cpus ?? pinnedText(runs));
  const isol = perRole(runs, (r) => knownText(env(r).isolation?.isolcpus));
  if (isol !== undefined && isol !== '' && isol !== 'unknown') add('isolcpus', isol);
  return parts;
}

/** A guest's pinned CPU, CPU count and qemu mode: "pinned CPU 0, 1 CPU, under qemu tcg -icount". */
function guestTuning(runs: ComparedRun[]): string {
  const cpus = perRole(runs, (r) => {
    const n = vmOf(env(r))?.guestCpus;
    return typeof n === 'number' ? `${n} CPU${n === 1 ? '' : 's'}` : undefined;
  });
  const mode = perRole(runs, (r) => {
    const vm = vmOf(env(r));
    const accel = knownText(vm?.accel);
    if (accel === undefined) return undefined;
    return vm?.icount === true ? `qemu ${accel} -icount` : `qemu ${accel}`;
  });
  return [`pinned ${pinnedText(runs) ?? 'not recorded'}`, ...(cpus === undefined ? [] : [cpus]), `under ${mode ?? 'qemu'}`].join(', ');
}

/** Host runs: one tuning line. VM runs: the host's tuning, then the guest's (a VM run's virtualization field only repeats the qemu mode). */
function tuning(c: Comparison): string {
  const runs = c.runs;
  const host = hostTuning(runs, designCpusText(c));
  if (isVm(runs)) return `${host.length > 0 ? `host ${host.join(', ')}` : 'host not recorded'}; guest ${guestTuning(runs)}`;
  const virt = perRole(runs, (r) => knownText(env(r).virtualization));
  const parts = virt === undefined ? host : [...host, `virtualization ${virt}`];
  return parts.length > 0 ? parts.join(', ') : 'not recorded';
}

/** The CPU model without the "(host; guest under qemu ...)" a VM run's record adds (the label says it). */
function hostModel(r: ComparedRun): string | undefined {
  return knownText(env(r).cpu?.model)?.replace(/ \(host; guest under [^)]*\)$/, '');
}

/** The seccomp calibration filter per run, when any run used one. */
function calibration(runs: ComparedRun[]): string | undefined {
  const filters = runs.map((r) => ({ role: r.role, n: env(r).injectSeccomp }));
  if (!filters.some((f) => typeof f.n === 'number')) return undefined;
  return (
    filters.map((f) => `${f.role} ${typeof f.n === 'number' ? `${f.n}-instruction seccomp filter` : 'no filter'}`).join(', ') +
    ' (known-effect calibration)'
  );
}

/** The noise warnings recorded with the runs, by kind: "load (A, A2), virtualized (A, B, A2)". */
function warnings(runs: ComparedRun[]): string | undefined {
  const byKind = new Map<string, RunRole[]>();
  for (const r of runs) {
    const list: unknown = env(r).warnings;
    if (!Array.isArray(list)) continue;
    for (const w of list) {
      const kind = typeof w === 'object' && w !== null && typeof (w as { kind?: unknown }).kind === 'string' ? (w as { kind: string }).kind : 'other';
      const roles = byKind.get(kind) ?? [];
      if (!roles.includes(r.role)) roles.push(r.role);
      byKind.set(kind, roles);
    }
  }
  if (byKind.size === 0) return undefined;
  return [...byKind].map(([kind, roles]) => `${kind} (${roles.join(', ')})`).join(', ');
}

/** Machine, kernels, compiler, tuning, calibration and allowed mismatches. */
export function environmentFacts(c: Comparison): Fact[] {
  const runs = c.runs;
  const facts: Fact[] = [];
  const push = (label: string, text: string | undefined): void => {
    if (text !== undefined) facts.push({ label, text });
  };
  const host = perRole(runs, (r) => knownText(env(r).hostname));
  const vm = isVm(runs);
  // A VM run measures a guest on a host: every machine fact says which one it is.
  push(vm ? 'Host' : 'Machine', `${perRole(runs, hostModel) ?? 'CPU not recorded'}${host ? `, host ${host}` : ''}`);
  const kernels = perRole(runs, kernelOf);
  push(`${vm ? 'Guest kernel' : 'Kernel'}${kernels?.includes(', ') ? 's' : ''}`, kernels);
  push(
    'Probe',
    perRole(runs, (r) => {
      const probe = env(r).probe;
      const cc = knownText(probe?.compilerVersion);
      if (cc === undefined) return undefined;
      const flags: unknown = probe?.flags;
      const opt = Array.isArray(flags) ? flags.filter((x) => typeof x === 'string' && /^-O/.test(x)).join(' ') : '';
      const stat = probe?.static === true ? ' -static' : '';
      return `${cc}${opt ? ` ${opt}` : ''}${stat}`;
    }),
  );
  push('stress-ng', perRole(runs, (r) => knownText(env(r).stressNg?.version)));
  push('Clock', comparisonClockText(c, true));
  push('Tuning', tuning(c));
  push('Calibration', calibration(runs));
  push('Warnings', warnings(runs));
  for (const w of c.warnings ?? []) push('Warning', w.message);
  for (const m of c.mismatchesAllowed) {
    const values = (['A', 'B', 'A2'] as RunRole[])
      .filter((role) => m.values[role] !== undefined)
      .map((role) => `${role} ${m.values[role]}`)
      .join(', ');
    push('Mismatch allowed', `${m.field}: ${values}`);
  }
  return facts;
}
