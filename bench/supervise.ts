/**
 * What the process supervisor costs and how fast it cleans up: the wall time
 * to start and finish `true` directly and under the supervisor, and the time
 * from `kill -9` of a Node process running a spawn site until every process
 * below it is gone (test/proc/fixtures/spawn-site.ts; stress-ng skipped when
 * missing). Prints medians and ranges in ms with the load average.
 *
 *   node --import tsx bench/supervise.ts [starts] [kills]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSupervised } from '../src/proc/supervise.ts';
import { isAlive, waitForTree, type Proc } from '../test/helpers/procs.ts';

const starts = Number(process.argv[2] ?? 40);
const kills = Number(process.argv[3] ?? 3);
const SITE = fileURLToPath(new URL('../test/proc/fixtures/spawn-site.ts', import.meta.url));

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
const summary = (xs: number[]): string => {
  const s = sorted(xs);
  return `median ${s[Math.floor(s.length / 2)]?.toFixed(1)} ms, range ${s[0]?.toFixed(1)} .. ${s[s.length - 1]?.toFixed(1)} ms (n=${s.length})`;
};

async function timeStarts(start: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < starts; i++) {
    const t0 = performance.now();
    await start();
    ms.push(performance.now() - t0);
  }
  return ms;
}

const direct = (): Promise<unknown> => new Promise((r) => spawn('true', [], { stdio: ['ignore', 'pipe', 'pipe'] }).on('close', r));
const supervised = (): Promise<unknown> => spawnSupervised(['true']).exit;
await supervised(); // compile or find the cached supervisor first
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`start+exit of true, direct:     ${summary(await timeStarts(direct))}`);
console.log(`start+exit of true, supervised: ${summary(await timeStarts(supervised))}`);

const ready: Record<string, (procs: Proc[]) => boolean> = {
  supervise: (p) => p.filter((x) => x.comm === 'sleep').length >= 4,
  make: (p) => p.filter((x) => x.comm === 'sleep').length >= 2,
  'stress-ng': (p) => p.filter((x) => x.comm.startsWith('stress-ng')).length >= 3,
};
const haveStressNg = spawnSync('stress-ng', ['--version']).status === 0;
for (const site of Object.keys(ready).filter((s) => s !== 'stress-ng' || haveStressNg)) {
  const ms: number[] = [];
  for (let i = 0; i < kills; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'hintlab-bench-'));
    const node = spawn(process.execPath, ['--import', 'tsx', SITE, site, dir], { stdio: 'ignore' });
    const procs = await waitForTree(node.pid ?? 0, ready[site] ?? (() => true));
    const t0 = performance.now();
    node.kill('SIGKILL');
    while (procs.some(isAlive)) await new Promise((r) => setTimeout(r, 5));
    ms.push(performance.now() - t0);
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`kill -9 to all gone, ${site}: ${summary(ms)}`);
}
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
