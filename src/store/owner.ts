/**
 * Who writes a run or a session: the boot id of this machine and the pid,
 * so that one left `running` by a process that died (kill -9, a reboot)
 * reads back as interrupted, never as still running.
 */
import { readFileSync } from 'node:fs';

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
  const pid = Number(owner.slice(sep + 1));
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
