/**
 * Time `hintlab codegen` on the mincore example: linux-source-6.12
 * mm/mincore.o with the unlikely() patch, gcc at -O2 and -Os, after the
 * scratch output directories are configured (the first, untimed run does
 * that). Prints each run's wall time and the median.
 *
 *   node --import tsx bench/codegen-mincore.ts [runs]
 */
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { run } from '../src/cli/main.ts';
import type { CliIO } from '../src/cli/io.ts';
import { testKernelTree } from '../test/codegen/kernel-tree.ts';

const runs = Number(process.argv[2] ?? 5);
const tree = testKernelTree();
const patch = fileURLToPath(new URL('../test/codegen/fixtures/mincore-unlikely-6.12.patch', import.meta.url));
const argv = ['codegen', '--src', tree, '--patch', patch, '--obj', 'mm/mincore.o', '--opt', 'O2,Os'];
let out = '';
const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), isTTY: false, env: process.env, cwd: process.cwd() };

const warm = await run(argv, io);
if (warm !== 0) throw new Error(`warm-up run failed:\n${out}`);
const secs: number[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = process.hrtime.bigint();
  const code = await run(argv, io);
  secs.push(Number(process.hrtime.bigint() - t0) / 1e9);
  if (code !== 0) throw new Error(`run ${i} failed:\n${out}`);
}
const sorted = [...secs].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
process.stdout.write(`runs (s): ${secs.map((s) => s.toFixed(2)).join(' ')}\n`);
process.stdout.write(`median ${median.toFixed(2)} s, min ${sorted[0]?.toFixed(2)} s, max ${sorted[sorted.length - 1]?.toFixed(2)} s over ${runs} runs (2 cells x before/after = 4 object builds per run)\n`);
process.stdout.write(`load average during the runs: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${(await import('node:os')).availableParallelism()} CPUs\n`);
