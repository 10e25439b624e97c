/**
 * The Debian cloud kernel real-boot tests use: $HINTLAB_TEST_VMLINUZ (CI
 * sets it from test/fixtures/fetch-cloud-kernel.sh) or that script's cache.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The newest cached vmlinuz, or null when there is none. */
export function cachedCloudKernel(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.HINTLAB_TEST_VMLINUZ) return env.HINTLAB_TEST_VMLINUZ;
  const cache = join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'hintlab', 'cloud-kernel');
  if (!existsSync(cache)) return null;
  for (const pkg of readdirSync(cache).filter((d) => d.startsWith('linux-image-')).sort().reverse()) {
    const boot = join(cache, pkg, 'boot');
    const image = existsSync(boot) ? readdirSync(boot).find((f) => f.startsWith('vmlinuz-')) : undefined;
    if (image) return join(boot, image);
  }
  return null;
}

/** The skip reason for a test that boots `vmlinuz` (from cachedCloudKernel), or false. */
export function requireCloudKernel(vmlinuz: string | null): string | false {
  return vmlinuz ? false : 'no cloud kernel: set HINTLAB_TEST_VMLINUZ or run test/fixtures/fetch-cloud-kernel.sh (needs apt access)';
}
