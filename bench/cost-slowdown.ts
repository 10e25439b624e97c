/**
 * What does the cost plugin cost? Boots one kernel under TCG with -icount
 * (`hintlab vm --icount`) and with the plugin (`hintlab vm --cost`), each
 * with a short and a long measured loop, and times every boot. The whole
 * boot's slowdown is T_cost / T_icount at the short loop; the loop's alone
 * is (T_cost(long) - T_cost(short)) / (T_icount(long) - T_icount(short)):
 * the boot, the probe's start and the guest's shutdown cancel in the
 * differences. Configurations run round-robin, `--repeat` times each.
 * Beside wall time, the CPU seconds of each boot's processes (hintlab,
 * its supervisor and qemu, from /proc/self/stat's children times): on a
 * loaded machine wall time measures the queue as much as the plugin, CPU
 * time much less.
 *
 *   npm run build && node --import tsx bench/cost-slowdown.ts --kernel PATH [--repeat 2]
 *     [--profile getppid] [--short-rounds 2] [--long-rounds 40] [--ops 50000]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fixed } from '../src/format/numbers.ts';

const { values: o } = parseArgs({
  options: {
    kernel: { type: 'string', default: process.env.HINTLAB_TEST_VMLINUZ ?? '' },
    repeat: { type: 'string', default: '2' },
    profile: { type: 'string', default: 'getppid' },
    'short-rounds': { type: 'string', default: '2' },
    'long-rounds': { type: 'string', default: '40' },
    ops: { type: 'string', default: '50000' },
  },
});
if (!o.kernel) throw new Error('pass --kernel PATH (a bzImage or vmlinuz) or set HINTLAB_TEST_VMLINUZ');

const dir = mkdtempSync(join(tmpdir(), 'cost-slowdown-'));
const load1 = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

/** User plus system seconds of this process's waited-for descendants (fields 16 and 17 of /proc/self/stat, in USER_HZ = 100). */
function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const cpuTimes = new Map<string, number[]>();

/** Wall seconds of one `hintlab vm` boot; its CPU seconds go to cpuTimes under `name`. */
function boot(name: string, cost: boolean, rounds: string, i: number): number {
  const cpu0 = childrenCpuSeconds();
  const t0 = process.hrtime.bigint();
  execFileSync(process.execPath, ['bin/hintlab.js', 'vm', '--kernel', `K=${o.kernel}`, '--order', 'K', '--accel', 'tcg', cost ? '--cost' : '--icount',
    '--profile', o.profile, '--ops', o.ops, '--warmups', '1', '--rounds', rounds, '--label-prefix', `s${i}-`, '--db', join(dir, 'vm.db')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  cpuTimes.set(name, [...(cpuTimes.get(name) ?? []), childrenCpuSeconds() - cpu0]);
  return wall;
}

const configs = [
  { name: 'icount short', cost: false, rounds: o['short-rounds'] },
  { name: 'icount long', cost: false, rounds: o['long-rounds'] },
  { name: 'cost short', cost: true, rounds: o['short-rounds'] },
  { name: 'cost long', cost: true, rounds: o['long-rounds'] },
];
const times = new Map(configs.map((c) => [c.name, [] as number[]]));
const loads: number[] = [];
let i = 0;
try {
  for (let r = 0; r < Number(o.repeat); r++) {
    for (const c of configs) {
      loads.push(load1());
      const s = boot(c.name, c.cost, c.rounds, i++);
      times.get(c.name)!.push(s);
      console.log(`${c.name}: ${s.toFixed(1)} s (CPU ${fixed(cpuTimes.get(c.name)!.at(-1)!, 1)} s)`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const t = (name: string) => mean(times.get(name)!);
const calls = (Number(o['long-rounds']) - Number(o['short-rounds'])) * Number(o.ops);
console.log(`whole boot (short loop): ${t('icount short').toFixed(1)} s with --icount, ${t('cost short').toFixed(1)} s with --cost: ${(t('cost short') / t('icount short')).toFixed(2)}x`);
console.log(`measured loop alone (${calls} more calls): ${(t('icount long') - t('icount short')).toFixed(1)} s with --icount, ${(t('cost long') - t('cost short')).toFixed(1)} s with --cost: ` +
  `${((t('cost long') - t('cost short')) / (t('icount long') - t('icount short'))).toFixed(2)}x`);
console.log(`load average (1 min) before the boots: ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
const cpu = (name: string) => mean(cpuTimes.get(name)!);
console.log(`CPU seconds, whole boot (short loop): ${fixed(cpu('icount short'), 1)} with --icount, ${fixed(cpu('cost short'), 1)} with --cost: ${fixed(cpu('cost short') / cpu('icount short'), 2)}x`);
console.log(`CPU seconds, measured loop alone: ${fixed(cpu('icount long') - cpu('icount short'), 1)} with --icount, ${fixed(cpu('cost long') - cpu('cost short'), 1)} with --cost: ` +
  `${fixed((cpu('cost long') - cpu('cost short')) / (cpu('icount long') - cpu('icount short')), 2)}x`);
