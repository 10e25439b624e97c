/**
 * How the environment recorder reads a machine's /proc and /sys: through
 * `SysReader`, so tests can point it at a fake tree and a remote target can
 * hand over files it fetched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export interface SysReader {
  /** File contents, or an error message. */
  read(path: string): { ok: true; data: Buffer } | { ok: false; reason: string };
  list(path: string): string[] | null;
  hostname(): string;
}

/** Reads the real machine, optionally under a different root (tests). */
export function fsReader(root = '/'): SysReader {
  return {
    read(path) {
      try {
        return { ok: true, data: readFileSync(join(root, path)) };
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        return { ok: false, reason: `${path}: ${e.code ?? e.message}` };
      }
    },
    list(path) {
      try {
        return readdirSync(join(root, path)).sort();
      } catch {
        return null;
      }
    },
    hostname: () => hostname(),
  };
}
