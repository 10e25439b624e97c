/**
 * From the guest's .gcda files to gcov JSON: each file goes next to a link
 * to the build's .gcno in a scratch object directory (the build directory
 * itself stays as the build left it, so several workloads can use one
 * kernel), then `gcov -j -b -o <dir> <stem>.c ...` runs once per directory
 * and its `.gcov.json.gz` files are moved into the output, keeping the
 * tree's directory layout (fs/select.gcov.json.gz).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { UserError } from '../../errors.ts';
import { GUEST_GCOV_DIR } from './guest.ts';
import type { ReceivedFile } from './transfer.ts';

/** A .gcda file placed for gcov: `rel` is its path inside the object directory. */
export interface PlacedGcda {
  rel: string;
}

/**
 * The guest names a file by the object directory the kernel was compiled
 * in: /sys/kernel/debug/gcov/<objDir>/kernel/sched/core.gcda. Returns
 * `kernel/sched/core.gcda`, or throws when the path is outside `objDir`.
 */
export function objectRelative(guestPath: string, objDir: string): string {
  const prefix = `${GUEST_GCOV_DIR}${objDir}/`;
  const rel = guestPath.startsWith(prefix) ? guestPath.slice(prefix.length) : null;
  if (rel === null || !rel.endsWith('.gcda') || rel.split('/').some((p) => p === '..' || p === '')) {
    throw new UserError(`the guest sent ${guestPath}, which is not a .gcda file of this build (expected ${prefix}...): was the kernel booted from another build directory?`);
  }
  return rel;
}

/** Write each .gcda into `scratchObj` beside a symlink to the build's .gcno; files without a .gcno are returned apart. */
export function placeGcda(files: readonly ReceivedFile[], objDir: string, scratchObj: string): { placed: PlacedGcda[]; noGcno: string[] } {
  const placed: PlacedGcda[] = [];
  const noGcno: string[] = [];
  for (const f of files) {
    const rel = objectRelative(f.guestPath, objDir);
    const gcno = join(objDir, rel.replace(/\.gcda$/, '.gcno'));
    if (!existsSync(gcno)) {
      noGcno.push(rel);
      continue;
    }
    const at = join(scratchObj, rel);
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, f.data);
    symlinkSync(gcno, at.replace(/\.gcda$/, '.gcno'));
    placed.push({ rel });
  }
  return { placed, noGcno };
}

/** gcov's first `--version` line, or a UserError naming the package. */
export function gcovVersion(gcov = 'gcov'): string {
  const r = spawnSync(gcov, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new UserError(`${gcov} is not available (${r.error?.message ?? `exit ${r.status}`}); it comes with gcc: 'apt-get install gcc'`);
  return r.stdout.split('\n')[0]?.trim() ?? gcov;
}

/**
 * Run gcov per directory of `placed`, in `scratchJson/<dir>`, and move the
 * JSON files to `outDir/<dir>/`. Returns the paths written, relative to outDir.
 */
export function runGcov(placed: readonly PlacedGcda[], scratchObj: string, scratchJson: string, outDir: string, gcov = 'gcov'): string[] {
  const byDir = new Map<string, string[]>();
  for (const p of placed) {
    const dir = posix.dirname(p.rel);
    byDir.set(dir, [...(byDir.get(dir) ?? []), posix.basename(p.rel, '.gcda')]);
  }
  const written: string[] = [];
  for (const [dir, stems] of [...byDir].sort(([a], [b]) => a.localeCompare(b))) {
    const cwd = join(scratchJson, dir);
    mkdirSync(cwd, { recursive: true });
    // gcov only takes the stem of each name (with -o it finds <dir>/<stem>.gcno/.gcda); the sources are not read for JSON
    const r = spawnSync(gcov, ['-j', '-b', '-o', join(scratchObj, dir), ...stems.map((s) => `${s}.c`)], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.error || r.status !== 0) {
      throw new UserError(`gcov failed in ${dir} (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stderr || r.stdout).trim().split('\n').slice(-10).join('\n')}`);
    }
    mkdirSync(join(outDir, dir), { recursive: true });
    for (const name of readdirSync(cwd).filter((n) => n.endsWith('.gcov.json.gz')).sort()) {
      renameSync(join(cwd, name), join(outDir, dir, name));
      written.push(posix.join(dir, name));
    }
  }
  return written;
}
