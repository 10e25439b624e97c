/**
 * Benchmark: `hintlab hints --static` over kernel/, mm/ and fs/ of Debian's
 * linux-source-6.12 (target: at most 60 s on 2 cores). Usage:
 *
 *   node --import tsx bench/hints-static.ts /path/to/linux-source-6.12 [jobs] [repeats]
 *
 * Prints wall-clock and CPU seconds (all threads) per repeat, min and median
 * wall time, and the load average: on a shared machine wall time follows the
 * load, CPU time does not.
 */
import { availableParallelism, loadavg } from 'node:os';
import { analyzeHints } from '../src/hints/analyze.ts';

const root = process.argv[2];
if (!root) {
  process.stderr.write('usage: bench/hints-static.ts LINUX_SOURCE_DIR [jobs]\n');
  process.exit(2);
}
const jobs = Number(process.argv[3] ?? availableParallelism());
const repeats = Number(process.argv[4] ?? 3);
const seconds: number[] = [];
let summary = '';
for (let i = 0; i < repeats; i++) {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const result = await analyzeHints({
    root,
    workloads: [],
    paths: ['kernel', 'mm', 'fs'],
    thresholds: { minBias: 0.99, minHits: 1000 },
    jobs,
  });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  seconds.push(s);
  summary = `${result.sources.length} files, ${result.sitesTotal} ifs, ${result.rows.length} heuristic candidates`;
  process.stdout.write(`repeat ${i + 1}: ${s.toFixed(1)} s wall, ${cpuS.toFixed(1)} s CPU (load average ${loadavg()[0]?.toFixed(1)})\n`);
}
const sorted = [...seconds].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
process.stdout.write(`${summary}; jobs ${jobs}; wall min ${sorted[0]?.toFixed(1)} s, median ${median?.toFixed(1)} s\n`);
