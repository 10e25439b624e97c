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
