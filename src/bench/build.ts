/**
 * Compile the native probe on first use: the system C compiler, -O2,
 * warnings as errors, into a cache keyed by the probe sources, the compiler's
 * version and the flags. A static build of the same sources goes into VM
 * initramfs images.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../cli/io.ts';

export const PROBE_SOURCE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../probes');

export interface ProbeBuild {
  path: string;
  static: boolean;
  /** sha256 over sources, compiler version and flags (first 16 hex digits). */
  buildId: string;
  compiler: string;
  compilerVersion: string;
  flags: string[];
}

export interface BuildOptions {
  static?: boolean;
  cc?: string;
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'hintlab', 'probes');
}

/** The compiler's first `--version` line, or a UserError naming the package to install. */
export function compilerVersion(cc: string): string {
  const r = spawnSync(cc, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new UserError(
      `the C compiler '${cc}' is not available (${r.error?.message ?? `exit ${r.status}`}); ` +
        `install it with 'apt-get install gcc libc6-dev', or set CC to another compiler`,
    );
  }
  return r.stdout.split('\n')[0]?.trim() ?? cc;
}

function sources(): string[] {
  return readdirSync(PROBE_SOURCE_DIR)
    .filter((f) => f.endsWith('.c') || f.endsWith('.h'))
    .sort();
}

/** Build (or reuse) the probe binary. */
export function buildProbe(opts: BuildOptions = {}): ProbeBuild {
  const env = opts.env ?? process.env;
  const cc = opts.cc ?? env.CC ?? 'cc';
  const isStatic = opts.static ?? false;
  const flags = ['-O2', '-Wall', '-Wextra', '-Werror', '-pthread', ...(isStatic ? ['-static'] : [])];
  const version = compilerVersion(cc);
  const hash = createHash('sha256');
  for (const f of sources()) hash.update(f).update('\0').update(readFileSync(join(PROBE_SOURCE_DIR, f)));
  hash.update(version).update(flags.join(' '));
  const buildId = hash.digest('hex').slice(0, 16);
  const dir = join(opts.cacheDir ?? defaultCacheDir(env), buildId);
  const path = join(dir, isStatic ? 'hintlab-probe-static' : 'hintlab-probe');
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.tmp-${process.pid}`;
    const cfiles = sources().filter((f) => f.endsWith('.c')).map((f) => join(PROBE_SOURCE_DIR, f));
    try {
      execFileSync(cc, [...flags, '-o', tmp, ...cfiles], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      const e = err as { stderr?: Buffer; message: string };
      const detail = e.stderr?.toString().trim() || e.message;
      const hint = isStatic ? " (a static build needs libc6-dev: 'apt-get install libc6-dev')" : '';
      throw new UserError(`compiling the probe with ${cc} failed${hint}:\n${detail}`);
    }
    // rename is atomic: a concurrent build or a crash never leaves half a binary in the cache
    renameSync(tmp, path);
  }
  return { path, static: isStatic, buildId, compiler: cc, compilerVersion: version, flags };
}
