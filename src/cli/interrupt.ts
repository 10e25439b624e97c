/**
 * Ctrl-C, SIGTERM and SIGHUP (the terminal closed) during a long command:
 * turn them into an AbortSignal whose reason is the signal's name, which
 * the measuring code honours (stop the probe, qemu, stress-ng or make and
 * mark the run, restore switched files), and exit 128 + the signal's number
 * like an interrupted shell command (130, 143, 129).
 */
import { constants } from 'node:os';
import { UserError } from '../errors.ts';

/** The signals that end a long command cleanly. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** 128 + the signal's number, as a shell reports a command a signal ended. */
const EXIT = { SIGINT: 128 + constants.signals.SIGINT, SIGTERM: 128 + constants.signals.SIGTERM, SIGHUP: 128 + constants.signals.SIGHUP } as { [K in (typeof STOP_SIGNALS)[number]]: 129 | 130 | 143 };

export async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const handlers = STOP_SIGNALS.map((sig) => [sig, (): void => abort.abort(sig)] as const);
  for (const [sig, on] of handlers) process.on(sig, on);
  try {
    return await fn(abort.signal);
  } catch (err) {
    if (abort.signal.aborted && err instanceof UserError && err.exitCode === 1) {
      throw new UserError(err.message, (EXIT as Record<string, 129 | 130 | 143 | undefined>)[String(abort.signal.reason)] ?? 130);
    }
    throw err;
  } finally {
    for (const [sig, on] of handlers) process.off(sig, on);
  }
}
