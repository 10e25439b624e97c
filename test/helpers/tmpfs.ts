/** A small tmpfs of its own for tests that need a real full or read-only file system. */
import { spawnSync } from 'node:child_process';
import { closeSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.ts';

export type Mounted = { dir: string; unmount: () => void } | { skip: string };

/** Mount a tmpfs of `sizeKb` (needs root: `mount -t tmpfs`); `options` such as 'ro'. */
export function mountTmpfs(sizeKb: number, options: string[] = []): Mounted {
  const dir = tempDir('hintlab-tmpfs-');
  const res = spawnSync('mount', ['-t', 'tmpfs', '-o', [`size=${sizeKb}k`, ...options].join(','), 'tmpfs', dir], { encoding: 'utf8' });
  if (res.status !== 0) return { skip: `cannot mount a tmpfs here (needs root): ${(res.stderr || res.error?.message || '').trim()}` };
  return { dir, unmount: () => void spawnSync('umount', ['-l', dir]) };
}

/** Fill the file system holding `dir` until `leaveKb` kilobytes remain free. */
export function fillLeaving(dir: string, leaveKb: number): void {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: full
  }
  ftruncateSync(fd, Math.max(0, statSync(path).size - leaveKb * 1024));
  closeSync(fd);
}
