/**
 * What `hintlab hints collect` prints at the end, as snapshots of hand-built
 * coverage records: a gcov set of some directories, a branch-profiler set
 * with a reused build, and one with .gcda files that had no .gcno.
 */
import { test } from 'node:test';
import { collectSummary } from '../../src/report/hints-collect.ts';
import type { CoverageRecord } from '../../src/hints/collect/collect.ts';
import { assertSnapshot } from './snapshot.ts';

function record(over: Partial<CoverageRecord> = {}): CoverageRecord {
  return {
    format: 'hintlab-coverage',
    version: 1,
    name: 'sched',
    source: { dir: '/src/linux-6.12', version: '6.12.118' },
    scope: { kind: 'dirs', dirs: ['kernel/sched', 'fs'] },
    counter: 'gcov',
    workload: 'profiles getppid,sched_yield',
    kernel: { release: '6.12.118', buildDir: '/cache/b', configSha256: 'c0', compiler: 'gcc 12.2.0' },
    accel: 'tcg (no usable KVM)',
    gcov: 'gcov 12.2.0',
    gcdaFiles: 212,
    gcdaBytes: 4_915_712,
    rejoinedLines: 0,
    withoutGcno: [],
    jsonFiles: ['a.gcov.json.gz', 'b.gcov.json.gz'],
    seconds: { build: 257.4, buildReused: false, boot: 7.49, transfer: 1.26, gcov: 3.04 },
    collectedAt: '2026-12-04T12:00:00.000Z',
    ...over,
  };
}

test('the collect summary says what was profiled, what came back, where it went, how long each part took and the next command', () => {
  const texts = [
    collectSummary(record(), '/data/coverage/sched', '/src'),
    collectSummary(record({ counter: 'branch-profiler', name: 'all ifs', kernel: { release: '6.12.118-hintlab', buildDir: '/b', configSha256: 'c', compiler: 'gcc' }, seconds: { build: 341, buildReused: true, boot: 12.5, transfer: 0.44, gcov: 0 } }), '/data/coverage/all ifs', '/home/me'),
    collectSummary(record({ scope: { kind: 'all' }, withoutGcno: ['x.gcda', 'y.gcda', 'z.gcda', 'w.gcda'] }), 'out', '/src/linux-6.12'),
  ];
  assertSnapshot('hints-collect-summary', texts.join('---\n'));
});

test('an exact set says the kernel as built, the windows and jumps, the time after the boot, and why lines are missing when they are', () => {
  const exact = (over: Partial<NonNullable<CoverageRecord['exact']>>): CoverageRecord =>
    record({
      name: 'profiles',
      counter: 'exact',
      scope: { kind: 'all' },
      workload: 'profiles',
      kernel: { release: '6.12.118', buildDir: '/work/k612/A', configSha256: 'c0', compiler: 'gcc 12.2.0' },
      accel: 'tcg (the cost plugin needs TCG; icount and the fixed guest clock make the counts repeat)',
      gcov: 'not used',
      gcdaFiles: 0,
      gcdaBytes: 0,
      jsonFiles: ['branches.json'],
      seconds: { build: 145.6, buildReused: false, boot: 7.68, transfer: 0, gcov: 2.5 },
      exact: { windows: 28, branches: 1214, noLines: null, noInsns: null, kernelFrom: 'built', vmlinux: '/work/k612/A/vmlinux', plugin: 'c8fd', qemu: '7.2.22', seconds: { addr2line: 0.2, objdump: 2.3 }, ...over },
    });
  const texts = [
    collectSummary(exact({}), '/data/coverage/profiles-exact', '/src/linux-6.12'),
    collectSummary(exact({ kernelFrom: 'given', windows: 1, noLines: '/k/vmlinux has no DWARF line table (build with debug info: hintlab\'s fragment sets DEBUG_INFO_DWARF5); branches are placed by function and offset only', noInsns: 'objdump -d /k/vmlinux failed (spawn objdump ENOENT); install binutils' }), 'out', '/home/me'),
  ];
  assertSnapshot('hints-collect-exact-summary', texts.join('---\n'));
});
