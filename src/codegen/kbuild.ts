/**
 * Kbuild in a scratch output directory: one directory per compiler and
 * configured optimization level, configured once (a few seconds to minutes)
 * and reused, so a later build recompiles only the requested object.
 *
 * Optimization levels map onto the kernel's own options:
 * -O2 = CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE, -Os = CONFIG_CC_OPTIMIZE_FOR_SIZE,
 * -O3 = the -O2 configuration plus KCFLAGS=-O3 (the kernel has no -O3 option;
 * KCFLAGS comes last on the command line, so it wins).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { spawnSupervised } from '../proc/supervise.ts';
import { errorLines } from './compilers.ts';
import type { OptLevel } from './types.ts';

export type MakeResult = { ok: true; output: string } | { ok: false; output: string };

/** Run make in the mirror with output to `objdir`, under the process supervisor; stdout and stderr together. */
export function runMake(mirror: string, objdir: string, cc: string, args: string[]): Promise<MakeResult> {
  const argv = ['-C', mirror, `O=${objdir}`, `CC=${cc}`, `-j${availableParallelism()}`, ...args];
  return new Promise((resolve) => {
    const child = spawnSupervised(['make', ...argv], { env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => void (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (output += d.toString()));
    child.exit.then(
      ({ code }) => resolve({ ok: code === 0, output }),
      (err: unknown) => resolve({ ok: false, output: `make: ${(err as Error).message}` }),
    );
  });
}

/** The configured level of an objdir: -O3 shares the -O2 configuration. */
export const configLevel = (opt: OptLevel): 'O2' | 'Os' => (opt === 'Os' ? 'Os' : 'O2');

/** Extra make arguments for a level beyond its configuration. */
export const levelArgs = (opt: OptLevel): string[] => (opt === 'O3' ? ['KCFLAGS=-O3'] : []);

const WANT = { O2: 'CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y', Os: 'CONFIG_CC_OPTIMIZE_FOR_SIZE=y' } as const;

export type ObjdirOutcome = { ok: true; objdir: string } | { ok: false; errorLines: string[] };

/**
 * Configure `objdir` for `cc` at `level` from `baseConfig` (a .config path,
 * or undefined for defconfig), unless its stamp says it already is.
 */
export async function ensureObjdir(mirror: string, objdir: string, cc: string, level: 'O2' | 'Os', baseConfig: string | undefined): Promise<ObjdirOutcome> {
  const base = baseConfig ? readFileSync(baseConfig) : Buffer.from('defconfig');
  const stamp = JSON.stringify({ cc, level, config: createHash('sha256').update(base).digest('hex') });
  const stampPath = join(objdir, '.hintlab-stamp');
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) return { ok: true, objdir };
  rmSync(objdir, { recursive: true, force: true });
  mkdirSync(objdir, { recursive: true });
  const steps: string[][] = [];
  if (baseConfig) writeFileSync(join(objdir, '.config'), base);
  else steps.push(['defconfig']);
  for (const step of steps) {
    const r = await runMake(mirror, objdir, cc, step);
    if (!r.ok) return { ok: false, errorLines: errorLines(r.output) };
  }
  setLevel(join(objdir, '.config'), level);
  const r = await runMake(mirror, objdir, cc, ['olddefconfig']);
  if (!r.ok) return { ok: false, errorLines: errorLines(r.output) };
  if (!readFileSync(join(objdir, '.config'), 'utf8').split('\n').includes(WANT[level])) {
    return { ok: false, errorLines: [`${WANT[level]} did not survive 'make olddefconfig' in ${objdir}/.config`] };
  }
  writeFileSync(stampPath, stamp);
  return { ok: true, objdir };
}

/** Select the optimization choice in a .config; olddefconfig then settles dependencies. */
function setLevel(configPath: string, level: 'O2' | 'Os'): void {
  const lines = readFileSync(configPath, 'utf8')
    .split('\n')
    .filter((l) => !/^(# )?CONFIG_CC_OPTIMIZE_FOR_(PERFORMANCE|SIZE)[= ]/.test(l));
  lines.push(level === 'O2' ? WANT.O2 : '# CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE is not set');
  lines.push(level === 'Os' ? WANT.Os : '# CONFIG_CC_OPTIMIZE_FOR_SIZE is not set');
  writeFileSync(configPath, `${lines.join('\n')}\n`);
}
