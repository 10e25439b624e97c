import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where results live unless told otherwise: `--db`, then `$HINTLAB_DB`, then
 * `$XDG_DATA_HOME/hintlab/hintlab.db`, then `~/.local/share/hintlab/hintlab.db`.
 */
export function defaultDbPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HINTLAB_DB) return env.HINTLAB_DB;
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(base, 'hintlab', 'hintlab.db');
}
