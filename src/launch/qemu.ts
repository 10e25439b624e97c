/**
 * One guest boot in qemu-system-x86_64: the command line, and a launcher
 * that streams the serial console line by line, enforces the timeout, and
 * kills qemu on timeout or abort (Ctrl-C). qemu runs under the process
 * supervisor (src/proc/supervise.ts), so it also dies with hintlab, even
 * after `kill -9` of hintlab.
 *
 * The launcher sits behind `VmLauncher` so the A/B/A runner can be tested
 * with a scripted guest; the real one is `qemuLauncher()`.
 */
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Accel } from '../environment/record.ts';
import { UserError } from '../errors.ts';
import { spawnSupervised } from '../proc/supervise.ts';

/** A qemu accelerator; defined with the environment record that stores it. */

/** What to boot and how. */
export interface QemuSpec {
  kernel: string;
  initrd: string;
  accel: Accel;
  /** `-icount shift=0,sleep=off`: the guest clock counts one ns per guest instruction. */
  icount: boolean;
  cpus: number;
  memoryMiB: number;
  /** Kernel command line. */
  append: string;
  /** `-plugin` argument (the cost plugin, src/vm/cost-plugin.ts); needs TCG. */
  plugin?: string;
}

/**
 * Under icount the guest's real-time clock starts at a fixed date and runs
 * on the virtual clock: the host's date and time then cannot reach the guest,
 * and boots of one kernel repeat instruction for instruction (docs/vm.md).
 */
export const FIXED_RTC = ['-rtc', 'base=2020-01-01T00:00:00,clock=vm'];

export const QEMU_BINARY = 'qemu-system-x86_64';

/** The kernel command line every boot uses: serial console, no KASLR, panic ends qemu at once. */
export const BASE_APPEND = 'console=ttyS0 panic=-1 quiet nokaslr';

/** The full argv (binary first) for one boot. */
export function qemuCommand(spec: QemuSpec, binary = QEMU_BINARY): string[] {
  const accel = spec.accel === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host'] : ['-accel', 'tcg'];
  // shift=0: one guest ns per instruction; sleep=off: idle time is skipped, not waited for
  const icount = spec.icount ? ['-icount', 'shift=0,sleep=off', ...FIXED_RTC] : [];
  const plugin = spec.plugin ? ['-plugin', spec.plugin] : [];
  return [
    binary,
    // no NIC, VGA or disks: nothing to probe at boot, and no option ROMs to load
    '-nodefaults',
    '-nographic',
    '-monitor', 'none',
    '-serial', 'stdio',
    // the probe reboots with RB_AUTOBOOT at the end; -no-reboot turns that into qemu exiting
    '-no-reboot',
    ...accel,
    ...icount,
    ...plugin,
    '-smp', String(spec.cpus),
    '-m', `${spec.memoryMiB}M`,
    '-kernel', spec.kernel,
    '-initrd', spec.initrd,
    '-append', spec.append,
  ];
}

/** How a boot ended, as seen from the host. */
export type BootEnd =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'timeout'; seconds: number }
  | { kind: 'aborted' };

export interface BootResult {
  end: BootEnd;
  /** The last lines of the serial console (escape sequences removed). */
  consoleTail: string[];
  /** qemu's own stderr (e.g. "could not load kernel"). */
  stderrTail: string[];
  elapsedMs: number;
}

export interface BootRequest {
  argv: string[];
  timeoutSeconds: number;
  onLine: (line: string) => void;
  abort: AbortSignal;
}

export interface VmLauncher {
  boot(req: BootRequest): Promise<BootResult>;
}

const TAIL_LINES = 25;
/** After the probe's `poweroff` line, qemu must be gone this soon; otherwise it is killed (a guest that halted instead). */
const POWEROFF_GRACE_MS = 10_000;

function pushTail(tail: string[], line: string): void {
  // strip ANSI/VT100 sequences SeaBIOS and the kernel write to the console
  const clean = line.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1bc/g, '').replace(/\r/g, '').trimEnd();
  if (!clean) return;
  tail.push(clean);
  if (tail.length > TAIL_LINES) tail.shift();
}

/** Fail early, with the package to install, when qemu is not there. */
export function requireQemu(binary = QEMU_BINARY): void {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new UserError(
      `${binary} is not available (${r.error?.message ?? `exit ${r.status}`}); ` +
        "install it with 'apt-get install qemu-system-x86'",
    );
  }
}

/** The real launcher: qemu under the supervisor, console on a pipe. */
export function qemuLauncher(): VmLauncher {
  return {
    boot(req) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const child = spawnSupervised(req.argv);
        const consoleTail: string[] = [];
        const stderrTail: string[] = [];
        let forced: BootEnd | null = null;
        const timers: NodeJS.Timeout[] = [];
        const stop = (why: BootEnd): void => {
          if (forced) return;
          forced = why;
          child.signal('SIGKILL');
        };
        timers.push(setTimeout(() => stop({ kind: 'timeout', seconds: req.timeoutSeconds }), req.timeoutSeconds * 1000));
        const onAbort = (): void => stop({ kind: 'aborted' });
        if (req.abort.aborted) onAbort();
        req.abort.addEventListener('abort', onAbort, { once: true });
        createInterface({ input: child.stdout }).on('line', (line) => {
          pushTail(consoleTail, line);
          if (line.includes('@hl1 poweroff ')) {
            timers.push(setTimeout(() => stop({ kind: 'exited', code: 0, signal: null }), POWEROFF_GRACE_MS));
          }
          req.onLine(line);
        });
        createInterface({ input: child.stderr }).on('line', (line) => pushTail(stderrTail, line));
        const finish = (): void => {
          for (const t of timers) clearTimeout(t);
          req.abort.removeEventListener('abort', onAbort);
        };
        child.exit.then(
          ({ code, signal }) => {
            finish();
            const end: BootEnd = forced ?? { kind: 'exited', code, signal };
            resolve({ end, consoleTail, stderrTail, elapsedMs: Date.now() - started });
          },
          (err: unknown) => {
            finish();
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      });
    },
  };
}
