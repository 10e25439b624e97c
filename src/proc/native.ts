/**
 * Native helpers compiled on first use with the system C compiler, into a
 * cache keyed by their sources, the compiler's version and the flags: the
 * probe (src/launch/probe-build.ts) and the process supervisor (./supervise.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

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

export interface NativeSpec {
  /** What is built, for error messages ("the probe"). */
  what: string;
  /** Directory whose `.c` and `.h` files (not subdirectories) make the program. */
  sourceDir: string;
  /** File name of the binary in the cache. */
  binary: string;
  cc: string;
  flags: string[];
  cacheDir: string;
  /** Appended to a compile failure's message (e.g. the package a static build needs). */
  failureHint?: string;
  /** More that the binary depends on, hashed into its cache key (e.g. the qemu version a plugin is built for). */
  extraKey?: string;
}

export interface NativeBuild {
  path: string;
  /** sha256 over sources, compiler version and flags (first 16 hex digits). */
  buildId: string;
  compilerVersion: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.c') || f.endsWith('.h'))
    .sort();
}

/** Build (or reuse) the binary of `spec`. */
export function compileCached(spec: NativeSpec): NativeBuild {
  const version = compilerVersion(spec.cc);
  const hash = createHash('sha256');
  for (const f of sources(spec.sourceDir)) hash.update(f).update('\0').update(readFileSync(join(spec.sourceDir, f)));
  hash.update(version).update(spec.flags.join(' '));
  if (spec.extraKey !== undefined) hash.update('\0').update(spec.extraKey);
  const buildId = hash.digest('hex').slice(0, 16);
  const dir = join(spec.cacheDir, buildId);
  const path = join(dir, spec.binary);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    // the compiler opens its output by name, following links: it writes into
    // a directory of this process's own (mkdtemp: a random name, mode 0700)
    const own = mkdtempSync(join(dir, `.${spec.binary}.build-`));
    const tmp = join(own, spec.binary);
    const cfiles = sources(spec.sourceDir).filter((f) => f.endsWith('.c')).map((f) => join(spec.sourceDir, f));
    try {
      try {
        execFileSync(spec.cc, [...spec.flags, '-o', tmp, ...cfiles], { stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (err) {
        const e = err as { stderr?: Buffer; message: string };
        const detail = e.stderr?.toString().trim() || e.message;
        throw new UserError(`compiling ${spec.what} with ${spec.cc} failed${spec.failureHint ?? ''}:\n${detail}`);
      }
      chmodSync(tmp, 0o755);
      // rename is atomic: a concurrent build or a crash never leaves half a binary in the cache
      renameSync(tmp, path);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }
  return { path, buildId, compilerVersion: version };
}
