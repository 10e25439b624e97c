/**
 * Whether runs may be compared at all: same unit (always), complete (unless
 * allowed), and the same checked environment (unless allowed). Also builds
 * the side-by-side environment table every report shows.
 */
import { readEnvironment, remoteOf, vmOf, type StoredEnvironment } from '../environment/read.ts';
import type { RunWithRounds } from '../model.ts';
import { clockOf } from './clock.ts';
import type { EnvironmentField, RunRole } from './types.ts';

/**
 * A comparison the data does not allow; the message names the field, both
 * values and the way out. `advice` is that way out when it stands apart
 * from the finding, so a caller that knows better (the runs came from a
 * label naming several runs) can give its own.
 */
export class ComparisonRefused extends Error {
  constructor(
    readonly finding: string,
    readonly advice: string | null = null,
  ) {
    super(advice === null ? finding : `${finding}\n${advice}`);
  }
}

/** A run in its role. */
export interface RoleRun {
  role: RunRole;
  run: RunWithRounds;
}

export function describeRun(r: RoleRun): string {
  return `${r.role} (run ${r.run.id}${r.run.label ? ` '${r.run.label}'` : ''})`;
}

/** Units must match exactly: 'instructions/call' and 'ns/call' never compare. */
export function checkUnits(runs: readonly RoleRun[]): void {
  const [first, ...rest] = runs;
  for (const r of rest) {
    if (first && r.run.unit !== first.run.unit) {
      throw new ComparisonRefused(
        `${describeRun(first)} measures '${first.run.unit}' but ${describeRun(r)} measures '${r.run.unit}': ` +
          'runs in different units cannot be compared (no option overrides this).',
      );
    }
  }
}

/** Only complete runs compare unless the caller accepts partial runs. */
export function checkStatus(runs: readonly RoleRun[], allowIncomplete: boolean): void {
  if (allowIncomplete) return;
  for (const r of runs) {
    if (r.run.status !== 'complete') {
      throw new ComparisonRefused(
        `${describeRun(r)} is ${r.run.status}${r.run.error ? ` (${r.run.error})` : ''}: ` +
          `only complete runs are compared; pass --allow-incomplete to compare its ${r.run.rounds.filter((x) => !x.warmup).length} recorded rounds anyway.`,
      );
    }
  }
}

interface Shown {
  text: string;
  /** What equality is judged on: unknown values compare equal to each other (nothing to tell them apart). */
  key: string;
}

function plain(value: unknown): string {
  if (typeof value === 'string') return value;
  // Load averages and the like: '12.04 9.48 4.86' reads better than JSON.
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return value.join(' ');
  return JSON.stringify(value);
}

/** Render a Known<T> leaf, a plain value, or a missing one. */
function show(value: unknown, nullText: string): Shown {
  if (value === undefined) return { text: 'not recorded', key: 'not recorded' };
  if (value === null) return { text: nullText, key: 'null' };
  if (typeof value === 'object' && !Array.isArray(value) && 'known' in value) {
    const k = value as { known: boolean; value?: unknown; reason?: string };
    if (k.known) return { text: plain(k.value), key: JSON.stringify(k.value) };
    return { text: `unknown (${k.reason ?? 'no reason given'})`, key: 'unknown' };
  }
  return { text: plain(value), key: JSON.stringify(value) };
}

interface FieldSpec {
  /** The field's name in the table and in messages: its path in the record. */
  field: string;
  get: (env: StoredEnvironment) => unknown;
  kind: EnvironmentField['kind'];
  nullText?: string;
  /** Shown even when no run recorded it. */
  always?: boolean;
}

const ENV_FIELDS: FieldSpec[] = [
  { field: 'hostname', get: (e) => e.hostname, kind: 'checked', always: true },
  // a box over ssh (bench --target); a run on this machine has none, so the two never mix unnoticed
  { field: 'remote.url', get: (e) => remoteOf(e)?.url, kind: 'checked' },
  { field: 'cpu.model', get: (e) => e.cpu?.model, kind: 'checked', always: true },
  { field: 'probe.buildId', get: (e) => e.probe?.buildId, kind: 'checked' },
  { field: 'pinnedCpu', get: (e) => e.pinnedCpu, kind: 'checked', nullText: 'not pinned', always: true },
  { field: 'kernel.release', get: (e) => e.kernel?.release, kind: 'expected', always: true },
  { field: 'kernel.cmdline', get: (e) => e.kernel?.cmdline, kind: 'expected', always: true },
  { field: 'injectSeccomp', get: (e) => e.injectSeccomp, kind: 'expected', nullText: 'off' },
  { field: 'switchFiles', get: (e) => e.switchFiles, kind: 'expected', nullText: 'none' },
  { field: 'vm.kernelLabel', get: (e) => vmOf(e)?.kernelLabel, kind: 'expected' },
  { field: 'kernel.compiler', get: (e) => e.kernel?.compiler, kind: 'info' },
  { field: 'vm.accel', get: (e) => vmOf(e)?.accel, kind: 'info' },
  { field: 'vm.icount', get: (e) => vmOf(e)?.icount, kind: 'info' },
  { field: 'probe.compilerVersion', get: (e) => e.probe?.compilerVersion, kind: 'info' },
  { field: 'stressNg.version', get: (e) => e.stressNg?.version, kind: 'info' },
  { field: 'cpu.governor', get: (e) => e.cpu?.governor, kind: 'info' },
  { field: 'cpu.boost', get: (e) => e.cpu?.boost, kind: 'info' },
  { field: 'cpu.smt', get: (e) => e.cpu?.smt, kind: 'info' },
  { field: 'virtualization', get: (e) => e.virtualization, kind: 'info' },
  // Load differs from run to run; side by side it shows which run competed with other work.
  { field: 'load.start', get: (e) => e.load?.start, kind: 'info' },
  { field: 'load.end', get: (e) => e.load?.end, kind: 'info' },
];

function tableRow(field: string, kind: EnvironmentField['kind'], shown: [RunRole, Shown][]): EnvironmentField {
  const values: Partial<Record<RunRole, string>> = {};
  for (const [role, s] of shown) values[role] = s.text;
  const same = shown.every(([, s]) => s.key === shown[0]?.[1].key);
  return { field, kind, values, same };
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Whether every run that measured a subject agrees on `valueOf` it (runs without the subject abstain). */
function agreePerSubject(runs: readonly RoleRun[], subjects: readonly string[], valueOf: (run: RunWithRounds, s: string) => string | null): boolean {
  return subjects.every((s) => new Set(runs.map((r) => valueOf(r.run, s)).filter((v) => v !== null)).size <= 1);
}

function measured(run: RunWithRounds, subject: string) {
  return run.rounds.filter((r) => r.subject === subject && !r.warmup);
}

/** A per-subject row: 'x=1, y=2' per run, same when every run measuring a subject agrees on it. */
function subjectRow(
  field: string,
  runs: readonly RoleRun[],
  subjects: readonly string[],
  valueOf: (run: RunWithRounds, s: string) => string | null,
  missing = 'not measured',
): Omit<EnvironmentField, 'kind'> {
  const values: Partial<Record<RunRole, string>> = {};
  for (const { role, run } of runs) values[role] = subjects.map((s) => `${s}=${valueOf(run, s) ?? missing}`).join(', ');
  return { field, values, same: agreePerSubject(runs, subjects, valueOf) };
}

/**
 * Ops per round of each compared subject. A setting (every round of a
 * subject has the same ops) is checked; a measurement (stress-ng's bogo-ops
 * vary round to round) is only shown.
 */
function opsRow(runs: readonly RoleRun[], subjects: readonly string[]): EnvironmentField {
  const opsOf = (run: RunWithRounds, s: string) => [...new Set(measured(run, s).map((r) => r.ops))];
  const varies = runs.some(({ run }) => subjects.some((s) => opsOf(run, s).length > 1));
  const row = subjectRow('opsPerRound', runs, subjects, (run, s) => {
    const ops = opsOf(run, s);
    return ops.length === 0 ? null : ops.length === 1 ? String(ops[0]) : 'varies';
  });
  return { ...row, kind: varies ? 'info' : 'checked' };
}

/** A subject's params as recorded by hintlab, without what the probe reported (probeParamsRow checks that). */
function subjectParamsRow(runs: readonly RoleRun[], subjects: readonly string[]): EnvironmentField {
  const row = subjectRow('subjectParams', runs, subjects, (run, s) => {
    if (measured(run, s).length === 0) return null;
    const { probe: _probe, ...own } = run.params.subjectParams[s] ?? {};
    return canonical(own);
  });
  return { ...row, kind: 'checked' };
}

/**
 * The parameters the probe reported for each subject (custom slice,
 * select's nfds, mincore's page size...). Runs stored before the probe's
 * parameters were recorded abstain: nothing to check them with.
 */
function probeParamsRow(runs: readonly RoleRun[], subjects: readonly string[]): EnvironmentField | null {
  const probeOf = (run: RunWithRounds, s: string): string | null => {
    const p = run.params.subjectParams[s]?.probe;
    return measured(run, s).length === 0 || p === undefined ? null : canonical(p);
  };
  if (!runs.some(({ run }) => subjects.some((s) => probeOf(run, s) !== null))) return null;
  return { ...subjectRow('probeParams', runs, subjects, probeOf, 'not recorded'), kind: 'checked' };
}

/**
 * The clock each run's rounds were timed on (./clock.ts), checked: the wall
 * clock of a loaded machine and a thread's CPU time differ by the time
 * other tasks held the CPU, so runs on two clocks are not comparable.
 */
function clockRow(runs: readonly RoleRun[]): EnvironmentField {
  return tableRow('clock', 'checked', runs.map(({ role, run }) => [role, show(clockOf(run), 'none')]));
}

/** The side-by-side environment of the runs, checked fields first. */
export function environmentTable(runs: readonly RoleRun[], subjects: readonly string[]): EnvironmentField[] {
  const rows: EnvironmentField[] = [];
  for (const spec of ENV_FIELDS) {
    const raw = runs.map(({ role, run }) => [role, spec.get(readEnvironment(run))] as const);
    if (!spec.always && raw.every(([, v]) => v === undefined)) continue;
    rows.push(tableRow(spec.field, spec.kind, raw.map(([role, v]) => [role, show(v, spec.nullText ?? 'none')])));
  }
  const checkedEnd = rows.findIndex((r) => r.kind !== 'checked');
  const probe = probeParamsRow(runs, subjects);
  rows.splice(checkedEnd < 0 ? rows.length : checkedEnd, 0, clockRow(runs), opsRow(runs, subjects), subjectParamsRow(runs, subjects), ...(probe ? [probe] : []));
  return rows;
}

/**
 * Checked fields that differ. Refused unless `allowMismatch`; returned so
 * the comparison records what was let through.
 */
export function checkEnvironment(rows: readonly EnvironmentField[], allowMismatch: boolean): EnvironmentField[] {
  const differing = rows.filter((r) => r.kind === 'checked' && !r.same);
  if (differing.length > 0 && !allowMismatch) {
    const lines = differing.map(
      (r) =>
        `  ${r.field}: ${Object.entries(r.values)
          .map(([role, v]) => `${role} = '${v}'`)
          .join(', ')}`,
    );
    const clock = differing.some((r) => r.field === 'clock') ? 'Time both on one clock (hintlab bench --clock wall or --clock cpu). ' : '';
    throw new ComparisonRefused(
      `the runs' checked environment differs, so their numbers are not comparable:\n${lines.join('\n')}`,
      `${clock}Measure both on the same machine and settings, or pass --allow-mismatch to compare anyway.`,
    );
  }
  return differing;
}
