/** A fake /proc and /sys for environment and runner tests. */
import type { SysReader } from '../../src/environment/reader.ts';

export function fakeSys(files: Record<string, string> = {}, host = 'testhost'): SysReader {
  const all: Record<string, string> = {
    '/proc/sys/kernel/osrelease': '6.12.0-test\n',
    '/proc/sys/kernel/version': '#1 SMP PREEMPT_DYNAMIC Debian\n',
    '/proc/cmdline': 'console=ttyS0 quiet\n',
    '/proc/version': 'Linux version 6.12.0-test (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian\n',
    '/proc/cpuinfo': 'processor\t: 0\nmodel name\t: Test CPU @ 3.00GHz\nmicrocode\t: 0x2b\nflags\t\t: fpu sse2\n',
    '/proc/self/status': 'Name:\tnode\nCpus_allowed_list:\t0-1\n',
    '/sys/devices/system/cpu/online': '0-1\n',
    '/sys/devices/system/cpu/smt/active': '0\n',
    '/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor': 'performance\n',
    '/sys/devices/system/cpu/intel_pstate/no_turbo': '1\n',
    '/sys/devices/system/cpu/isolated': '\n',
    '/proc/loadavg': '0.10 0.20 0.30 1/100 1234\n',
    '/sys/devices/system/cpu/vulnerabilities/meltdown': 'Not affected\n',
    ...files,
  };
  return {
    read: (p) => (p in all ? { ok: true, data: Buffer.from(all[p]!) } : { ok: false, reason: `${p}: ENOENT` }),
    list: (p) => {
      const names = Object.keys(all).filter((k) => k.startsWith(`${p}/`)).map((k) => k.slice(p.length + 1));
      return names.length ? names.sort() : null;
    },
    hostname: () => host,
  };
}
