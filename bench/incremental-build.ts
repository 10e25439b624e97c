/**
 * How long does B take when it starts from A (`kernel build --from`)? Builds
 * A from scratch (Debian's linux-source-6.12, tinyconfig + hintlab's
 * fragment, -O2), then B = A + a one-file patch (a loop in
 * sched_getscheduler, kernel/sched/syscalls.c) --from A, N times into fresh
 * directories; prints the wall time of each build, the objects kbuild
 * compiled (its "  CC" lines in build.log), and B's time as a share of A's.
 * Builds run under `nice -n 10` through the real CLI; the load average is
 * printed before and after, since on a shared machine wall time is mostly
 * waiting for a CPU. Goal: B within 15 % of A.
 *
 *   node --import tsx bench/incremental-build.ts [--src TREE] [--work DIR] [--b-runs 3] [--jobs N]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testKernelTree } from '../test/codegen/kernel-tree.ts';
import { compiledObjects, schedSlowdownPatch } from '../test/helpers/sched-patch.ts';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
}

const src = arg('--src', '') || testKernelTree();
const work = mkdtempSync(join(arg('--work', tmpdir()), 'hintlab-incremental-'));
const bRuns = Number(arg('--b-runs', '3'));
const jobs = arg('--jobs', String(availableParallelism()));
const cli = [fileURLToPath(new URL('../src/cli/entry.ts', import.meta.url))];
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

interface Build {
  seconds: number;
  objects: number;
}

function build(out: string, label: string, extra: string[]): Build {
  const started = process.hrtime.bigint();
  const r = spawnSync('nice', ['-n', '10', process.execPath, '--import', 'tsx', ...cli, 'kernel', 'build', '--src', src, '--out', out, '--label', label, '--jobs', jobs, ...extra], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`kernel build ${label} failed (exit ${r.status}):\n${r.stderr}`);
  process.stderr.write(`${r.stdout.split('\n')[0] ?? ''}\n`);
  return { seconds, objects: compiledObjects(join(out, 'build.log')).length };
}

try {
  mkdirSync(join(work, 'patch'));
  const patch = schedSlowdownPatch(src, join(work, 'patch'));
  console.log(`tree: ${src}\nmachine: ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), make -j${jobs}, builds under nice -n 10`);
  console.log(`load average before: ${load()}`);
  const a = build(join(work, 'A'), 'A', []);
  console.log(`A (full build):              ${a.seconds.toFixed(1)} s, ${a.objects} objects compiled (load now ${load()})`);
  const bs: Build[] = [];
  for (let k = 1; k <= bRuns; k++) {
    const b = build(join(work, `B${k}`), `B${k}`, ['--patch', patch, '--from', join(work, 'A')]);
    bs.push(b);
    console.log(`B${k} (--from A, 1-file patch): ${b.seconds.toFixed(1)} s, ${b.objects} objects compiled, ${((100 * b.seconds) / a.seconds).toFixed(1)} % of A (load now ${load()})`);
    rmSync(join(work, `B${k}`), { recursive: true, force: true });
  }
  const sorted = bs.map((b) => b.seconds).sort((x, y) => x - y);
  const med = sorted[Math.floor(sorted.length / 2)]!;
  console.log(`B median ${med.toFixed(1)} s (range ${sorted[0]!.toFixed(1)}-${sorted.at(-1)!.toFixed(1)} s over ${bs.length} builds): ${((100 * med) / a.seconds).toFixed(1)} % of A; goal <= 15 %`);
  console.log(`load average after: ${load()}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
