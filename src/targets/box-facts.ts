/**
 * What hintlab must know about a box before it boots a kernel there, read
 * in one round trip: the running kernel (release, command line, boot id),
 * who hintlab is there (root, or which of the commands it needs sudo lets
 * it run without a password), whether kexec can work (the tool, the
 * kernel's support, kexec_load_disabled), whether GRUB's one-shot entry is
 * there as the fallback, and the /boot files of the running kernel (the
 * way back to it).
 *
 * Every command hintlab runs for booting goes through `BoxShell`, which an
 * SshConnection is, so the boot logic is tested with a scripted one.
 */
import type { ExecOptions, ExecResult } from './ssh-connection.ts';

/** The part of an ssh connection booting needs; tests script it. */
export interface BoxShell {
  exec(command: string, opts?: ExecOptions): Promise<ExecResult>;
  put(data: Buffer, path: string, mode?: number): Promise<void>;
}

/** Commands booting runs are found in the sbin directories too (a non-root user's PATH lacks them). */
export const SBIN_PATH = 'PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"; export PATH; ';

/** The commands hintlab runs as root to boot a kernel, for sudo's check and for the sudoers line it suggests. */
export const PRIVILEGED = ['kexec', 'reboot', 'systemctl', 'grub-reboot'] as const;
export type Privileged = (typeof PRIVILEGED)[number];

/** What `sudo -n -l` is asked about for each (systemctl only as `systemctl kexec`, the one use hintlab has for it). */
const SUDO_CHECK: Record<Privileged, string> = { kexec: 'kexec', reboot: 'reboot', systemctl: 'systemctl kexec', 'grub-reboot': 'grub-reboot' };

export interface BoxFacts {
  release: string;
  /** `uname -v`: the build's own version string ("#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"). */
  version: string;
  cmdline: string;
  bootId: string;
  hostname: string;
  user: string;
  uid: number;
  /** Only for a user who is not root: which privileged commands `sudo -n` runs without asking. */
  sudo: Record<Privileged, boolean> | null;
  /** kexec's path on the box, or null when kexec-tools is not installed. */
  kexec: string | null;
  /** The running kernel can load a kernel: built with KEXEC and not locked (kexec_load_disabled = 0). */
  kexecKernel: 'ok' | 'unsupported' | 'disabled';
  /** systemd is PID 1: `systemctl kexec` and `reboot` shut down cleanly first. */
  systemd: boolean;
  /** grub-reboot's path, and whether grub.cfg sources custom.cfg (Debian's 41_custom), for the one-shot fallback. */
  grubReboot: string | null;
  grubCustomCfg: boolean;
  /** /boot/vmlinuz-<release> and /boot/initrd.img-<release> of the running kernel, when they exist. */
  bootImage: string | null;
  bootInitrd: string | null;
}

const FACTS_SCRIPT = [
  SBIN_PATH,
  'f() { printf "%s=%s\\n" "$1" "$2"; }',
  'r=$(uname -r)',
  'f release "$r"',
  'f version "$(uname -v)"',
  'f cmdline "$(cat /proc/cmdline)"',
  'f bootId "$(cat /proc/sys/kernel/random/boot_id)"',
  'f hostname "$(cat /proc/sys/kernel/hostname)"',
  'f user "$(id -un 2>/dev/null || echo "$USER")"',
  'f uid "$(id -u)"',
  'f kexec "$(command -v kexec)"',
  'if [ ! -e /sys/kernel/kexec_loaded ]; then f kexecKernel unsupported; elif [ "$(cat /proc/sys/kernel/kexec_load_disabled 2>/dev/null)" = 1 ]; then f kexecKernel disabled; else f kexecKernel ok; fi',
  'if [ -d /run/systemd/system ]; then f systemd 1; fi',
  'f grubReboot "$(command -v grub-reboot)"',
  'if grep -qs custom.cfg /boot/grub/grub.cfg; then f grubCustomCfg 1; fi',
  'if [ -e "/boot/vmlinuz-$r" ]; then f bootImage "/boot/vmlinuz-$r"; fi',
  'if [ -e "/boot/initrd.img-$r" ]; then f bootInitrd "/boot/initrd.img-$r"; fi',
  `if [ "$(id -u)" != 0 ]; then ${PRIVILEGED.map((c) => `if sudo -n -l ${SUDO_CHECK[c]} >/dev/null 2>&1; then f sudo_${c} 1; fi`).join('; ')}; fi`,
].join('\n');

/** Parse the facts script's `key=value` lines. */
export function parseFacts(text: string): BoxFacts {
  const kv = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) kv.set(line.slice(0, eq), line.slice(eq + 1));
  }
  const need = (k: string): string => {
    const v = kv.get(k);
    if (v === undefined || v === '') throw new Error(`the box did not say its ${k} (answer: ${text.slice(0, 300)})`);
    return v;
  };
  const uid = Number(need('uid'));
  const kexecKernel = kv.get('kexecKernel');
  return {
    release: need('release'),
    version: kv.get('version') ?? '',
    cmdline: need('cmdline').trim(),
    bootId: need('bootId').trim(),
    hostname: kv.get('hostname') ?? '',
    user: kv.get('user') || String(uid),
    uid,
    sudo: uid === 0 ? null : (Object.fromEntries(PRIVILEGED.map((c) => [c, kv.get(`sudo_${c}`) === '1'])) as Record<Privileged, boolean>),
    kexec: kv.get('kexec') || null,
    kexecKernel: kexecKernel === 'disabled' || kexecKernel === 'unsupported' ? kexecKernel : 'ok',
    systemd: kv.get('systemd') === '1',
    grubReboot: kv.get('grubReboot') || null,
    grubCustomCfg: kv.get('grubCustomCfg') === '1',
    bootImage: kv.get('bootImage') || null,
    bootInitrd: kv.get('bootInitrd') || null,
  };
}

/** Read the box's boot facts in one round trip. */
export async function readFacts(shell: BoxShell, name: string): Promise<BoxFacts> {
  const r = await shell.exec(FACTS_SCRIPT);
  if (r.code !== 0) throw new Error(`reading the running kernel on ${name} failed (exit ${r.code}): ${r.stderr.trim() || 'no message'}`);
  return parseFacts(r.stdout.toString('utf8'));
}

/** How a privileged command is run: as is for root, through `sudo -n` otherwise. */
export function privileged(facts: Pick<BoxFacts, 'uid'>, command: string): string {
  return facts.uid === 0 ? command : `sudo -n ${command}`;
}

/**
 * Why `facts` do not let hintlab run `needed` as root, with the fix (a
 * sudoers line naming exactly those commands), or null when they do.
 */
export function missingPrivilege(facts: BoxFacts, needed: readonly Privileged[], name: string): string | null {
  if (facts.sudo === null) return null;
  const missing = needed.filter((c) => !facts.sudo![c]);
  if (missing.length === 0) return null;
  const paths: Record<Privileged, string> = { kexec: '/usr/sbin/kexec', reboot: '/usr/sbin/reboot', systemctl: '/usr/bin/systemctl kexec', 'grub-reboot': '/usr/sbin/grub-reboot' };
  return (
    `${name}: hintlab boots kernels as root, and user ${facts.user} may not run ${missing.join(', ')} through 'sudo -n' (without a password). ` +
    `Log in as root, or allow exactly these commands: echo '${facts.user} ALL=(root) NOPASSWD: ${needed.map((c) => paths[c]).join(', ')}' | sudo tee /etc/sudoers.d/hintlab && sudo chmod 440 /etc/sudoers.d/hintlab`
  );
}

/** `cmdline` without what a boot loader or an earlier hintlab boot put there (BOOT_IMAGE=, hintlab.boot=). */
export function ownCmdline(cmdline: string): string {
  return cmdline
    .split(/\s+/)
    .filter((w) => w && !w.startsWith('BOOT_IMAGE=') && !w.startsWith('hintlab.boot='))
    .join(' ');
}

/** The `hintlab.boot=` token on a command line, or null. */
export function bootToken(cmdline: string): string | null {
  return /(?:^|\s)hintlab\.boot=(\S+)/.exec(cmdline)?.[1] ?? null;
}
