/**
 * The LAVA job of one boot: deploy hintlab's kernel and its initramfs (the
 * static probe as /init, its arguments in /hintlab.args) to tmpfs, boot them
 * with LAVA's `qemu` method, and wait for the kernel's reboot line (after
 * the probe's last line) as the boot's "prompt". There is no test action:
 * the probe is the whole guest, and its checksummed lines (every round with its unit, docs/probe-protocol.md)
 * come back in the job's log as LAVA's `target` lines. Without a test action
 * LAVA builds no overlay, so no libguestfs and no shell in the guest.
 *
 * The definition is JSON, which LAVA reads as the YAML subset it is.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** sha256 of a file's content, hex: what a job's kernel is known by (`--resume`, the served URLs). */
export function fileSha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Under icount the guest clock is fixed and counts one ns per instruction (the same options as src/launch/qemu.ts). */
const ICOUNT_OPTIONS = ['-icount shift=0,sleep=off', '-rtc base=2020-01-01T00:00:00,clock=vm'];

/**
 * The kernel command line of a LAVA boot: src/launch/qemu.ts's BASE_APPEND without
 * `quiet`, since LAVA waits for the kernel's "Linux version" banner (a notice,
 * hidden by quiet); loglevel=6 keeps the info messages off the console.
 */
export const LAVA_APPEND = 'console=ttyS0,115200 panic=-1 loglevel=6 nokaslr';

/**
 * LAVA's prompt for the end of a boot (a regular expression): the kernel's
 * own words once the probe, after its last line (`@hl1 poweroff status=N`),
 * has called reboot(). Matching the kernel's line rather than the probe's
 * means the probe's line has come through whole, line end included (the
 * console reaches LAVA byte by byte, its line ends as `\r\r\n`).
 */
export const END_PROMPT = 'reboot: (Restarting system|Power down|System halted)';

export interface LavaBootJob {
  /** Shown in LAVA's job list: `hintlab vm-A-1 (kernel A, boot 1/6)`. */
  name: string;
  deviceType: string;
  /** Device tags the job asks for (LAVA picks a device that has them all). */
  tags?: string[];
  /** URLs the worker downloads (file:// on a worker on this machine, http(s):// otherwise). */
  kernelUrl: string;
  initrdUrl: string;
  icount: boolean;
  cpus: number;
  memoryMiB: number;
  /** The whole job, from submission to the end of the boot. */
  timeoutSeconds: number;
}

function minutes(seconds: number): { minutes: number } {
  return { minutes: Math.max(1, Math.ceil(seconds / 60)) };
}

/** The job as LAVA's definition text. */
export function lavaJobDefinition(job: LavaBootJob): string {
  const extra = [
    // the probe reboots at the end; without -no-reboot qemu would boot the kernel again and the probe run twice
    '-no-reboot',
    `-smp ${job.cpus}`,
    ...(job.icount ? ICOUNT_OPTIONS : []),
  ];
  const definition = {
    device_type: job.deviceType,
    job_name: job.name,
    priority: 'medium',
    visibility: 'public',
    ...(job.tags?.length ? { tags: job.tags } : {}),
    timeouts: { job: minutes(job.timeoutSeconds), action: minutes(job.timeoutSeconds), connection: minutes(job.timeoutSeconds) },
    context: { arch: 'amd64', memory: job.memoryMiB, extra_options: extra },
    actions: [
      {
        deploy: {
          to: 'tmpfs',
          timeout: minutes(Math.min(job.timeoutSeconds, 300)),
          images: {
            kernel: { image_arg: `-kernel {kernel} -append "${LAVA_APPEND}"`, url: job.kernelUrl },
            ramdisk: { image_arg: '-initrd {ramdisk}', url: job.initrdUrl },
          },
        },
      },
      {
        boot: {
          method: 'qemu',
          media: 'tmpfs',
          timeout: minutes(job.timeoutSeconds),
          failure_retry: 1,
          prompts: [END_PROMPT],
        },
      },
    ],
  };
  return `${JSON.stringify(definition, null, 2)}\n`;
}
