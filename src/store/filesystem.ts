/**
 * Which mounted file system holds a path, for messages such as "free space
 * on /var (ext4)". Read from /proc/self/mountinfo; a path that cannot be
 * placed is named by its own directory.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';

export interface MountPoint {
  mountPoint: string;
  fsType: string;
}

/** Undo mountinfo's octal escapes (`\040` for a space). */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** Parse /proc/self/mountinfo text into mount points and their types. */
export function parseMountInfo(text: string): MountPoint[] {
  const out: MountPoint[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    const at = fields[4];
    const type = fields[dash + 1];
    if (dash < 0 || at === undefined || type === undefined) continue;
    out.push({ mountPoint: unescape(at), fsType: type });
  }
  return out;
}

/** The nearest existing directory of `path`, with symlinks resolved. */
function existingDir(path: string): string {
  let dir = dirname(path);
  for (;;) {
    try {
      return realpathSync(dir);
    } catch {
      const up = dirname(dir);
      if (up === dir) return dir;
      dir = up;
    }
  }
}

/** "/mnt/results (tmpfs)": the mount holding `path`, or its directory when unknown. */
export function describeFilesystem(path: string, mountInfo?: string): string {
  const dir = existingDir(path);
  let text = mountInfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return `the file system of ${dir}`;
    }
  }
  const inside = (m: MountPoint): boolean => m.mountPoint === '/' || dir === m.mountPoint || dir.startsWith(`${m.mountPoint}/`);
  // the last matching line of the longest mount point is the one on top
  let best: MountPoint | null = null;
  for (const m of parseMountInfo(text)) {
    if (inside(m) && (best === null || m.mountPoint.length >= best.mountPoint.length)) best = m;
  }
  return best ? `${best.mountPoint} (${best.fsType})` : `the file system of ${dir}`;
}
