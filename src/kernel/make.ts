/**
 * Running kbuild: make under the process supervisor (Ctrl-C or the death
 * of hintlab kills the whole build, compilers included), everything it prints appended to the build log, progress counted
 * from kbuild's short "  CC      path.o" lines, and on failure the
 * compiler's error lines picked out of the log.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { spawnSupervised } from '../proc/supervise.ts';

export interface MakeRequest {
  /** Arguments after `make`, e.g. ['-C', src, 'O=obj', 'bzImage']. */
  args: string[];
  log: string;
  abort: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Called for every compiled object: how many so far and its path. */
  onCompiled?: (count: number, object: string) => void;
}

export type MakeResult = { state: 'ok'; compiled: number } | { state: 'failed'; code: number | null } | { state: 'aborted' };

/** Fixed build identity so two builds of the same inputs produce the same `uname -v`. */
export const REPRODUCIBLE_ENV = {
  KBUILD_BUILD_USER: 'hintlab',
  KBUILD_BUILD_HOST: 'hintlab',
  KBUILD_BUILD_TIMESTAMP: 'hintlab build',
};

export function runMake(req: MakeRequest): Promise<MakeResult> {
  return new Promise((resolve, reject) => {
    appendFileSync(req.log, `$ make ${req.args.join(' ')}\n`);
    const child = spawnSupervised(['make', ...req.args], { env: { ...(req.env ?? process.env), ...REPRODUCIBLE_ENV } });
    let compiled = 0;
    let aborted = false;
    const kill = (): void => {
      aborted = true;
      child.signal('SIGKILL');
    };
    if (req.abort.aborted) kill();
    req.abort.addEventListener('abort', kill, { once: true });
    const record = (line: string): void => {
      appendFileSync(req.log, `${line}\n`);
      const m = /^\s+CC\s+(\S+\.o)$/.exec(line);
      // counted whether or not anyone listens: the count goes into the manifest
      if (m?.[1]) {
        compiled++;
        req.onCompiled?.(compiled, m[1]);
      }
    };
    createInterface({ input: child.stdout }).on('line', record);
    createInterface({ input: child.stderr }).on('line', record);
    child.exit.then(
      ({ code }) => {
        req.abort.removeEventListener('abort', kill);
        if (aborted) resolve({ state: 'aborted' });
        else resolve(code === 0 ? { state: 'ok', compiled } : { state: 'failed', code });
      },
      (err: unknown) => {
        req.abort.removeEventListener('abort', kill);
        reject(new Error(`cannot run make: ${(err as Error).message}; install it with 'apt-get install make'`));
      },
    );
  });
}

/**
 * The lines of a failed build a user needs: the compiler's `error:` lines
 * with the source line it quotes, linker errors, and make's `***` lines.
 */
export function errorLines(log: string, max = 30): string[] {
  const lines = readFileSync(log, 'utf8').split('\n');
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (/\berror:|undefined reference|\*\*\*|fatal error|Error \d+/.test(l)) {
      out.push(l);
      // gcc quotes the offending source line and a caret after an error
      if (/\berror:/.test(l)) for (const next of lines.slice(i + 1, i + 3)) if (/^\s+\d* ?\|/.test(next)) out.push(next);
    }
  });
  return out.slice(0, max);
}
