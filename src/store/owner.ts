/**
 * Who writes a run or a session: the boot id of this machine and the pid,
 * so that one left `running` by a process that died (kill -9, a reboot)
 * reads back as interrupted, never as still running.
 */
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown-boot';
  }
}

export function ownerTag(pid: number): string {
  return `${bootId()}:${pid}`;
}

/** True when the process that wrote a run is still alive on this boot. */
export function ownerAlive(owner: string): boolean {
  const sep = owner.lastIndexOf(':');
  if (owner.slice(0, sep) !== bootId()) return false;
  return pidAlive(Number(owner.slice(sep + 1)));
}

/** True when a process with this pid lives on this machine (this one included). */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Take `path` as this process's lock file (it holds the pid): one user of a
 * directory at a time. A lock left by a process that died is taken over.
 * Returns how to release it, or the pid of the live process that holds it.
 */
export function takePidLock(path: string): { release: () => void } | { heldBy: number } {
  if (existsSync(path)) {
    const pid = Number(readFileSync(path, 'utf8'));
    if (pid && pid !== process.pid && pidAlive(pid)) return { heldBy: pid };
    rmSync(path, { force: true });
  }
  const fd = openSync(path, 'wx');
  writeSync(fd, String(process.pid));
  closeSync(fd);
  return { release: () => rmSync(path, { force: true }) };
}
