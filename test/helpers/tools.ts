/**
 * Guards for tests that need a system tool or file the README's set-up
 * command does not install. Each returns a skip reason naming the Debian
 * package to install, or false when the test can run, so a test reads
 * `test('...', { skip: requireTool('qemu-system-x86_64', 'qemu-system-x86') }, ...)`.
 * `.ci/run` installs every package named here, so nothing skips in CI.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A skip reason, or false when nothing is missing. */
export type Skip = string | false;

const found = new Map<string, string | null>();

/** The path of `command` on $PATH (executable), or null. */
export function toolPath(command: string): string | null {
  if (!found.has(command)) {
    let hit: string | null = null;
    for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
      try {
        accessSync(join(dir, command), constants.X_OK);
        hit = join(dir, command);
        break;
      } catch {
        /* not in this directory */
      }
    }
    found.set(command, hit);
  }
  return found.get(command) ?? null;
}

/** Skip unless `command` is on $PATH. */
export function requireTool(command: string, debianPackage: string): Skip {
  return toolPath(command) ? false : `needs ${command}, not on PATH: apt-get install -y ${debianPackage}`;
}

/** Skip unless `path` exists. */
export function requireFile(path: string, debianPackage: string): Skip {
  return existsSync(path) ? false : `needs ${path}, which is missing: apt-get install -y ${debianPackage}`;
}

/** The first reason to skip, or false when every requirement is met. */
export function requireAll(...skips: Skip[]): Skip {
  return skips.find((s) => s !== false) ?? false;
}

/** Skip unless a kernel tree can be configured and built (x86_64 defconfig needs all of these). */
export function requireKernelBuildTools(): Skip {
  return requireAll(
    requireTool('make', 'make'),
    requireTool('flex', 'flex'),
    requireTool('bison', 'bison'),
    requireTool('bc', 'bc'),
    requireFile('/usr/include/gelf.h', 'libelf-dev'),
    requireFile('/usr/include/openssl/opensslv.h', 'libssl-dev'),
  );
}
