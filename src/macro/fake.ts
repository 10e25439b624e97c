/**
 * A scripted stress-ng for tests, given to the CLI as `services.stressNgExecutor`
 * option: it writes YAML files in stress-ng 0.15's layout with exact
 * numbers, so the runner and the whole CLI can be checked end to end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Invocation, InvocationResult, StressNgExecutor } from './executor.ts';

/** The metric fields of one stressor entry, in stress-ng's key names and order. */
export type YamlFields = [string, number][];

/** A stress-ng-style YAML document holding one stressor entry. */
export function stressNgYamlText(stressor: string, fields: YamlFields, version = '0.15.06'): string {
  const body = fields.map(([k, v]) => `      ${k}: ${v.toFixed(6)}`).join('\n');
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

export function fakeExecutor(script: FakeScript): FakeExecutor {
  const calls: Invocation[] = [];
  return {
    calls,
    version: async () => `stress-ng, version ${script.version ?? '0.15.06'} (gcc 12.2.0, x86_64 Linux fake)\n`,
    stressors: async () => `${script.stressors.join(' ')}\n`,
    async run(inv, abort) {
      calls.push(inv);
      const { yaml, result } = script.step(inv, calls.length - 1);
      if (abort.aborted) return { kind: 'aborted', stderr: '' };
      if (yaml !== null) writeFileSync(inv.yamlPath, yaml);
      return result;
    },
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
