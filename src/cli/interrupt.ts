/**
 * Ctrl-C and SIGTERM during a long command: turn them into an AbortSignal
 * the measuring code honours (stop the probe, qemu, stress-ng or make and
 * mark the run), and exit 130 like an interrupted shell command.
 */
import { UserError } from './io.ts';

export async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await fn(abort.signal);
  } catch (err) {
    if (abort.signal.aborted && err instanceof UserError && err.exitCode === 1) throw new UserError(err.message, 130);
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
