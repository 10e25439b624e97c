/**
 * The per-run text output of `hintlab bench` and `hintlab runs`: a table per
 * subject (mean, median, stdev, CV, min, max, rounds x ops) and the run's
 * environment. Returns text; the CLI decides where it goes.
 */
import { printable } from '../errors.ts';
import type { Known, Run, RunWithRounds } from '../model.ts';
import { measuredValues } from '../model.ts';
import { cvPct, isSample, max, mean, median, min, stdev } from '../stats/descriptive.ts';
import { guestFieldSide } from '../environment/guest.ts';
import { readEnvironment } from '../environment/read.ts';
import { formatNumber } from '../format/numbers.ts';
import { formatColumnPct } from '../format/percent.ts';
import { alignColumns } from '../format/columns.ts';
import { clockOf } from '../compare/clock.ts';
import { clockText } from './comparison-words.ts';

export interface SubjectSummary {
  subject: string;
  rounds: number;
  ops: number;
  mean: number;
  median: number;
  stdev: number;
  cvPct: number;
  min: number;
  max: number;
}

/** Summaries of every subject with at least one measured round, in run order. */
export function summarizeRun(run: RunWithRounds): SubjectSummary[] {
  const out: SubjectSummary[] = [];
  const subjects = [...new Set([...run.params.subjects, ...run.rounds.map((r) => r.subject)])];
  for (const subject of subjects) {
    const values = measuredValues(run, subject);
    if (!isSample(values)) continue;
    const ops = run.rounds.find((r) => r.subject === subject && !r.warmup)?.ops ?? 0;
    out.push({
      subject,
      rounds: values.length,
      ops,
      mean: mean(values),
      median: median(values),
      stdev: stdev(values),
      cvPct: cvPct(values),
      min: min(values),
      max: max(values),
    });
  }
  return out;
}

function pad(cells: string[][], rightAlignFrom: number): string[] {
  return alignColumns(cells, (i) => i >= rightAlignFrom);
}

/** The results table of one run. */
export function runTable(run: RunWithRounds): string {
  const header = ['subject', `mean ${run.unit} (${clockText(clockOf(run))})`, 'median', 'stdev', 'CV', 'min', 'max', 'rounds x ops'];
  const rows = summarizeRun(run).map((s) => [
    s.subject,
    formatNumber(s.mean),
    formatNumber(s.median),
    formatNumber(s.stdev),
    formatColumnPct(s.cvPct),
    formatNumber(s.min),
    formatNumber(s.max),
    `${s.rounds} x ${s.ops}`,
  ]);
  if (rows.length === 0) return '(no measured rounds)\n';
  return `${pad([header, ...rows], 1).join('\n')}\n`;
}

function k(v: unknown): string {
  const x = v as Known<unknown> | undefined;
  if (!x || typeof x !== 'object' || !('known' in x)) return v === undefined || v === null ? '-' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : `${v as string | number | boolean}`;
  if (!x.known) return `unknown (${x.reason})`;
  if (x.value === '') return 'none';
  return Array.isArray(x.value) ? x.value.join(' ') : typeof x.value === 'object' ? JSON.stringify(x.value) : `${x.value as string | number | boolean}`;
}

/** `k=v, k=v` of a flat record; nested records in braces. */
function pairs(obj: Record<string, unknown>): string {
  return Object.entries(obj)
    .map(([key, v]) => `${key}=${v !== null && typeof v === 'object' && !Array.isArray(v) ? `{${pairs(v as Record<string, unknown>)}}` : Array.isArray(v) ? v.join(',') : String(v)}`)
    .join(', ');
}

/**
 * What the run measured, for `runs --verbose`: the run's settings, then one
 * line per subject with hintlab's parameters and, after `probe:`, those the
 * probe reported when it prepared the profile (runs stored before that was
 * recorded have none).
 */
export function paramsText(run: Run): string {
  const p = run.params;
  const { invocation: _typed, ...extra } = p.extra;
  const lines = [`  ops ${p.ops ?? 'per subject'}, warmups ${p.warmups}, rounds ${p.rounds}, cpu ${p.cpu ?? 'not pinned'}${Object.keys(extra).length > 0 ? `, ${pairs(extra)}` : ''}`];
  for (const subject of p.subjects) {
    const { probe, ...own } = p.subjectParams[subject] ?? {};
    const reported = probe !== null && typeof probe === 'object' ? `; probe: ${pairs(probe as Record<string, unknown>) || 'no parameters'}` : '';
    lines.push(`  ${subject}: ${pairs(own)}${reported}`);
  }
  return `${lines.join('\n')}\n`;
}

/** One line naming the run: id, label, kernel, status. */
export function runHeadline(run: Run): string {
  const label = run.label ? ` '${run.label}'` : '';
  return `run #${run.id}${label}: ${run.kind}, kernel ${k(readEnvironment(run).kernel?.release)}, ${run.status}, started ${run.startedAt}`;
}

/** Fields of an environment record as `key: value` lines, nested records flattened to dotted keys. */
function fieldLines(obj: Record<string, unknown>, indent: string, prefix = ''): string[] {
  const lines: string[] = [];
  for (const [key, v] of Object.entries(obj)) {
    if (key === 'warnings' || key === 'where') continue;
    if (prefix === 'lava.' && key === 'jobs' && Array.isArray(v)) {
      lines.push(...v.map((job, i) => `${indent}lava.jobs[${i + 1}]: ${lavaJobText(job)}`));
      continue;
    }
    const isKnown = v !== null && typeof v === 'object' && 'known' in v;
    if (v !== null && typeof v === 'object' && !isKnown && !Array.isArray(v)) {
      lines.push(...fieldLines(v as Record<string, unknown>, indent, `${prefix}${key}.`));
    } else if (key === 'vulnerabilities' && isKnown && (v as Known<Record<string, string>>).known) {
      for (const [n, s] of Object.entries((v as Known<Record<string, string>> & { known: true }).value)) lines.push(`${indent}${prefix}vulnerabilities.${n}: ${s}`);
    } else {
      lines.push(`${indent}${prefix}${key}: ${k(v)}`);
    }
  }
  return lines;
}

/**
 * One stored LAVA job (src/targets/target.ts LabJob) on a line: `job 12 on
 * qemu01, Complete, http://.../scheduler/job/12, qemu: ...`. Its strings came
 * from a LAVA server, and runs stored before they were escaped on arrival
 * may hold terminal escapes: they are escaped again here.
 */
function lavaJobText(job: unknown): string {
  if (job === null || typeof job !== 'object') return printable(String(job));
  const j = job as { jobId?: number | null; device?: string | null; health?: string | null; url?: string | null; qemu?: unknown; kernelSha256?: unknown };
  const parts = [`job ${j.jobId ?? '?'} on ${j.device ?? 'no device'}`, j.health ?? 'health unknown', j.url ?? 'no URL'];
  if (typeof j.kernelSha256 === 'string') parts.push(`kernel sha256 ${j.kernelSha256.slice(0, 16)}`);
  if (typeof j.qemu === 'string') parts.push(`qemu: ${j.qemu}`);
  return printable(parts.join(', '));
}

/**
 * The environment record as indented `key: value` lines (for `runs
 * --verbose`). A guest run's record mixes two machines, so its fields are
 * grouped under `guest:` and `host:` (guestFieldSide): the host's
 * vulnerabilities, CPUs, microcode and load are never shown as the guest's.
 */
export function environmentText(run: Run): string {
  const env = run.environment;
  const lines: string[] = [];
  if (readEnvironment(run).where !== 'guest') {
    lines.push(...fieldLines(env, '  '));
  } else {
    const side = (want: 'guest' | 'host') =>
      Object.fromEntries(Object.entries(env).filter(([key]) => key !== 'schema' && key !== 'where' && guestFieldSide(key) === want));
    lines.push('  guest (the booted kernel, where the probe ran):', ...fieldLines(side('guest'), '    '));
    lines.push('  host (the machine running qemu):', ...fieldLines(side('host'), '    '));
  }
  const warnings = readEnvironment(run).warnings ?? [];
  for (const w of warnings) lines.push(`  warning: ${w.message}`);
  return `${lines.join('\n')}\n`;
}
