/**
 * The facts about the machine and the runs that every report states next to
 * its numbers: CPU, host, kernels, probe compiler, tuning, calibration, and
 * the commands that reproduce the runs. Read from the runs' stored
 * environment records (src/bench/environment.ts), where every machine value
 * is a Known<T>: an unreadable value prints as "unknown", never a guess.
 */
import { shellWord } from '../shell.ts';
import { DEFAULT_OPTIONS } from '../compare/compare.ts';
import type { Comparison, ComparedRun, RunRole } from '../compare/types.ts';

/** One labelled fact line, e.g. { label: 'Kernels', text: 'A 6.1.0, B 6.12.0' }. */
export interface Fact {
  label: string;
  text: string;
}

/** The value at a dotted path of a run's environment, undefined when absent. */
function at(env: unknown, path: string): unknown {
  let node = env;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A Known<string> (or plain value) at `path` as display text. */
export function envText(run: ComparedRun, path: string): string | undefined {
  const v = at(run.environment, path);
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object' && 'known' in v) {
    const k = v as { known: boolean; value?: unknown };
    return k.known ? String(k.value) : 'unknown';
  }
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
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
  const release = envText(r, 'kernel.release');
  const vmLabel = envText(r, 'vm.kernelLabel');
  if (vmLabel === undefined) return release;
  return `${release ?? 'unknown'} (VM kernel "${vmLabel}")`;
}

function tuning(runs: ComparedRun[]): string {
  const parts: string[] = [];
  const add = (name: string, v: string | undefined): void => {
    if (v !== undefined) parts.push(`${name} ${v}`);
  };
  add('turbo', perRole(runs, (r) => headWord(envText(r, 'cpu.boost'))));
  add('governor', perRole(runs, (r) => envText(r, 'cpu.governor')));
  add('SMT', perRole(runs, (r) => envText(r, 'cpu.smt')));
  const pinned = perRole(runs, (r) => {
    const cpu = at(r.environment, 'pinnedCpu');
    return typeof cpu === 'number' ? `CPU ${cpu}` : 'none';
  });
  add('pinned', pinned);
  const isol = perRole(runs, (r) => envText(r, 'isolation.isolcpus'));
  if (isol !== undefined && isol !== '' && isol !== 'unknown') add('isolcpus', isol);
  const vm = perRole(runs, (r) => {
    const accel = envText(r, 'vm.accel');
    if (accel === undefined) return undefined;
    return at(r.environment, 'vm.icount') === true ? `qemu ${accel} -icount` : `qemu ${accel}`;
  });
  // A VM run's virtualization field only repeats what the qemu mode says.
  if (vm !== undefined) parts.push(`guest under ${vm}`);
  else add('virtualization', perRole(runs, (r) => envText(r, 'virtualization')));
  return parts.length > 0 ? parts.join(', ') : 'not recorded';
}

/** The seccomp calibration filter per run, when any run used one. */
function calibration(runs: ComparedRun[]): string | undefined {
  const filters = runs.map((r) => ({ role: r.role, n: at(r.environment, 'injectSeccomp') }));
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
    const list = at(r.environment, 'warnings');
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
  const host = perRole(runs, (r) => envText(r, 'hostname'));
  push('Machine', `${perRole(runs, (r) => envText(r, 'cpu.model')) ?? 'CPU not recorded'}${host ? `, host ${host}` : ''}`);
  const kernels = perRole(runs, kernelOf);
  push(kernels?.includes(', ') ? 'Kernels' : 'Kernel', kernels);
  push(
    'Probe',
    perRole(runs, (r) => {
      const cc = envText(r, 'probe.compilerVersion');
      if (cc === undefined) return undefined;
      const flags = at(r.environment, 'probe.flags');
      const opt = Array.isArray(flags) ? flags.filter((x) => typeof x === 'string' && /^-O/.test(x)).join(' ') : '';
      const stat = at(r.environment, 'probe.static') === true ? ' -static' : '';
      return `${cc}${opt ? ` ${opt}` : ''}${stat}`;
    }),
  );
  push('stress-ng', perRole(runs, (r) => envText(r, 'stressNg.version')));
  push('Tuning', tuning(runs));
  push('Calibration', calibration(runs));
  push('Warnings', warnings(runs));
  for (const m of c.mismatchesAllowed) {
    const values = (['A', 'B', 'A2'] as RunRole[])
      .filter((role) => m.values[role] !== undefined)
      .map((role) => `${role} ${m.values[role]}`)
      .join(', ');
    push('Mismatch allowed', `${m.field}: ${values}`);
  }
  return facts;
}

/**
 * The commands that reproduce the comparison: each run's own command line
 * in run order, then the compare command. Runs are named by label when the
 * labels tell them apart (labels survive into a fresh database; ids do not),
 * else by id.
 */
export function reproduceCommands(c: Comparison): string[] {
  const labels = c.runs.map((r) => r.label);
  const byLabel = labels.every((l) => l !== null) && new Set(labels).size === labels.length;
  const refs = c.runs.map((r) => (byLabel ? (r.label as string) : String(r.id)));
  const o = c.options;
  // Threshold, alpha and the correction decide the verdicts, so they are always spelled out.
  const opts = [`--threshold ${o.thresholdPct}`, `--alpha ${o.alpha}`, `--correction ${o.correction}`];
  if (o.detectPct !== null) opts.push(`--detect ${o.detectPct}`);
  if (o.bootstrapResamples !== DEFAULT_OPTIONS.bootstrapResamples) opts.push(`--resamples ${o.bootstrapResamples}`);
  if (o.bootstrapSeed !== DEFAULT_OPTIONS.bootstrapSeed) opts.push(`--seed ${o.bootstrapSeed}`);
  if (o.allowMismatch) opts.push('--allow-mismatch');
  if (o.allowIncomplete) opts.push('--allow-incomplete');
  for (const name of o.controls) opts.push(`--control ${shellWord(name)}`);
  return [...c.runs.map((r) => r.command), ['hintlab compare', ...refs.map(shellWord), ...opts].join(' ')];
}

