/**
 * `hintlab hints collect` end to end on Debian's linux-source-6.12: a
 * tinyconfig coverage kernel with kernel/sched and fs profiled, booted
 * under TCG, hintlab's own profiles as the workload, every .gcda back over
 * the serial console, gcov, then `hintlab hints` on the result. About 10-15
 * minutes on 2 cores (the build dominates): HINTLAB_SLOW_TESTS=1 only.
 *
 * The counts checked are known from the workload itself: the probe resets
 * the counters after the profiles' set-up, then select-1000 runs 2 rounds
 * of 50 calls and select-1000-empty 2 rounds of 2500, so select()'s code ran
 * exactly 5100 times; nothing else in the guest calls select().
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readGcovJson } from '../../../src/hints/gcov.ts';
import { runCli, tempDir } from '../../helpers/cli.ts';
import { hashTree } from '../../codegen/helpers.ts';
import { testKernelTree } from '../../codegen/kernel-tree.ts';

const slow = process.env.HINTLAB_SLOW_TESTS === '1';

interface Row {
  file: string;
  line: number;
  function: string;
  executions: number | null;
  thenCount: number | null;
  verdict: { kind: string };
}

describe('hints collect on linux-source-6.12 (kernel/sched, fs)', { skip: slow ? false : 'slow (a coverage kernel build and a TCG boot): set HINTLAB_SLOW_TESTS=1' }, () => {
  it('collects gcov JSON whose counts match the workload, and hints reads it, included files too', { timeout: 60 * 60_000 }, async () => {
    const tree = testKernelTree();
    const before = hashTree(tree);
    const out = join(tempDir(), 'profiles');
    const buildDir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hintlab', 'test-coverage-kernel');
    const r = await runCli(['hints', 'collect', '--src', tree, '--profile-dirs', 'kernel/sched,fs', '--accel', 'tcg', '--out', out, '--build-dir', buildDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /next: hintlab hints profiles=/);
    const record = JSON.parse(readFileSync(join(out, 'hintlab-coverage.json'), 'utf8')) as { gcdaFiles: number; jsonFiles: string[] };
    assert.ok(record.jsonFiles.includes('fs/select.gcov.json.gz'));
    assert.ok(record.jsonFiles.includes('kernel/sched/build_policy.gcov.json.gz'));
    // only the profiled directories carry counters
    assert.ok(record.jsonFiles.every((f) => f.startsWith('fs/') || f.startsWith('kernel/sched/')), record.jsonFiles.join(' '));

    // syscalls.c has no object of its own: build_policy.c #includes it, and gcov lists it in that unit
    const policy = readGcovJson(join(out, 'kernel/sched/build_policy.gcov.json.gz'));
    assert.ok(policy.files.some((f) => f.path.endsWith('kernel/sched/syscalls.c')));
    assert.equal(existsSync(join(out, 'kernel/sched/syscalls.gcov.json.gz')), false);

    const h = await runCli(['hints', `profiles=${out}`, '--src', tree, '--min-hits', '1', '--format', 'json', '--path', 'fs/select.c', '--path', 'kernel/sched/syscalls.c']);
    assert.equal(h.code, 0, h.stderr);
    const rows = (JSON.parse(h.stdout) as { rows: Row[] }).rows;
    const select = rows.filter((row) => row.file === 'fs/select.c' && row.function === 'core_sys_select');
    assert.ok(select.length > 0, 'core_sys_select has rows');
    assert.equal(select[0]!.executions, 5100, JSON.stringify(select[0]));
    assert.ok(rows.some((row) => row.file === 'kernel/sched/syscalls.c' && (row.executions ?? 0) > 0), 'the included syscalls.c has counted ifs');
    assert.equal(hashTree(tree), before, 'the kernel tree is left as it was');
  });
});
