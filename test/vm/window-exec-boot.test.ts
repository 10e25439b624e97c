/**
 * The probe's --window-exec on a real boot under the cost plugin (the
 * Debian cloud kernel the VM tests use): one window around the program
 * --exec starts and one around each invocation of a --run-plan, holding
 * every kernel entry the program made; none without the flag; and the same
 * plugin output, byte for byte, in two boots.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseCostOutput } from '../../src/vm/cost.ts';
import { cachedCloudKernel, requireCloudKernel } from '../helpers/cloud-kernel.ts';
import { tempDir } from '../helpers/cli.ts';
import { bootProbeUnderPlugin } from '../helpers/plugin-boot.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const vmlinuz = cachedCloudKernel();
const skip = requireAll(requireTool('qemu-system-x86_64', 'qemu-system-x86'), requireTool('gcc', 'gcc'), requireCloudKernel(vmlinuz));
/** System calls the program makes: 1000 rounds of two. */
const CALLS = 2000;

test('--window-exec opens one cost window per program the probe starts, holding all its system calls, the same in two boots', { skip, timeout: 900_000 }, async () => {
  const dir = tempDir();
  try {
    const program = join(dir, 'exec-syscalls');
    execFileSync('gcc', ['-static', '-O2', '-o', program, join(import.meta.dirname, 'fixtures', 'exec-syscalls.c')]);
    const files = [
      { path: '/exec-syscalls', data: readFileSync(program), mode: 0o755 },
      { path: '/plan', data: Buffer.from('/dev/console /exec-syscalls\n/dev/console /exec-syscalls\n') },
    ];
    const windowed = ['--exec', '/exec-syscalls', '--run-plan', '/plan', '--window-exec'];
    const first = await bootProbeUnderPlugin({ vmlinuz: vmlinuz!, dir, n: 1 }, windowed, files);
    const windows = parseCostOutput(first, 'boot-1.txt').windows;
    assert.equal(windows.length, 3, 'one window for --exec, one per plan line');
    for (const w of windows) {
      const entries = w.counts.kentries ?? 0;
      // the program's calls, plus its exec, its exit and the page faults of a fresh process
      assert.ok(entries >= CALLS && entries < CALLS + 200, `kernel entries in a window: ${entries}`);
      assert.ok(w.branches.length > 100, 'the kernel jumps of fork, exec, the calls and exit are counted');
    }
    const second = await bootProbeUnderPlugin({ vmlinuz: vmlinuz!, dir, n: 2 }, windowed, files);
    assert.equal(second, first, 'two boots wrote different counts');
    const without = await bootProbeUnderPlugin({ vmlinuz: vmlinuz!, dir, n: 3 }, ['--exec', '/exec-syscalls'], files);
    assert.equal(parseCostOutput(without, 'boot-3.txt').windows.length, 0, 'without --window-exec a program that opens no window is not measured');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
