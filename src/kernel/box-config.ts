/**
 * A box's own kernel configuration, read over ssh (`--base ssh://...`), so
 * a kernel built from it has what the box's userspace needs: its disk and
 * filesystem drivers, its network, its init's expectations.
 *
 * One connection through the system OpenSSH client (SshConnection:
 * ~/.ssh/config, agents and ProxyJump apply) runs one small script:
 * `uname -r`, then the first readable of /proc/config.gz
 * (CONFIG_IKCONFIG_PROC; sent as it is and unpacked here, so the box needs
 * no gzip) and /boot/config-<release> (what Debian, Ubuntu and Fedora
 * install). With --localmodconfig a second command reads /proc/modules
 * (what `lsmod` prints, in the format streamline_config.pl reads, without
 * needing kmod on the box's PATH).
 */
import { UserError } from '../errors.ts';
import { shellWord } from '../shell.ts';
import type { SshAddress } from '../targets/ssh-address.ts';
import { SshConnection, type SshOptions } from '../targets/ssh-connection.ts';
import { gunzipCapped, MAX_CONFIG_BYTES } from '../gunzip.ts';

/** Where a box keeps its configuration, in the order tried; `{release}` is the box's `uname -r`. */
export const BOX_CONFIG_PATHS: readonly string[] = ['/proc/config.gz', '/boot/config-{release}'];

export interface BoxConfigFetch {
  text: string;
  /** The path read, `{release}` filled in. */
  path: string;
  release: string;
  /** /proc/modules, when asked for. */
  modules: string | null;
}

export interface BoxConfigOptions {
  ssh?: SshOptions;
  paths?: readonly string[];
  /** Read /proc/modules too (for --localmodconfig). */
  modules?: boolean;
}

/** A candidate path as a shell word, with `{release}` as "$r" (the box's uname -r). */
function shellPath(template: string): string {
  return template
    .split('{release}')
    .map((part) => (part === '' ? '' : shellWord(part)))
    .join('"$r"');
}

const MARK = 'hintlab-box-config';

/**
 * The script's output: `<MARK> release R`, then `<MARK> path P` and the
 * configuration's bytes (gzip'd for a .gz path, unpacked here: the box
 * needs no gzip) to the end, or `<MARK> none`.
 */
export function boxConfigScript(paths: readonly string[]): string {
  return [
    'r=$(uname -r) || exit 3',
    `printf '${MARK} release %s\\n' "$r"`,
    'p=',
    // the first readable candidate wins: test them last to first
    ...paths.map((c) => `if [ -r ${shellPath(c)} ]; then p=${shellPath(c)}; fi`).reverse(),
    `if [ -z "$p" ]; then echo '${MARK} none'; exit 0; fi`,
    `printf '${MARK} path %s\\n' "$p"`,
    'exec cat -- "$p"',
  ].join('\n');
}

/** The module list for localyesconfig: /proc/modules, what lsmod reads (no kmod needed on the box's PATH). */
export const BOX_MODULES_SCRIPT = `if [ -r /proc/modules ]; then exec cat /proc/modules; else echo '${MARK} no-modules'; fi`;

function takeLine(buf: Buffer, at: number): { line: string; next: number } {
  const nl = buf.indexOf(0x0a, at);
  if (nl < 0) return { line: buf.subarray(at).toString('utf8'), next: buf.length };
  return { line: buf.subarray(at, nl).toString('utf8'), next: nl + 1 };
}

/** Parse boxConfigScript's output; errors name the box, the paths tried and the fix. */
export function parseBoxConfigOutput(out: Buffer, url: string, paths: readonly string[]): Omit<BoxConfigFetch, 'modules'> {
  const bad = (why: string): never => {
    throw new UserError(`--base ${url}: ${why}`);
  };
  const head = takeLine(out, 0);
  const release = new RegExp(`^${MARK} release (.+)$`).exec(head.line)?.[1];
  if (!release) return bad(`unexpected answer from the box (${JSON.stringify(head.line.slice(0, 80))}); is its login shell a POSIX shell?`);
  const which = takeLine(out, head.next);
  if (which.line === `${MARK} none`) {
    const tried = paths.map((p) => p.replaceAll('{release}', release));
    return bad(
      `the box (kernel ${release}) has neither ${tried.join(' nor ')} readable ` +
        '(its kernel was built without CONFIG_IKCONFIG_PROC, and its configuration is not in /boot); ' +
        'copy that kernel\'s configuration off the box and give it as --base FILE',
    );
  }
  const path = new RegExp(`^${MARK} path (.+)$`).exec(which.line)?.[1] ?? bad(`unexpected answer from the box (${JSON.stringify(which.line.slice(0, 80))})`);
  let data = out.subarray(which.next);
  if (path.endsWith('.gz')) data = gunzipCapped(data, MAX_CONFIG_BYTES, `--base ${url}: ${path} on the box`, "copy that kernel's configuration off the box and give it as --base FILE");
  const text = data.toString('utf8');
  if (!/^CONFIG_[A-Z0-9_]+=/m.test(text)) return bad(`${path} on the box holds no CONFIG_ lines; is it a kernel configuration?`);
  return { text, path, release };
}

/** Log into the box, read its configuration (and module list), log out. */
export async function fetchBoxConfig(address: SshAddress, opts: BoxConfigOptions = {}): Promise<BoxConfigFetch> {
  const paths = opts.paths ?? BOX_CONFIG_PATHS;
  const conn = await SshConnection.open(address, opts.ssh);
  try {
    const out = await conn.check(boxConfigScript(paths), 'reading the kernel configuration', { timeoutMs: 60_000 });
    const config = parseBoxConfigOutput(out, address.url, paths);
    if (!opts.modules) return { ...config, modules: null };
    const modules = (await conn.check(BOX_MODULES_SCRIPT, 'reading the loaded modules (/proc/modules)', { timeoutMs: 60_000 })).toString('utf8');
    if (modules.startsWith(`${MARK} no-modules`)) {
      throw new UserError(`--localmodconfig: the box's kernel ${config.release} has no /proc/modules (built without module support), so there are no loaded modules to keep; drop --localmodconfig`, 2);
    }
    return { ...config, modules };
  } finally {
    await conn.close();
  }
}
