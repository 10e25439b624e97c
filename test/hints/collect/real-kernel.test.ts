/**
 * `hintlab hints collect` end to end on Debian's linux-source-6.12: a
 * tinyconfig coverage kernel with kernel/sched, fs and mm profiled, booted
 * under TCG, hintlab's own profiles as the workload, every .gcda back over
 * the serial console, gcov, then `hintlab hints` on the result. The kernel
 * goes to the default build directory, so a `hints collect` run by hand on
 * the same tree and directories shares it. About 10-15 minutes on 2 cores
 * for the first build, under a minute after: HINTLAB_SLOW_TESTS=1 only.
 *
 * The counts checked are known from the workload itself: the probe resets
 * the counters after the profiles' set-up, then select-1000 runs 2 rounds
 * of 125 calls and select-1000-empty 2 rounds of 12500, so select()'s code
 * ran exactly 25250 times; nothing else in the guest calls select(). And
 * mincore-256k's 2 rounds of 5000 calls plus one residency check after each
 * round make 10002 mincore() calls.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readGcovJson } from '../../../src/hints/gcov.ts';
import { runCli, tempDir } from '../../helpers/cli.ts';
import { hashTree } from '../../codegen/helpers.ts';
import { KERNEL_TARBALL, testKernelTree } from '../../codegen/kernel-tree.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../../helpers/tools.ts';

const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (a coverage kernel build and a TCG boot): set HINTLAB_SLOW_TESTS=1'
    : requireAll(requireFile(KERNEL_TARBALL, 'linux-source-6.12'), requireKernelBuildTools(), requireTool('patch', 'patch'), requireTool('qemu-system-x86_64', 'qemu-system-x86'));

interface Row {
  file: string;
  line: number;
  function: string;
  condition: string;
  executions: number | null;
  thenCount: number | null;
  verdict: { kind: string };
}

describe('hints collect on linux-source-6.12 (kernel/sched, fs, mm)', { skip }, () => {
  it('collects gcov JSON whose counts match the workload, and hints reads it, included files too', { timeout: 60 * 60_000 }, async () => {
    const tree = testKernelTree();
    const before = hashTree(tree);
    const out = join(tempDir(), 'profiles');
    const r = await runCli(['hints', 'collect', '--src', tree, '--profile-dirs', 'kernel/sched,fs,mm', '--accel', 'tcg', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /next: hintlab hints profiles=/);
    const record = JSON.parse(readFileSync(join(out, 'hintlab-coverage.json'), 'utf8')) as { gcdaFiles: number; jsonFiles: string[] };
    assert.ok(record.jsonFiles.includes('fs/select.gcov.json.gz'));
    assert.ok(record.jsonFiles.includes('kernel/sched/build_policy.gcov.json.gz'));
    // only the profiled directories carry counters
    assert.ok(record.jsonFiles.every((f) => /^(fs|kernel\/sched|mm)\/[^/]+$/.test(f)), record.jsonFiles.join(' '));

    // syscalls.c has no object of its own: build_policy.c #includes it, and gcov lists it in that unit
    const policy = readGcovJson(join(out, 'kernel/sched/build_policy.gcov.json.gz'));
    assert.ok(policy.files.some((f) => f.path.endsWith('kernel/sched/syscalls.c')));
    assert.equal(existsSync(join(out, 'kernel/sched/syscalls.gcov.json.gz')), false);

    const h = await runCli(['hints', `profiles=${out}`, '--src', tree, '--min-hits', '1', '--format', 'json', '--path', 'fs/select.c', '--path', 'mm/mincore.c', '--path', 'kernel/sched/syscalls.c']);
    assert.equal(h.code, 0, h.stderr);
    const rows = (JSON.parse(h.stdout) as { rows: Row[] }).rows;
    // glibc's select() enters the kernel as pselect6; core_sys_select's first check is `if (n < 0)`
    const select = rows.find((row) => row.file === 'fs/select.c' && row.function === 'core_sys_select' && row.condition === 'n < 0');
    assert.equal(select?.executions, 25250, JSON.stringify(select));
    assert.equal(select.thenCount, 0);
    // SYSCALL_DEFINE3(mincore): its first check, `if (start & ~PAGE_MASK)`, never true for the probe's aligned mapping
    const mincore = rows.find((row) => row.file === 'mm/mincore.c' && row.function === '__do_sys_mincore' && row.condition === 'start & ~PAGE_MASK');
    assert.equal(mincore?.executions, 10002, JSON.stringify(mincore));
    assert.equal(mincore.thenCount, 0);
    assert.ok(rows.some((row) => row.file === 'kernel/sched/syscalls.c' && (row.executions ?? 0) > 0), 'the included syscalls.c has counted ifs');
    assert.equal(hashTree(tree), before, 'the kernel tree is left as it was');
  });
});
