/**
 * Compile the native probe on first use: the system C compiler, -O2,
 * warnings as errors, into a cache keyed by the probe sources, the compiler's
 * version and the flags. A static build of the same sources goes into VM
 * initramfs images.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileCached, defaultCacheDir } from '../proc/native.ts';


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

/** Build (or reuse) the probe binary. */
export function buildProbe(opts: BuildOptions = {}): ProbeBuild {
  const env = opts.env ?? process.env;
  const cc = opts.cc ?? env.CC ?? 'cc';
  const isStatic = opts.static ?? false;
  const flags = ['-O2', '-Wall', '-Wextra', '-Werror', '-pthread', ...(isStatic ? ['-static'] : [])];
  const built = compileCached({
    what: 'the probe',
    sourceDir: PROBE_SOURCE_DIR,
    binary: isStatic ? 'hintlab-probe-static' : 'hintlab-probe',
    cc,
    flags,
    cacheDir: opts.cacheDir ?? defaultCacheDir(env),
    failureHint: isStatic ? " (a static build needs libc6-dev: 'apt-get install libc6-dev')" : '',
  });
  return { path: built.path, static: isStatic, buildId: built.buildId, compiler: cc, compilerVersion: built.compilerVersion, flags };
}
