/**
 * Reading the YAML file stress-ng writes with `--metrics --yaml FILE`.
 *
 * stress-ng 0.15 writes the file in one go when the run ends: a
 * `system-info` map, a `metrics` list with one entry per stressor, and the
 * `...` end-of-document marker. A file without that marker was cut short
 * (stress-ng killed, disk full); it is refused, never read as far as it
 * goes, because a half-written entry can still parse as valid YAML.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The yaml package, loaded on first use rather than at every command's start-up. */
const yaml = (): typeof import('yaml') => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** A stress-ng YAML file that is missing, cut short or not what stress-ng writes. */
export class StressNgYamlError extends Error {}

/** One stressor's entry of the `metrics` list, with the fields every stressor has. */
export interface StressorMetrics {
  stressor: string;
  bogoOps: number;
  bogoOpsPerSecRealTime: number;
  bogoOpsPerSecUsrSysTime: number;
  wallSeconds: number;
  userSeconds: number;
  systemSeconds: number;
  /**
   * Every numeric field of the entry, keyed as stress-ng wrote it (the
   * standard ones above included), in file order. Stressor-specific metrics
   * such as `nanosecs-per-mutex` are only here.
   */
  fields: [string, number][];
}

/** The standard fields and where they go; stress-ng 0.15 writes all of them for every stressor. */
const REQUIRED = {
  'bogo-ops': 'bogoOps',
  'bogo-ops-per-second-real-time': 'bogoOpsPerSecRealTime',
  'bogo-ops-per-second-usr-sys-time': 'bogoOpsPerSecUsrSysTime',
  'wall-clock-time': 'wallSeconds',
  'user-time': 'userSeconds',
  'system-time': 'systemSeconds',
} as const;

/** Read and check `file`; throws StressNgYamlError naming the file. */
export function readStressNgYaml(file: string, stressor: string): StressorMetrics {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StressNgYamlError(
      code === 'ENOENT' ? `${file}: stress-ng wrote no YAML file` : `${file}: cannot read: ${(err as Error).message}`,
    );
  }
  return parseStressNgYaml(text, file, stressor);
}

/** Parse the text of a stress-ng YAML file (`file` names it in errors) and return `stressor`'s entry. */
export function parseStressNgYaml(text: string, file: string, stressor: string): StressorMetrics {
  if (text.trim() === '') throw new StressNgYamlError(`${file}: the YAML file is empty (stress-ng stopped before writing it)`);
  const lines = text.trimEnd().split('\n');
  if (lines[lines.length - 1]?.trim() !== '...') {
    throw new StressNgYamlError(
      `${file}: truncated YAML: it does not end with stress-ng's '...' end-of-document marker ` +
        `(last line ${lines.length}: '${lines[lines.length - 1]?.trim() ?? ''}')`,
    );
  }
  const doc = yaml().parseDocument(text);
  const first = doc.errors[0];
  if (first) {
    const where = first.linePos?.[0] ? `:${first.linePos[0].line}:${first.linePos[0].col}` : '';
    const message = (first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new StressNgYamlError(`${file}${where}: malformed YAML: ${message}`);
  }
  const root: unknown = doc.toJS();
  const metrics = isRecord(root) ? root['metrics'] : undefined;
  if (!Array.isArray(metrics)) {
    throw new StressNgYamlError(`${file}: no 'metrics' list (was stress-ng run with --metrics?)`);
  }
  const entry: unknown = metrics.find((m) => isRecord(m) && m['stressor'] === stressor);
  if (!isRecord(entry)) {
    const present = metrics.filter(isRecord).map((m) => String(m['stressor']));
    throw new StressNgYamlError(
      `${file}: no metrics for stressor '${stressor}' (entries: ${present.join(', ') || 'none'}); the stressor did not run to the end`,
    );
  }
  return toStressorMetrics(entry, file, stressor);
}

function toStressorMetrics(entry: Record<string, unknown>, file: string, stressor: string): StressorMetrics {
  const fields: [string, number][] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'stressor') continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new StressNgYamlError(`${file}: metrics of '${stressor}': '${key}' is ${JSON.stringify(value)}, not a number`);
    }
    fields.push([key, value]);
  }
  const byKey = new Map(fields);
  const out = { stressor, fields } as StressorMetrics;
  for (const [key, prop] of Object.entries(REQUIRED)) {
    const v = byKey.get(key);
    if (v === undefined) throw new StressNgYamlError(`${file}: metrics of '${stressor}' lack '${key}'`);
    if (v < 0) throw new StressNgYamlError(`${file}: metrics of '${stressor}': '${key}' is negative (${v})`);
    out[prop] = v;
  }
  return out;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
