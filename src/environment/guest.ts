/**
 * The environment record of a VM run (tagged `where: 'guest'`): the host's
 * facts from the host recorder (hostname, host CPU, probe build), with the
 * kernel part replaced by the guest's and a `vm` part saying which kernel,
 * which boot, which accelerator, and whether the clock counted instructions.
 */
import type { Known } from '../model.ts';
import { collectEnvironment } from './host.ts';
import type { SysReader } from './reader.ts';
import type { Accel, EnvWarning, GuestEnvironment, ProbeFacts, VmFacts } from './record.ts';

/**
 * The top-level fields of a VM run's environment that describe the guest:
 * its kernel (from the probe's hello line and the boot command line), the
 * qemu mode, the CPU the probe pinned itself to, the probe and stress-ng
 * that ran inside it. Every other field (hostname, CPU model, microcode,
 * CPUs, SMT, governor, isolation, vulnerabilities, load) was read on the
 * host that ran qemu.
 */
const GUEST_FIELDS: ReadonlySet<string> = new Set(['kernel', 'virtualization', 'vm', 'pinnedCpu', 'probe', 'injectSeccomp', 'stressNg']);

/** Which machine a top-level field of a VM run's environment describes. */
export function guestFieldSide(field: string): 'guest' | 'host' {
  return GUEST_FIELDS.has(field) ? 'guest' : 'host';
}

/** What the guest record needs of the kernel it boots (a vm/kernels.ts VmKernel). */
export interface GuestKernelSource {
  configHash: Known<string>;
  manifest: { compiler: string } | null;
}

/** What the guest record needs of the probe's hello line (src/launch/probe-protocol.ts). */
export interface GuestHello {
  kernel: string;
  version: string;
}

const unknownUntilBoot: Known<string> = { known: false, reason: 'the guest has not reported it yet (no hello line)' };

/**
 * Warnings that matter for this kind of guest clock. Under icount the
 * numbers count instructions, which host frequency, load or turbo cannot
 * change, so host noise warnings are dropped; under plain TCG the clock is
 * emulation speed, which is said once.
 */
function vmWarnings(host: EnvWarning[], accel: Accel, icount: boolean): EnvWarning[] {
  if (icount) return [];
  if (accel === 'tcg') {
    return [
      ...host.filter((w) => w.kind !== 'virtualized'),
      { kind: 'virtualized', message: 'TCG without --icount: guest times are emulation times (emulated time, not ns), useful only as ratios between kernels' },
    ];
  }
  return host;
}

export function vmEnvironment(opts: {
  probe: ProbeFacts;
  kernel: GuestKernelSource;
  facts: VmFacts;
  append: string;
  reader?: SysReader;
}): GuestEnvironment {
  const host = collectEnvironment({ probe: opts.probe, pinnedCpu: 0, injectSeccomp: null, reader: opts.reader });
  const { accel, icount } = opts.facts;
  const model: Known<string> = host.cpu.model.known
    ? { known: true, value: `${host.cpu.model.value} (host; guest under qemu ${accel}${icount ? ' with icount' : ''})` }
    : host.cpu.model;
  return {
    ...host,
    where: 'guest',
    kernel: {
      release: unknownUntilBoot,
      version: unknownUntilBoot,
      cmdline: { known: true, value: opts.append },
      preemption: unknownUntilBoot,
      configHash: opts.kernel.configHash,
      compiler: opts.kernel.manifest
        ? { known: true, value: opts.kernel.manifest.compiler }
        : { known: false, reason: 'not built by hintlab kernel build (no manifest)' },
    },
    cpu: { ...host.cpu, model },
    virtualization: { known: true, value: `qemu ${accel} (guest)` },
    // the guest's CPU 0, where the probe pins itself
    pinnedCpu: 0,
    warnings: vmWarnings(host.warnings, accel, icount),
    vm: opts.facts,
  };
}

/** The guest kernel's facts from the probe's hello line. */
export function guestKernel(hello: GuestHello, before: GuestEnvironment['kernel']): GuestEnvironment['kernel'] {
  const v = hello.version;
  const preemption = v.includes('PREEMPT_DYNAMIC')
    ? 'dynamic'
    : v.includes('PREEMPT_RT')
      ? 'full (PREEMPT_RT)'
      : /\bPREEMPT\b/.test(v)
        ? 'full'
        : 'none or voluntary (PREEMPT not in the version string)';
  return {
    ...before,
    release: { known: true, value: hello.kernel },
    version: { known: true, value: v },
    preemption: { known: true, value: preemption },
  };
}
