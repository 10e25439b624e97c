/**
 * Private temporary directories named by the pid of the hintlab that made
 * them (`PREFIX-PID-XXXXXX`): the go FIFO of the paired designs, the host
 * target's job directory. A hintlab killed with SIGKILL cannot remove its
 * own; the next one removes them, once per process and place, before its
 * first directory of that kind.
 *
 * Only a directory of this user, named by a pid that no longer runs and
 * holding nothing but the entries hintlab itself leaves there, is removed:
 * anything else in it may be someone's data (a job's output a user wants
 * to read), and is left with its directory.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a name `PREFIX-PID-...` carries, or null for any other name. */
function pidOf(prefix: string, name: string): number | null {
  if (!name.startsWith(`${prefix}-`)) return null;
  const m = /^(\d+)-/.exec(name.slice(prefix.length + 1));
  const pid = Number(m?.[1] ?? NaN);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Remove the `PREFIX-PID-*` directories under `dir` that a dead hintlab
 * left, each holding nothing but entries named in `leftovers`. Returns the
 * paths removed.
 */
export function sweepStalePidDirs(prefix: string, dir: string, leftovers: readonly string[]): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const pid = pidOf(prefix, name);
    if (pid === null || pid === process.pid || alive(pid)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isDirectory() || st.uid !== process.geteuid?.() || readdirSync(path).some((e) => !leftovers.includes(e))) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // gone meanwhile, or not ours to read: left as it is
    }
  }
  return removed;
}

/** The (place, prefix) pairs swept by this process. */
const swept = new Set<string>();

/**
 * A new directory `PREFIX-PID-XXXXXX` under `tmp` (default the system's);
 * the first one of its kind in this process sweeps those dead runs left
 * (not every one: some are made between measured blocks).
 */
export function makePidDir(prefix: string, leftovers: readonly string[], tmp: string = tmpdir()): string {
  const key = `${tmp}\0${prefix}`;
  if (!swept.has(key)) {
    swept.add(key);
    sweepStalePidDirs(prefix, tmp, leftovers);
  }
  return mkdtempSync(join(tmp, `${prefix}-${process.pid}-`));
}
