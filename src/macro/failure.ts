/**
 * Turning a stress-ng invocation that went wrong into a message built from
 * stress-ng's own words.
 */
import type { InvocationResult } from './executor.ts';

/** stress-ng's exit statuses (stress-ng(1), EXIT STATUS). */
const EXIT_MEANING: Readonly<Record<number, string>> = {
  1: 'error: bad options or a fatal resource problem in the harness',
  2: 'one or more stressors failed',
  3: 'a stressor could not start: lack of resources (ENOMEM, ENOSPC) or a missing system call',
  4: 'the stressor is not implemented on this system',
  5: 'a stressor was killed by an unexpected signal',
  6: 'a stressor exited unexpectedly and timing metrics could not be gathered',
  7: 'the bogo-ops metrics may be untrustworthy (a stressor was killed while updating them)',
};

const TROUBLE = /error|fail|unsuccessful|skipp|not implemented|invalid|unrecognized|not allowed|killed|abort|cannot|can't|no such|denied|untrustworthy/i;

/**
 * The stderr lines that explain a failure: stress-ng's error-like lines
 * (its metric table left out), or its last lines when none looks like one.
 */
export function relevantStderr(stderr: string, max = 8): string[] {
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const trouble = lines.filter((l) => TROUBLE.test(l) && !/\bmetrc:/.test(l));
  return (trouble.length > 0 ? trouble : lines).slice(-max);
}

/** Append stress-ng's relevant stderr lines to a message, indented. */
export function withStderr(message: string, stderr: string): string {
  const lines = relevantStderr(stderr);
  return lines.length === 0 ? `${message} (stress-ng wrote nothing on stderr)` : `${message}; stress-ng said:\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

/** Why an invocation failed, or null when stress-ng exited 0. Aborts are handled by the caller. */
export function invocationFailure(result: InvocationResult): string | null {
  switch (result.kind) {
    case 'exited': {
      if (result.code === 0) return null;
      const meaning = EXIT_MEANING[result.code] ?? 'unknown exit status';
      return withStderr(`stress-ng exited with status ${result.code} (${meaning})`, result.stderr);
    }
    case 'signalled':
      return withStderr(`stress-ng was killed by ${result.signal}`, result.stderr);
    case 'hung':
      return withStderr(`stress-ng was still running ${result.afterSeconds} s after it started and was killed`, result.stderr);
    case 'aborted':
      return 'stress-ng was interrupted';
  }
}
