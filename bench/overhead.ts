/**
 * Does the harness add cost? Interleaves hintlab's getppid profile with a
 * minimal hand-written C loop (bench/c/getppid-loop.c) and, where installed,
 * `perf bench syscall basic`, on the same pinned CPU, and prints the ratio
 * hintlab / hand loop with its 95 % confidence interval.
 *
 *   node --import tsx bench/overhead.ts [--pairs 15] [--ops 200000] [--cpu N]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProbe } from '../src/launch/probe-build.ts';
import { parseLine } from '../src/launch/probe-protocol.ts';
import { isSample, mean, median, stdev } from '../src/stats/descriptive.ts';
import { studentTQuantile } from '../src/stats/distributions.ts';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

const pairs = arg('--pairs', 15);
const ops = arg('--ops', 200_000);
const allowed = execFileSync('nproc').toString().trim();
const cpu = arg('--cpu', Number(allowed) - 1);

const here = dirname(fileURLToPath(import.meta.url));
const hand = join(mkdtempSync(join(tmpdir(), 'hintlab-overhead-')), 'getppid-loop');
execFileSync('cc', ['-O2', '-Wall', '-Werror', '-o', hand, join(here, 'c/getppid-loop.c')]);
const probe = buildProbe();

function handNs(): number {
  const [elapsed, n] = execFileSync(hand, [String(cpu), String(ops)]).toString().trim().split(' ').map(Number);
  return elapsed! / n!;
}

function probeNs(): number {
  const out = execFileSync(probe.path, ['--cpu', String(cpu), '--warmups', '1', '--rounds', '1', '--profile', `getppid:${ops}`]).toString();
  for (const line of out.split('\n')) {
    const p = parseLine(line);
    if (p.kind === 'event' && p.event.type === 'round' && !p.event.warmup) return p.event.elapsed / p.event.ops;
  }
  throw new Error(`no measured round in probe output:\n${out}`);
}

function perfNs(): number | null {
  const r = spawnSync('taskset', ['-c', String(cpu), 'perf', 'bench', 'syscall', 'basic', '--loop', String(ops)], { encoding: 'utf8' });
  const m = /([\d.]+) usecs\/op/.exec(r.stdout || '');
  return r.status === 0 && m ? Number(m[1]) * 1000 : null;
}

function ci(xs: number[]): string {
  if (!isSample(xs)) return 'n/a';
  const m = mean(xs);
  const half = (studentTQuantile(0.975, xs.length - 1) * stdev(xs)) / Math.sqrt(xs.length);
  return `${m.toFixed(4)} (95 % CI ${(m - half).toFixed(4)} to ${(m + half).toFixed(4)}, median ${median(xs).toFixed(4)})`;
}

const ratios: number[] = [];
const perfRatios: number[] = [];
const hands: number[] = [];
for (let i = 0; i < pairs; i++) {
  // alternate which goes first so slow drift does not favour one side
  const first = i % 2 === 0;
  const h1 = first ? handNs() : 0;
  const p = probeNs();
  const h = first ? h1 : handNs();
  const perf = perfNs();
  hands.push(h);
  ratios.push(p / h);
  if (perf !== null) perfRatios.push(perf / h);
}
const m = isSample(hands) ? mean(hands) : NaN;
console.log(`getppid on CPU ${cpu}, ${pairs} interleaved pairs of ${ops} calls`);
console.log(`hand-written loop: ${m.toFixed(1)} ns/call (CV ${isSample(hands) ? ((100 * stdev(hands)) / m).toFixed(2) : 'n/a'} %)`);
console.log(`hintlab / hand loop ratio: ${ci(ratios)}`);
console.log(perfRatios.length ? `perf bench syscall basic / hand loop ratio: ${ci(perfRatios)}` : 'perf bench syscall basic: not available');
