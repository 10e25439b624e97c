/**
 * A scripted target for tests: `script(job)` returns the lines the job
 * prints (probe line bodies are framed with their checksum here), how it
 * ends and the files it leaves for `collect`. Tests give it to the CLI as
 * `services.target`, so a command can be run end to end with exact,
 * repeatable numbers; every job it was given is kept in `jobs`.
 */
import { frameLine } from '../launch/probe-protocol.ts';
import type { Target, TargetEnd, TargetExit, TargetJob } from './target.ts';

export interface ScriptedJob {
  lines: string[];
  /** Exit status (default 0), when `end` is not given. */
  code?: number;
  end?: TargetEnd;
  stderr?: string[];
  /** Files the job wrote, by the path `collect` names. */
  files?: Record<string, Buffer | string>;
}

export interface ScriptedTarget extends Target {
  readonly jobs: TargetJob[];
}

export function scriptedTarget(script: (job: TargetJob, call: number, abort: AbortSignal) => ScriptedJob, kind: Target['kind'] = 'host'): ScriptedTarget {
  const jobs: TargetJob[] = [];
  return {
    kind,
    name: 'scripted target',
    jobs,
    run(job, onLine, abort): Promise<TargetExit> {
      try {
        return Promise.resolve(scriptedRun(job, onLine, abort));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
    async close() {},
  };

  function scriptedRun(job: TargetJob, onLine: (line: string) => void, abort: AbortSignal): TargetExit {
    jobs.push(job);
    const s = script(job, jobs.length - 1, abort);
    const lines = s.lines.map((l) => (l.startsWith('@hl1 ') ? frameLine(l) : l));
    for (const l of lines) onLine(l);
    const collected = new Map<string, Buffer>();
    for (const path of job.collect ?? []) {
      const data = s.files?.[path];
      if (data !== undefined) collected.set(path, Buffer.from(data));
    }
    const stderrTail = s.stderr ?? [];
    return {
      end: s.end ?? { kind: 'exited', code: s.code ?? 0, signal: null },
      outputTail: lines.slice(-25),
      stderrTail,
      elapsedMs: 0,
      collected,
      describe: (what) => [what, ...stderrTail.map((l) => `  | ${l}`)].join('\n'),
    };
  }
}
