/**
 * `hintlab hints collect --workload stress-ng:...` end to end on Debian's
 * linux-source-6.12: the coverage kernel with kernel/sched profiled and the
 * options stress-ng needs (its own build directory, shared with a
 * `hints collect --profile-dirs kernel/sched --workload stress-ng` run by
 * hand on the same tree), booted under TCG, the host's stress-ng running
 * two stressors for 3 s each, the counts back, then `hintlab hints`. The
 * first build takes 10-20 minutes on 2 cores, a reused one about a
 * minute: HINTLAB_SLOW_TESTS=1 only.
 *
 * stress-ng's counts are not known in advance, but the yield stressor calls
 * sched_yield() millions of times a minute, and every call goes through
 * yield_task_fair() (the stressors run as SCHED_OTHER): its ifs must have
 * counted many executions, and the boot itself (reset before the stressors) none.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, tempDir } from '../../helpers/cli.ts';
import { KERNEL_TARBALL, testKernelTree } from '../../codegen/kernel-tree.ts';
import { requireAll, requireFile, requireKernelBuildTools, requireTool } from '../../helpers/tools.ts';

const skip =
  process.env.HINTLAB_SLOW_TESTS !== '1'
    ? 'slow (a coverage kernel build and a TCG boot with stress-ng): set HINTLAB_SLOW_TESTS=1'
    : requireAll(
        requireFile(KERNEL_TARBALL, 'linux-source-6.12'),
        requireKernelBuildTools(),
        requireTool('patch', 'patch'),
        requireTool('qemu-system-x86_64', 'qemu-system-x86'),
        requireTool('stress-ng', 'stress-ng'),
      );

interface Row {
  file: string;
  function: string;
  executions: number | null;
}

describe('hints collect --workload stress-ng on linux-source-6.12 (kernel/sched)', { skip }, () => {
  it('runs the named stressors in the guest and brings their scheduler counts back', { timeout: 60 * 60_000 }, async () => {
    const tree = testKernelTree();
    const out = join(tempDir(), 'stress');
    const args = ['hints', 'collect', '--src', tree, '--profile-dirs', 'kernel/sched', '--accel', 'tcg', '--out', out];
    const r = await runCli([...args, '--workload', 'stress-ng:yield,switch', '--stressor-seconds', '3']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /stress-ng \d+\.\d+\.\d+ in the guest: 2 stressors x 3 s/);
    assert.match(r.stdout, /next: hintlab hints stress-ng-yield-switch=/);
    const record = JSON.parse(readFileSync(join(out, 'hintlab-coverage.json'), 'utf8')) as { workload: string; jsonFiles: string[] };
    assert.match(record.workload, /^stress-ng \S+ 2 stressors, 3 s each, one instance per guest CPU: yield switch$/);
    assert.ok(record.jsonFiles.includes('kernel/sched/core.gcov.json.gz'), record.jsonFiles.join(' '));

    const h = await runCli(['hints', `stress=${out}`, '--src', tree, '--min-hits', '1', '--format', 'json', '--path', 'kernel/sched/fair.c']);
    assert.equal(h.code, 0, h.stderr);
    const rows = (JSON.parse(h.stdout) as { rows: Row[] }).rows;
    const yieldRows = rows.filter((row) => row.function === 'yield_task_fair');
    assert.ok(yieldRows.length > 0 && yieldRows.every((row) => (row.executions ?? 0) > 1000), JSON.stringify(yieldRows));
  });
});
