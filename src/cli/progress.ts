/**
 * A one-line progress bar on stderr, drawn only on a terminal (a pipe or a
 * CI log gets nothing), cleared before results are printed.
 */
import type { CliIO } from './io.ts';

export interface Progress {
  update(done: number, total: number, label: string): void;
  clear(): void;
}

export function progressBar(io: CliIO, width = 30): Progress {
  if (!io.isTTY) return { update: () => {}, clear: () => {} };
  let drawn = false;
  return {
    update(done, total, label) {
      const frac = total > 0 ? Math.min(1, done / total) : 0;
      const fill = Math.round(frac * width);
      io.stderr(`\r\x1b[K[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${total} ${label}`);
      drawn = true;
    },
    clear() {
      if (drawn) io.stderr('\r\x1b[K');
      drawn = false;
    },
  };
}
