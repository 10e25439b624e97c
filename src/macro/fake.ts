/**
 * A scripted stress-ng for tests, given to the CLI as `services.stressNgExecutor`:
 * its target is a scripted one (src/targets/fake.ts, like every fake target)
 * that hands back YAML files in stress-ng 0.15's layout with exact numbers,
 * so the runner and the whole CLI can be checked end to end.
 */
import { readFileSync } from 'node:fs';
import { scriptedTarget, type ScriptedJob } from '../targets/fake.ts';
import type { TargetEnd, TargetJob } from '../targets/target.ts';
import type { Invocation, InvocationResult, StressNgExecutor } from './executor.ts';
import { fixed } from '../format/numbers.ts';

/** The metric fields of one stressor entry, in stress-ng's key names and order. */
export type YamlFields = [string, number][];

/** A stress-ng-style YAML document holding one stressor entry. */
export function stressNgYamlText(stressor: string, fields: YamlFields, version = '0.15.06'): string {
  const body = fields.map(([k, v]) => `      ${k}: ${fixed(v, 6)}`).join('\n');
  return [
    '---',
    'system-info:',
    `      stress-ng-version: ${version}`,
    '      hostname: fake',
    '',
    'metrics:',
    `    - stressor: ${stressor}`,
    body,
    '',
    '...',
    '',
  ].join('\n');
}

/** The standard fields of a round that reached `bogoOpsPerSec` in exactly `seconds`. */
export function standardFields(bogoOpsPerSec: number, seconds: number): YamlFields {
  return [
    ['bogo-ops', bogoOpsPerSec * seconds],
    ['bogo-ops-per-second-usr-sys-time', bogoOpsPerSec / 2],
    ['bogo-ops-per-second-real-time', bogoOpsPerSec],
    ['wall-clock-time', seconds],
    ['user-time', seconds / 2],
    ['system-time', seconds * 1.5],
    ['cpu-usage-per-instance', 100],
    ['max-rss', 2500],
  ];
}

/** What the fake does for one invocation: the YAML to write (null: none) and how it ends. */
export interface FakeStep {
  yaml: string | null;
  result: InvocationResult;
}

export interface FakeScript {
  version?: string;
  stressors: string[];
  /** Called once per invocation, `call` counting from 0. */
  step: (inv: Invocation, call: number) => FakeStep;
}

export interface FakeExecutor extends StressNgExecutor {
  /** Every invocation so far, in order. */
  calls: Invocation[];
}

/** The invocation a stress-ng job's arguments ask for (the inverse of stressNgArgs). */
export function invocationOf(job: TargetJob): Invocation {
  const [flag, instances] = job.args;
  const at = (name: string): string | null => {
    const i = job.args.indexOf(name);
    return i < 0 ? null : job.args[i + 1] ?? null;
  };
  return { stressor: flag!.replace(/^--/, ''), instances: Number(instances), seconds: parseInt(at('--timeout') ?? '0', 10), cpuList: at('--taskset'), yamlPath: at('--yaml')! };
}

/** What the target reports for a scripted result. */
function scriptedEnd(result: InvocationResult): TargetEnd {
  switch (result.kind) {
    case 'exited':
      return { kind: 'exited', code: result.code, signal: null };
    case 'signalled':
      return { kind: 'exited', code: null, signal: result.signal as NodeJS.Signals };
    case 'aborted':
      return { kind: 'aborted' };
    case 'hung':
      return { kind: 'timeout', seconds: result.afterSeconds };
  }
}

export function fakeExecutor(script: FakeScript): FakeExecutor {
  const calls: Invocation[] = [];
  const target = scriptedTarget((job, call, abort): ScriptedJob => {
    const inv = invocationOf(job);
    calls.push(inv);
    const { yaml, result } = script.step(inv, call);
    if (abort.aborted) return { lines: [], end: { kind: 'aborted' } };
    const stderr = result.stderr.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
    return { lines: [], end: scriptedEnd(result), stderr, files: yaml === null ? {} : { [inv.yamlPath]: yaml } };
  });
  return {
    calls,
    version: () => Promise.resolve(`stress-ng, version ${script.version ?? '0.15.06'} (gcc 12.2.0, x86_64 Linux fake)\n`),
    stressors: () => Promise.resolve(`${script.stressors.join(' ')}\n`),
    target,
    program: 'stress-ng',
  };
}

/**
 * The JSON a scripted stress-ng is read from (`fakeExecutorFromFile`):
 * `{ "version": "0.15.06", "stressors": ["fifo", ...], "values": { "fifo@1": [1000, 1010] } }`.
 * Each invocation of a subject writes its next value as bogo-ops/s
 * (cycling when the list runs out).
 */
export function fakeExecutorFromFile(file: string): FakeExecutor {
  const spec = JSON.parse(readFileSync(file, 'utf8')) as { version?: string; stressors: string[]; values: Record<string, number[]> };
  const used = new Map<string, number>();
  return fakeExecutor({
    version: spec.version,
    stressors: spec.stressors,
    step(inv) {
      const subject = `${inv.stressor}@${inv.instances}`;
      const values = spec.values[subject] ?? [1000];
      const n = used.get(subject) ?? 0;
      used.set(subject, n + 1);
      const value = values[n % values.length]!;
      return { yaml: stressNgYamlText(inv.stressor, standardFields(value, inv.seconds)), result: { kind: 'exited', code: 0, stderr: '' } };
    },
  });
}
