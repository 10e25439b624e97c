/**
 * hintlab's qemu cost plugin on a real boot of the Debian cloud kernel the
 * VM tests use: the plugin is built, a static guest program (fixtures/
 * cost-loop.c) opens four windows with the probe's markers, and two boots
 * must write the same counts, byte for byte (icount plus the fixed guest
 * clock). The values asserted are known independently of the plugin: the
 * jump variant takes exactly one more branch per iteration (N = 1000), and
 * 2N getppid calls cost the kernel exactly twice what N calls cost.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { COST_COUNTERS } from '../../src/cost-counters.ts';
import { parseCostOutput } from '../../src/vm/cost.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { tempDir } from '../helpers/cli.ts';
import { bootProbeUnderPlugin, bootUnderPlugin } from '../helpers/plugin-boot.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('gcc', 'gcc'), requireCloudKernel(vmlinuz));
const N = 1000;

const boot = (dir: string, program: Buffer, n: number): Promise<string> => bootUnderPlugin({ vmlinuz: vmlinuz!, dir, program, name: 'cost-loop', n });

test('the cost plugin counts one extra taken branch per iteration, kernel work proportional to calls, and the same counts in two boots', { skip, timeout: 900_000 }, async () => {
  const dir = tempDir();
  try {
    const program = join(dir, 'cost-loop');
    execFileSync('gcc', ['-static', '-O2', '-o', program, join(import.meta.dirname, 'fixtures', 'cost-loop.c')]);
    const data = readFileSync(program);
    const first = await boot(dir, data, 1);
    const second = await boot(dir, data, 2);
    assert.equal(second, first, 'two boots of one kernel wrote different counts');
    const windows = parseCostOutput(first, 'boot-1.txt').windows;
    const [calls1, calls2, straight, jumping] = windows.map((w) => w.counts);
    assert.ok(calls1 && calls2 && straight && jumping, 'four windows');
    // one kernel entry per call; the loops without calls never enter the kernel
    assert.deepEqual([calls1.kentries, calls2.kentries, straight.kentries, jumping.kentries], [N, 2 * N, 0, 0]);
    // N more calls add a whole number of user instructions per call; what is left of N calls is the
    // window's own edges (the marker's block), a constant a few instructions large
    const perCall = (calls2.uinsn! - calls1.uinsn!) / N;
    assert.ok(Number.isInteger(perCall) && perCall > 0, `N more calls added ${calls2.uinsn! - calls1.uinsn!} user instructions`);
    const edges = calls1.uinsn! - N * perCall;
    assert.ok(edges >= 0 && edges < 20, `${calls1.uinsn} user instructions for N calls is ${perCall} per call plus ${edges}`);
    // in the kernel a timer tick may land inside a call (the window's totals then hold its work, and the
    // interrupted call runs a few of its blocks one time fewer), but every other block the calls run once per
    // call runs exactly twice as often for twice the calls
    const execs = (w: (typeof windows)[number]) => new Map(w.blocks.map((b) => [`${b.vaddr}/${b.bytes}`, b.execs]));
    const [once, twice] = [execs(windows[0]!), execs(windows[1]!)];
    const perCallBlocks = [...once.entries()].filter(([, n]) => n === N);
    assert.ok(perCallBlocks.length >= 20, `${perCallBlocks.length} kernel blocks ran once per call`);
    const off = perCallBlocks.filter(([block]) => twice.get(block) !== 2 * N);
    assert.ok(off.length <= 5 && off.every(([block]) => Math.abs((twice.get(block) ?? 0) - 2 * N) <= 1), `blocks not run 2N times: ${off.map(([b]) => `${b}: ${twice.get(b)}`).join(', ')}`);
    assert.equal(jumping.taken! - straight.taken!, N);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two boots of the probe count the same exact counts and blocks, and no getppid round holds a console interrupt or a timer tick', { skip, timeout: 900_000 }, async () => {
  // the probe writes a line to the serial console after every round; the next window opens only once the UART has
  // sent it and a tick has just passed, so a window of 2000 calls (well under a 4 ms tick period) holds the calls only
  const dir = tempDir();
  try {
    const args = ['--cpu', '0', '--warmups', '1', '--rounds', '3', '--profile', 'getppid:2000', '--profile', 'sched_getattr:2000'];
    const first = await bootProbeUnderPlugin({ vmlinuz: vmlinuz!, dir, n: 1 }, args);
    const second = await bootProbeUnderPlugin({ vmlinuz: vmlinuz!, dir, n: 2 }, args);
    // the exact counters and every block's executions agree; the modelled predictor may differ by one
    // misprediction in a window, as the spin before it ran a host-dependent number of turns (docs/vm.md)
    const exact = (out: string) =>
      parseCostOutput(out, 'boot.txt').windows.map((w) => ({
        counts: COST_COUNTERS.filter((c) => c.source === 'exact').map((c) => w.counts[c.windowKey]),
        blocks: w.blocks.map((b) => `${b.vaddr.toString(16)}:${b.execs}`),
      }));
    assert.deepEqual(exact(second), exact(first), 'two boots of one kernel counted differently');
    const windows = parseCostOutput(first, 'boot-1.txt').windows;
    assert.equal(windows.length, 8, 'a warm-up and three rounds of each profile');
    // the profiles take turns, getppid first: its windows are the even ones
    const getppid = windows.filter((w) => w.index % 2 === 0).map((w) => [w.counts.kinsn, w.counts.kentries]);
    assert.deepEqual(getppid.slice(1), [getppid[0], getppid[0], getppid[0]], `getppid windows (kernel instructions, kernel entries): ${JSON.stringify(getppid)}`);
    assert.equal(getppid[0]![1], 2000, 'one kernel entry per call, none from an interrupt');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
