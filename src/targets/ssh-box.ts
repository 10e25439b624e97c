/**
 * A box over ssh that boots kernels between runs (BootableTarget): jobs run
 * on its SshTarget, and `boot` copies a kernel there, starts it
 * (./box-boot.ts), waits for ssh on the new boot (./box-wait.ts), checks
 * the kernel, and moves the target onto the new connection. `returnHome`
 * boots the kernel the box started on ("home", recorded at the start of a
 * session): by kexec when its image is in /boot, else by a plain reboot to
 * the default entry.
 *
 * Invariant: whenever this box leaves the machine on a kernel other than
 * home, the box's watchdog (./box-watchdog.ts) is armed and hintlab's
 * heartbeat runs to it, so the box returns home by itself once hintlab is
 * gone (kill -9 included). The one gap is the wait for ssh after a boot
 * command: the watchdog of the old kernel is gone, the new one not armed
 * until the box answers (it is armed before anything else then).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SysReader } from '../environment/reader.ts';
import { UserError } from '../errors.ts';
import { type BootFiles, type BootStart, BOOT_LOG, copyToBox, grubCleanupScript, kexecUnavailable, privilegesFor, rebootCommand, startBoot, testCmdline } from './box-boot.ts';
import { bootToken, type BoxFacts, missingPrivilege, ownCmdline, readFacts } from './box-facts.ts';
import { type Expected, mismatch, waitForNewBoot } from './box-wait.ts';
import { armWatchdog, cancelWatchdogCommand, type Watchdog } from './box-watchdog.ts';
import { kernelIdentity } from './bzimage.ts';
import { remotePath, type SshConnection } from './ssh-connection.ts';
import { SshTarget, type SshTargetOptions } from './ssh.ts';
import type { SshAddress } from './ssh-address.ts';
import type { BootableTarget, BootReport, KernelImage, TargetExit, TargetJob } from './target.ts';
import { formatSecondsOfMs } from '../format/durations.ts';

/** The kernel a box started on, recorded once per session: where it must end. */
export interface HomeKernel {
  release: string;
  version: string;
  cmdline: string;
  bootId: string;
  hostname: string;
  /** Its image and initrd in /boot, when there (the way back by kexec). */
  bootImage: string | null;
  bootInitrd: string | null;
}

export function homeOf(f: BoxFacts): HomeKernel {
  return { release: f.release, version: f.version, cmdline: f.cmdline, bootId: f.bootId, hostname: f.hostname, bootImage: f.bootImage, bootInitrd: f.bootInitrd };
}

/** Tokens of boots that return a box home start so; a step's token never does. */
const HOME_TOKEN = 'home-';

/** Whether `f` shows the box on its home kernel: its release and build, its own command line, no test boot's token. */
export function atHome(f: BoxFacts, home: HomeKernel): boolean {
  const token = bootToken(f.cmdline);
  return f.release === home.release && (!home.version || f.version === home.version) && ownCmdline(f.cmdline) === ownCmdline(home.cmdline) && (token === null || token.startsWith(HOME_TOKEN));
}

export interface SshBoxOptions {
  /** How long a boot may take, from the boot command to ssh answering on the new boot (default 300). */
  bootTimeoutSeconds?: number;
  /** A box still on its old boot this long after the command never went down (default 90). */
  downBoundSeconds?: number;
  /** The watchdog's bound; null: no watchdog (tests of the boot alone). */
  watchdogSeconds: number | null;
  /** The kernel the box started on (a resumed session's); default: the one it runs at connection. */
  home?: HomeKernel;
  /** Progress lines: each wait's attempts, the copies. */
  onProgress?(line: string): void;
}

export class SshBox implements BootableTarget {
  readonly kind = 'remote' as const;
  readonly name: string;
  private watchdog: Watchdog | null = null;

  private constructor(
    readonly target: SshTarget,
    private current: BoxFacts,
    readonly home: HomeKernel,
    private readonly opts: SshBoxOptions,
  ) {
    this.name = target.name;
  }

  /** Log in and read the running kernel; a box away from home (a resumed session) gets its watchdog at once. */
  static async connect(url: string | SshAddress, targetOpts: SshTargetOptions, opts: SshBoxOptions): Promise<SshBox> {
    const target = await SshTarget.connect(url, targetOpts);
    try {
      const facts = await readFacts(target.connection, target.name);
      const box = new SshBox(target, facts, opts.home ?? homeOf(facts), opts);
      if (!atHome(facts, box.home)) await box.arm();
      return box;
    } catch (err) {
      await target.close();
      throw err;
    }
  }

  /** The running kernel as last read (at connection or after the last boot). */
  get facts(): BoxFacts {
    return this.current;
  }

  get isHome(): boolean {
    return atHome(this.current, this.home);
  }

  run(job: TargetJob, onLine: (line: string) => void, abort: AbortSignal): Promise<TargetExit> {
    return this.target.run(job, onLine, abort);
  }

  reader(): Promise<SysReader> {
    return this.target.reader();
  }

  private async arm(): Promise<void> {
    if (this.opts.watchdogSeconds === null) return;
    this.watchdog = await armWatchdog(this.target.connection, this.current, this.opts.watchdogSeconds, this.name);
  }

  /** The heartbeat stopped, and the shell text that cancels every watchdog on the box (run with the boot command). */
  private async disarming(): Promise<string> {
    await this.watchdog?.stopBeating();
    this.watchdog = null;
    return cancelWatchdogCommand();
  }

  /** Leave the box on the kernel it runs: cancel its watchdog (the user asked to keep it). */
  async disarm(): Promise<void> {
    await this.target.connection.exec(await this.disarming());
  }

  /** Copy `kernel` (and its initrd) to the box: the files to boot. */
  private async files(kernel: KernelImage, release: string): Promise<{ files: BootFiles; copyMs: number }> {
    const started = Date.now();
    const conn = this.target.connection;
    const image = await copyToBox(conn, kernel.image, `kernel ${kernel.label}`, this.name);
    this.opts.onProgress?.(`kernel ${kernel.label}: ${image.copied ? 'copied' : 'already'} at ${image.path}`);
    let initrd: string | null = null;
    if (kernel.initrd) {
      initrd = (await copyToBox(conn, kernel.initrd, `the initrd of kernel ${kernel.label}`, this.name)).path;
    } else if ((await conn.exec(`[ -e /boot/initrd.img-${release} ]`)).code === 0) {
      initrd = `/boot/initrd.img-${release}`;
    } else {
      this.opts.onProgress?.(`kernel ${kernel.label}: no initrd (the box has no /boot/initrd.img-${release}; give --initrd ${kernel.label}=FILE if the kernel needs one to mount its root)`);
    }
    const cmdline = testCmdline(this.home.cmdline, kernel.append, kernel.token);
    return { files: { image: image.path, initrd, cmdline }, copyMs: Date.now() - started };
  }

  /** Boot a test kernel; resolves once the box answers on it (checked), with its watchdog armed. */
  async boot(kernel: KernelImage, abort: AbortSignal): Promise<BootReport> {
    if (kernel.token.startsWith(HOME_TOKEN)) throw new Error(`internal: a test kernel's token cannot start with ${HOME_TOKEN}`);
    const id = kernelIdentity(kernel.image);
    const release = kernel.release ?? id?.release;
    if (!release) throw new UserError(`kernel ${kernel.label}: ${kernel.image} names no release in its boot header; pass a bzImage or vmlinuz`);
    const { files, copyMs } = await this.files(kernel, release);
    const cancel = await this.disarming();
    const started = Date.now();
    const start = await startBoot(this.target.connection, this.current, files, kernel.token, `hintlab ${kernel.label} ${release}`, this.name, cancel);
    const want: Expected = { what: `kernel ${kernel.label} did not come up on ${this.name}`, release, version: id?.release === release ? id.version : '', token: kernel.token };
    return this.awaitBoot(start, started, copyMs, want, abort, true);
  }

  /**
   * Wait for the boot `start` began, move onto its connection, arm the
   * watchdog when away from home (unless the boot was the plain reboot to
   * the default entry: a watchdog could only reboot to it again), check it.
   */
  private async awaitBoot(start: BootStart, started: number, copyMs: number, want: Expected, abort: AbortSignal, armIfAway: boolean): Promise<BootReport> {
    // the old boot's connection goes down with it: closed now, so nothing waits on it (a Ctrl-C here logs in afresh)
    await this.target.connection.close();
    const login = await waitForNewBoot<SshConnection>({
      name: this.name,
      connect: () => this.target.openConnection(10),
      close: (c) => c.close(),
      oldBootId: this.current.bootId,
      startedAt: started,
      boundMs: (this.opts.bootTimeoutSeconds ?? 300) * 1000,
      downBoundMs: (this.opts.downBoundSeconds ?? 90) * 1000,
      command: start.command,
      abort,
      onAttempt: (ms, what) => this.opts.onProgress?.(`  ${formatSecondsOfMs(ms)}: ${what}`),
      bootLog: async (c) => (await c.exec(`cat ${remotePath(BOOT_LOG)}`)).stdout.toString(),
    });
    await this.target.adopt(login.connection);
    this.current = login.facts;
    if (armIfAway && !this.isHome) await this.arm();
    if (start.method === 'grub-reboot') await this.target.connection.exec(grubCleanupScript());
    const wrong = mismatch(login.facts, want);
    if (wrong) throw new UserError(wrong);
    const f = login.facts;
    return { method: start.method, command: start.command, fellBack: start.fellBack, release: f.release, cmdline: f.cmdline, bootId: f.bootId, copyMs, waitedMs: login.waitedMs, downAfterMs: login.downAfterMs, attempts: login.attempts, watchdogSeconds: this.watchdog?.boundSeconds ?? null };
  }

  /**
   * Boot the home kernel (null when the box is home already): kexec back
   * to /boot's image when it is there and kexec works, else a plain reboot
   * to the default entry. Checked: release, build, command line.
   */
  async returnHome(abort: AbortSignal): Promise<BootReport | null> {
    this.current = await readFacts(this.target.connection, this.name);
    if (this.isHome) {
      await this.disarm();
      return null;
    }
    const h = this.home;
    const byKexec = h.bootImage !== null && kexecUnavailable(this.current) === null && missingPrivilege(this.current, privilegesFor('kexec', this.current), this.name) === null && (await this.target.connection.exec(`[ -e ${h.bootImage} ]`)).code === 0;
    const token = `${HOME_TOKEN}${randomBytes(3).toString('hex')}`;
    const want: Expected = { what: `${this.name} did not come back on the kernel it started on`, release: h.release, version: h.version, token: byKexec ? token : null, cmdline: h.cmdline };
    const cancel = await this.disarming();
    const started = Date.now();
    let start: BootStart;
    if (byKexec) {
      start = await startBoot(this.target.connection, this.current, { image: h.bootImage!, initrd: h.bootInitrd, cmdline: testCmdline(h.cmdline, undefined, token) }, token, `hintlab home ${h.release}`, this.name, cancel);
    } else {
      const denied = missingPrivilege(this.current, privilegesFor('reboot', this.current), this.name);
      if (denied) throw new UserError(denied);
      const r = await this.target.connection.exec(rebootCommand(this.current, cancel));
      if (r.code !== 0) throw new UserError(`rebooting ${this.name} failed (exit ${r.code}): ${r.stderr.trim() || 'no message'}`);
      start = { method: 'reboot', command: 'reboot', fellBack: null };
    }
    const report = await this.awaitBoot(start, started, 0, want, abort, start.method !== 'reboot');
    // one-shot entries left by a boot that never came back (each is used once, but its lines and files stay)
    if (this.current.uid === 0 && this.current.grubReboot) await this.target.connection.exec(grubCleanupScript());
    return report;
  }

  /**
   * Log in again when the connection dropped (a network cut, a box that
   * rebooted by itself or by its watchdog), trying for `boundSeconds`; the
   * running kernel is read afresh, and the watchdog armed again when the
   * box is away from home.
   */
  async ensureConnected(boundSeconds: number, abort: AbortSignal): Promise<void> {
    if (await this.target.connection.alive()) return;
    this.watchdog = null; // its heartbeat went with the connection
    const until = Date.now() + boundSeconds * 1000;
    let last = 'no attempt';
    while (Date.now() < until && !abort.aborted) {
      try {
        const conn = await this.target.openConnection(10);
        const facts = await readFacts(conn, this.name).catch(async (err: unknown) => {
          await conn.close();
          throw err;
        });
        await this.target.adopt(conn);
        this.current = facts;
        if (!this.isHome) await this.arm();
        return;
      } catch (err) {
        last = (err as Error).message.split('\n')[0] ?? String(err);
        this.opts.onProgress?.(`  logging in again: ${last}`);
        await sleep(2000);
      }
    }
    throw new UserError(`the connection to ${this.name} was lost, and logging in again did not work for ${boundSeconds} s (last: ${last})`);
  }

  /** Stop the heartbeat and close the connection. The watchdog, if armed, keeps counting on the box: it returns the box home. */
  async close(): Promise<void> {
    await this.watchdog?.stopBeating();
    await this.target.close();
  }
}
