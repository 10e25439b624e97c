import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { collectEnvironment, finishEnvironment, parseCpuList } from '../../src/environment/host.ts';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { fakeSys } from './fake-sys.ts';

const probe: ProbeBuild = { path: '/x', static: false, buildId: 'b1', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-O2'] };

test('a quiet, tuned bare-metal machine gives known values and no warnings', () => {
  const env = collectEnvironment({ probe, pinnedCpu: 1, injectSeccomp: null, reader: fakeSys() });
  assert.deepEqual(env.kernel.release, { known: true, value: '6.12.0-test' });
  assert.deepEqual(env.cpu.model, { known: true, value: 'Test CPU @ 3.00GHz' });
  assert.deepEqual(env.kernel.compiler, { known: true, value: 'x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40' });
  assert.deepEqual(env.cpu.microcode, { known: true, value: '0x2b' });
  assert.deepEqual(env.cpu.boost, { known: true, value: 'off (intel_pstate/no_turbo=1)' });
  assert.deepEqual(env.virtualization, { known: true, value: 'none' });
  assert.deepEqual(env.load.start, { known: true, value: [0.1, 0.2, 0.3] });
  assert.deepEqual(env.vulnerabilities, { known: true, value: { meltdown: 'Not affected' } });
  assert.deepEqual(env.warnings, []);
});

test('unreadable facts are recorded as unknown with the reason, never guessed', () => {
  const env = collectEnvironment({ probe, pinnedCpu: 0, injectSeccomp: null, reader: fakeSys({}) });
  assert.equal(env.cpu.governor.known, false);
  assert.match(env.cpu.governor.reason, /cpu0\/cpufreq\/scaling_governor: ENOENT/);
  assert.equal(env.kernel.configHash.known, false);
  assert.equal(env.isolation.nohzFull.known, false);
});

test('the kernel config hash is the sha256 of /proc/config.gz contents', () => {
  const config = 'CONFIG_SMP=y\n';
  const sys = fakeSys();
  const base = sys.read.bind(sys);
  sys.read = (p) => (p === '/proc/config.gz' ? { ok: true, data: gzipSync(config) } : base(p));
  const env = collectEnvironment({ probe, pinnedCpu: 1, injectSeccomp: null, reader: sys });
  const want = createHash('sha256').update(config).digest('hex').slice(0, 16);
  assert.deepEqual(env.kernel.configHash, { known: true, value: `sha256:${want} (/proc/config.gz)` });
});

test('turbo on, a powersave governor, a hypervisor and load produce typed warnings', () => {
  const sys = fakeSys({
    '/sys/devices/system/cpu/intel_pstate/no_turbo': '0\n',
    '/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor': 'powersave\n',
    '/proc/cpuinfo': 'model name\t: X\nflags\t\t: fpu hypervisor\n',
    '/proc/loadavg': '1.50 0.20 0.30 1/100 1234\n',
  });
  const env = collectEnvironment({ probe, pinnedCpu: 1, injectSeccomp: null, reader: sys });
  assert.deepEqual(env.warnings.map((w) => w.kind), ['turbo-on', 'governor', 'virtualized', 'load']);
  const quiet = fakeSys({ '/proc/loadavg': '0.00 0.00 0.00 1/1 1\n' });
  const done = finishEnvironment(env, quiet);
  assert.deepEqual(done.load.end, { known: true, value: [0, 0, 0] });
});

test('kernel CPU lists expand ranges', () => {
  assert.deepEqual(parseCpuList('0-2,5,7-8'), [0, 1, 2, 5, 7, 8]);
  assert.deepEqual(parseCpuList('3'), [3]);
});
