/**
 * What a guest needs to run the host's stress-ng: the binary, every shared
 * library `ldd` names and the dynamic loader, each at the path the loader
 * will look for it, plus the directories above them. The guest then runs
 * the very same stress-ng build as a host `hintlab macro` run.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { UserError } from '../errors.ts';
import type { CpioEntry } from './initramfs.ts';

export const GUEST_STRESS_NG = '/usr/bin/stress-ng';

/**
 * The absolute paths of the libraries in `ldd` output: `name => /path (addr)`
 * lines and the loader's bare `/path (addr)` line. The vDSO (no file) and
 * libraries ldd could not find are skipped here; the latter are reported by
 * `stressNgFiles`.
 */
export function parseLdd(output: string): { paths: string[]; missing: string[] } {
  const paths: string[] = [];
  const missing: string[] = [];
  for (const line of output.split('\n').map((l) => l.trim())) {
    const arrow = /^(\S+)\s+=>\s+(\S+)/.exec(line);
    if (arrow) {
      if (arrow[2] === 'not') missing.push(arrow[1]!);
      else if (arrow[2]!.startsWith('/')) paths.push(arrow[2]!);
      continue;
    }
    const bare = /^(\/\S+)\s+\(0x[0-9a-f]+\)$/.exec(line);
    if (bare) paths.push(bare[1]!);
  }
  return { paths: [...new Set(paths)], missing };
}

/** Every directory above `paths`, parents first, without a leading slash. */
export function parentDirs(paths: string[]): string[] {
  const dirs = new Set<string>();
  for (const p of paths) {
    const parts = p.replace(/^\/+/, '').split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/**
 * The archive members for programs and every library `ldd` names for them,
 * each program at the path given (`as`, default its own) and each library
 * where the loader looks for it, below the directories above them.
 * Symlinks (e.g. /lib64/ld-linux-x86-64.so.2) are stored as the file they
 * point to: the guest needs the bytes, not the link.
 */
export function programFiles(programs: { binary: string; as?: string }[], run: (file: string) => string = lddOutput, fix = 'reinstall the package that ships it'): { entries: CpioEntry[]; bytes: number } {
  const files = new Map<string, Buffer>();
  for (const { binary, as } of programs) {
    const { paths, missing } = parseLdd(run(binary));
    if (missing.length) throw new UserError(`${binary} links libraries ldd cannot find (${missing.join(', ')}); ${fix}`);
    files.set(as ?? binary, readFileSync(binary));
    for (const p of paths) if (!files.has(p)) files.set(p, readFileSync(p));
  }
  const dirs = parentDirs([...files.keys()]);
  const entries: CpioEntry[] = [
    ...dirs.map((d): CpioEntry => ({ kind: 'dir', path: d })),
    ...[...files].map(([path, data]): CpioEntry => ({ kind: 'file', path: path.slice(1), data, mode: 0o755 })),
  ];
  return { entries, bytes: [...files.values()].reduce((n, d) => n + d.length, 0) };
}

/** The archive members for `binary` (the host's stress-ng) installed as /usr/bin/stress-ng. */
export function stressNgFiles(binary: string, run: (file: string) => string = lddOutput): { entries: CpioEntry[]; bytes: number } {
  return programFiles([{ binary, as: GUEST_STRESS_NG }], run, 'reinstall stress-ng (apt-get install -y --reinstall stress-ng)');
}

function lddOutput(binary: string): string {
  try {
    return execFileSync('ldd', [binary], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new UserError(`cannot list the libraries of ${binary} with ldd: ${(err as Error).message.split('\n')[0]}; install it and libc-bin`);
  }
}
