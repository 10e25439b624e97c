/**
 * Booting a kernel on a box over ssh: copy the image (and an initrd) there,
 * then either `kexec -l` it and `kexec -e` (`systemctl kexec` where systemd
 * runs, which shuts down cleanly first), or, where kexec is unavailable, a
 * one-shot GRUB entry (`grub-reboot`) and a normal reboot. Either way the
 * command line carries `hintlab.boot=<token>`, so that the boot that comes
 * back can be told from any other (./box-wait.ts checks it, with the
 * release the image's header names).
 *
 * hintlab never changes the box's default boot entry: a kexec'd kernel is
 * gone at the next reboot, and a one-shot GRUB entry is used once (GRUB
 * clears `next_entry` as it boots it) and removed from custom.cfg after.
 *
 * The boot itself is started in a process of its own (setsid) a second
 * after the ssh session that starts it returned, so the session ends
 * cleanly and hintlab sees its exit status; what `kexec -e` says if it
 * returns goes to a log on the box, read when the box does not go down.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { UserError } from '../errors.ts';
import { shellWord } from '../shell.ts';
import { type BoxFacts, type BoxShell, missingPrivilege, ownCmdline, privileged, SBIN_PATH, type Privileged } from './box-facts.ts';
import { remotePath } from './ssh-connection.ts';

export type BootMethod = 'kexec' | 'grub-reboot' | 'reboot';

/** Where hintlab keeps kernels, initrds and logs on the box. */
export const BOX_DIR = '~/.cache/hintlab/boot';

/** What to boot, as the box will see it. */
export interface BootFiles {
  /** Paths on the box (`~/` allowed). */
  image: string;
  initrd: string | null;
  cmdline: string;
}

/** The command line a test kernel boots with: the box's own (recorded at the start), extra text, the token. */
export function testCmdline(original: string, append: string | undefined, token: string): string {
  return [ownCmdline(original), append?.trim(), `hintlab.boot=${token}`].filter((w) => w).join(' ');
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * `data` at `path` on the box, copied only when the copy there differs (by
 * sha256) or is missing, and checked after a copy. True when it was copied.
 */
export async function ensureCopy(shell: BoxShell, data: Buffer, path: string, what: string, name: string, mode = 0o644): Promise<boolean> {
  const want = sha256(data);
  const have = /^([0-9a-f]{64})\s/.exec((await shell.exec(`sha256sum ${remotePath(path)} 2>/dev/null`)).stdout.toString())?.[1];
  if (have === want) return false;
  await shell.put(data, path, mode);
  const again = await shell.exec(`sha256sum ${remotePath(path)}`);
  if (!again.stdout.toString().startsWith(want)) {
    throw new UserError(`${what} copied to ${name}:${path} does not match its sha256 after the copy (${again.stderr.trim() || 'no message'}); is the disk full there?`);
  }
  return true;
}

/** A local file's copy on the box under BOX_DIR, named by its content: `<sha16>-<name>`. */
export async function copyToBox(shell: BoxShell, local: string, what: string, name: string): Promise<{ path: string; copied: boolean }> {
  const data = readFileSync(local);
  const path = `${BOX_DIR}/${sha256(data).slice(0, 16)}-${basename(local)}`;
  return { path, copied: await ensureCopy(shell, data, path, what, name) };
}

/** Why kexec cannot boot on this box, or null when it can. */
export function kexecUnavailable(facts: BoxFacts): string | null {
  if (!facts.kexec) return 'kexec is not installed (apt-get install kexec-tools)';
  if (facts.kexecKernel === 'unsupported') return `the running kernel ${facts.release} was built without kexec (no /sys/kernel/kexec_loaded)`;
  if (facts.kexecKernel === 'disabled') return 'kexec is disabled on the box (/proc/sys/kernel/kexec_load_disabled is 1)';
  return null;
}

/** Why the one-shot GRUB entry cannot be used, or null when it can. */
export function grubUnavailable(facts: BoxFacts): string | null {
  if (!facts.grubReboot) return 'grub-reboot is not installed (no GRUB 2 on the box)';
  if (!facts.grubCustomCfg) return "/boot/grub/grub.cfg does not source custom.cfg (Debian's /etc/grub.d/41_custom), where hintlab puts its one-shot entry";
  if (facts.uid !== 0) return 'the one-shot entry writes to /boot: log in as root for it';
  return null;
}

/**
 * The privileged commands a method runs. Every boot of a test kernel needs
 * `reboot` too: the watchdog and the way home reboot the box.
 */
export function privilegesFor(method: BootMethod, facts: Pick<BoxFacts, 'systemd'>): Privileged[] {
  if (method === 'kexec') return facts.systemd ? ['kexec', 'systemctl', 'reboot'] : ['kexec', 'reboot'];
  return method === 'grub-reboot' ? ['grub-reboot', 'reboot'] : ['reboot'];
}

/** The method to boot a test kernel with: kexec where it works, else the one-shot GRUB entry; a UserError saying why neither. */
export function chooseMethod(facts: BoxFacts, name: string): 'kexec' | 'grub-reboot' {
  const noKexec = kexecUnavailable(facts) ?? missingPrivilege(facts, privilegesFor('kexec', facts), name);
  if (!noKexec) return 'kexec';
  const noGrub = grubUnavailable(facts);
  if (!noGrub) return 'grub-reboot';
  throw new UserError(`${name} cannot boot another kernel: ${noKexec}; and the fallback (a one-shot GRUB entry and a reboot) is out too: ${noGrub}`);
}

/** A command run a second after this ssh session ends, in a session of its own, its words kept in `log`. */
function detached(command: string, log: string): string {
  const inner = `sleep 1; sync; ${command}; echo "exit status $?" >> ${log}`;
  return `${SBIN_PATH}mkdir -p ${remotePath(BOX_DIR)} && (if command -v setsid >/dev/null; then setsid sh -c ${shellWord(inner)}; else nohup sh -c ${shellWord(inner)}; fi < /dev/null > ${log} 2>&1 &)`;
}

/** The log on the box of the last detached boot command. */
export const BOOT_LOG = `${BOX_DIR}/last-boot.log`;

/** `kexec -l` of the files (synchronous: its failure is seen here). */
export function kexecLoadCommand(facts: BoxFacts, files: BootFiles): string {
  const initrd = files.initrd ? ` --initrd=${remotePath(files.initrd)}` : '';
  return `${SBIN_PATH}${privileged(facts, 'kexec')} -l ${remotePath(files.image)}${initrd} --command-line=${shellWord(files.cmdline)}`;
}

/** Start the loaded kernel: `systemctl kexec` under systemd (clean shutdown first), else `kexec -e`. */
export function kexecExecCommand(facts: BoxFacts, before = ''): string {
  const exec = facts.systemd ? privileged(facts, 'systemctl kexec') : privileged(facts, 'kexec -e');
  return `${before}${detached(exec, remotePath(BOOT_LOG))}`;
}

/** A normal reboot (to the default entry, or to a one-shot entry set before). */
export function rebootCommand(facts: BoxFacts, before = ''): string {
  return `${before}${detached(privileged(facts, 'reboot'), remotePath(BOOT_LOG))}`;
}

/** The one-shot GRUB entry's id. */
export const grubEntryId = (token: string): string => `hintlab-${token}`;

/**
 * As root: copy the files into /boot/hintlab, add a menu entry between
 * markers to /boot/grub/custom.cfg (on the filesystem holding /boot, found
 * by UUID), and make it GRUB's next boot only (`grub-reboot`).
 */
export function grubEntryScript(files: BootFiles, token: string, title: string): string {
  const id = grubEntryId(token);
  const lines = [
    'set -e',
    SBIN_PATH,
    'd=/boot/hintlab; mkdir -p "$d"',
    `cp ${remotePath(files.image)} "$d/vmlinuz-${token}"`,
    ...(files.initrd ? [`cp ${remotePath(files.initrd)} "$d/initrd-${token}"`] : []),
    'mnt=$(findmnt -n -o TARGET -T /boot); uuid=$(findmnt -n -o UUID -T /boot)',
    '[ -n "$uuid" ] || { echo "the filesystem holding /boot has no UUID for GRUB to find it by" >&2; exit 3; }',
    'if [ "$mnt" = / ]; then rel=$d; else rel=${d#"$mnt"}; fi',
    '{',
    `  echo ${shellWord(`### hintlab begin ${id}`)}`,
    `  echo ${shellWord(`menuentry '${title.replace(/'/g, '')}' --id ${id} {`)}`,
    '  echo "  search --no-floppy --fs-uuid --set=root $uuid"',
    `  echo "  linux $rel/vmlinuz-${token} "${shellWord(files.cmdline)}`,
    ...(files.initrd ? [`  echo "  initrd $rel/initrd-${token}"`] : []),
    "  echo '}'",
    `  echo ${shellWord(`### hintlab end ${id}`)}`,
    '} >> /boot/grub/custom.cfg',
    `grub-reboot ${id}`,
  ];
  return lines.join('\n');
}

/** Remove hintlab's one-shot entries and files from /boot (after the entry booted, or at the end of a session). */
export function grubCleanupScript(): string {
  return [
    SBIN_PATH,
    'c=/boot/grub/custom.cfg',
    'if [ -e "$c" ]; then sed -i "/^### hintlab begin /,/^### hintlab end /d" "$c"; [ -s "$c" ] || rm -f "$c"; fi',
    'rm -rf /boot/hintlab',
  ].join('\n');
}

/** What the boot command did, for the report and for the wait. */
export interface BootStart {
  method: BootMethod;
  /** The command that made the box go down, as it would be typed there. */
  command: string;
  /** Set when kexec was tried first and refused: its words. */
  fellBack: string | null;
}

async function run(shell: BoxShell, command: string, what: string, name: string): Promise<void> {
  const r = await shell.exec(command);
  if (r.code !== 0) throw new UserError(`${what} on ${name} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.toString().trim() || 'no message'}`);
}

/**
 * Start booting `files` on the box: kexec (falling back to the one-shot
 * GRUB entry if `kexec -l` is refused and GRUB can do it), or GRUB. Returns
 * once the box was told to go down. `before` runs first in the same
 * session as the command that goes down (the watchdog's cancel).
 */
export async function startBoot(shell: BoxShell, facts: BoxFacts, files: BootFiles, token: string, title: string, name: string, before = ''): Promise<BootStart> {
  let method = chooseMethod(facts, name);
  let fellBack: string | null = null;
  if (method === 'kexec') {
    const load = await shell.exec(kexecLoadCommand(facts, files));
    if (load.code !== 0) {
      const said = load.stderr.trim() || load.stdout.toString().trim() || `exit ${load.code}`;
      if (grubUnavailable(facts)) throw new UserError(`kexec -l on ${name} failed: ${said}\nby hand: ${kexecLoadCommand(facts, files)}`);
      fellBack = said;
      method = 'grub-reboot';
    }
  }
  if (method === 'kexec') {
    const command = kexecExecCommand(facts, before);
    await run(shell, command, 'starting the kernel (kexec -e)', name);
    return { method, command: facts.systemd ? 'systemctl kexec' : 'kexec -e', fellBack };
  }
  await run(shell, grubEntryScript(files, token, title), 'adding the one-shot GRUB entry', name);
  await run(shell, rebootCommand(facts, before), 'rebooting', name);
  return { method, command: `grub-reboot ${grubEntryId(token)} && reboot`, fellBack };
}
