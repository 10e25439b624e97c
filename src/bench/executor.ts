/**
 * How the runner reaches a probe: the real one is a child process; the fake
 * one replays scripted framed lines so the runner and the whole CLI can be
 * tested with exact, repeatable numbers.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { crc32 } from 'node:zlib';

export interface ProbeExit {
  /** Exit status, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the probe wrote to stderr (for error messages). */
  stderrTail: string[];
}

export interface ProbeExecutor {
  /** Start the probe with `args`; `onLine` sees every stdout line as it arrives. */
  run(args: string[], onLine: (line: string) => void, abort: AbortSignal): Promise<ProbeExit>;
}

/** Runs the compiled probe binary at `path`. */
export function processExecutor(path: string): ProbeExecutor {
  return {
    run(args, onLine, abort) {
      return new Promise((resolve, reject) => {
        const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        const stderr: string[] = [];
        const onAbort = (): void => void child.kill('SIGINT');
        abort.addEventListener('abort', onAbort, { once: true });
        createInterface({ input: child.stdout }).on('line', onLine);
        createInterface({ input: child.stderr }).on('line', (l) => {
          stderr.push(l);
          if (stderr.length > 20) stderr.shift();
        });
        child.on('error', (err) => {
          abort.removeEventListener('abort', onAbort);
          reject(err);
        });
        child.on('close', (code, signal) => {
          abort.removeEventListener('abort', onAbort);
          resolve({ code, signal, stderrTail: stderr });
        });
      });
    },
  };
}

/** Frame a probe line body (`@hl1 type k=v ...`) with its checksum. */
export function frameLine(body: string): string {
  return `${body} #${(crc32(Buffer.from(body, 'latin1')) >>> 0).toString(16).padStart(8, '0')}`;
}

/**
 * A scripted probe: `script(args)` returns the line bodies to emit (without
 * checksums) and the exit status. Tests give it to the CLI as `services.probeExecutor`.
 */
export function fakeExecutor(
  script: (args: string[]) => { lines: string[]; code: number },
): ProbeExecutor {
  return {
    async run(args, onLine) {
      const { lines, code } = script(args);
      for (const l of lines) onLine(l.startsWith('@hl1 ') ? frameLine(l) : l);
      return { code, signal: null, stderrTail: [] };
    },
  };
}
