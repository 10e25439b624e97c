/**
 * Per-branch counts of hintlab's qemu cost plugin on a real boot of the
 * Debian cloud kernel the VM tests use: a static guest program
 * (fixtures/branch-loop.c, built here by gcc with -g) runs a loop whose
 * jumps go each way a known number of times, and the plugin, counting
 * user-space jumps too (ubranch=1), must give exactly those counts at the
 * right source lines (binutils' addr2line over the program's DWARF), and
 * the same file, byte for byte, in two boots.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseCostOutput } from '../../src/vm/cost.ts';
import { sourcePlaces } from '../../src/vm/dwarf-lines.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { tempDir } from '../helpers/cli.ts';
import { bootUnderPlugin } from '../helpers/plugin-boot.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('gcc', 'gcc'), requireTool('addr2line', 'binutils'), requireCloudKernel(vmlinuz));
const N = 1000;
const FIXTURES = join(import.meta.dirname, 'fixtures');
const SOURCE = join(FIXTURES, 'branch-loop.c');

/** The line of the fixture that carries `marker` (a comment). */
function lineOf(marker: string): number {
  return readFileSync(SOURCE, 'utf8').split('\n').findIndex((l) => l.includes(marker)) + 1;
}

const boot = (dir: string, program: Buffer, n: number): Promise<string> => bootUnderPlugin({ vmlinuz: vmlinuz!, dir, program, name: 'branch-loop', n, userBranches: true });

test('the plugin counts how often each jump of a known loop was taken and fell through, at its source line, the same in two boots', { skip, timeout: 900_000 }, async () => {
  const dir = tempDir();
  try {
    const program = join(dir, 'branch-loop');
    execFileSync('gcc', ['-static', '-O1', '-g', '-o', program, SOURCE]);
    const data = readFileSync(program);
    const first = await boot(dir, data, 1);
    const second = await boot(dir, data, 2);
    assert.equal(second, first, 'two boots of one kernel wrote different counts');
    const [window] = parseCostOutput(first, 'boot-1.txt').windows;
    assert.ok(window, 'one window');
    // a timer tick inside the loop adds kernel jumps; the program's own are below the kernel's half
    const user = window.branches.filter((b) => b.addr < 0xffff800000000000n);
    const places = sourcePlaces({ path: program, roots: [FIXTURES] }, user.map((b) => b.addr));
    assert.ok(places.known, places.known ? '' : places.reason);
    const at = (line: number) => user.filter((b) => places.value.get(b.addr)?.line === line && places.value.get(b.addr)?.file === 'branch-loop.c');
    const counts = (line: number) => at(line).map((b) => [b.taken, b.fell].sort((x, y) => x - y));
    // one test of i % 4 per iteration: one way on every fourth, the other way on the rest
    assert.deepEqual(counts(lineOf('/* IF */')), [[N / 4, (3 * N) / 4]]);
    // the loop's own test leaves the loop once and stays N - 1 times; any other jump on that line
    // (the entry guard of a rotated loop) runs once in all
    const loop = counts(lineOf('/* LOOP */'));
    assert.ok(loop.some(([x, y]) => x === 1 && y === N - 1), `loop line jumps: ${JSON.stringify(loop)}`);
    assert.equal(loop.reduce((s, [x = 0, y = 0]) => s + x + y, 0), N + (loop.length - 1), `loop line jumps: ${JSON.stringify(loop)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
