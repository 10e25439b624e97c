/**
 * The patch of the trial's slow test and of the real trials in docs/trial-runs.md: an
 * unlikely() on the early -EINVAL return of sched_getparam() and of
 * sched_getscheduler() in 6.12's kernel/sched/syscalls.c (the kind of hint
 * the sched_syscalls thread proposed), written with `diff -u` against the
 * tree at hand from exact anchors, without diff's timestamps (so its hash
 * depends only on the change). `changed` turns the second hunk into a
 * likely(): the same patch, edited, for the rerun that must redo what
 * depends on B.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PATCHED_FILE = 'kernel/sched/syscalls.c';

const GETPARAM = '\tif (!param || pid < 0)\n\t\treturn -EINVAL;\n\n\tscoped_guard (rcu) {';
const GETSCHEDULER = 'SYSCALL_DEFINE1(sched_getscheduler, pid_t, pid)\n{\n\tstruct task_struct *p;\n\tint retval;\n\n\tif (pid < 0)\n\t\treturn -EINVAL;\n';

export function writeTrialPatch(tree: string, dir: string, name = 'sched-unlikely.patch', hint: 'unlikely' | 'likely' = 'unlikely'): string {
  const original = readFileSync(join(tree, PATCHED_FILE), 'utf8');
  for (const anchor of [GETPARAM, GETSCHEDULER]) {
    if (original.split(anchor).length !== 2) throw new Error(`${PATCHED_FILE}: an anchor of the trial patch is not there exactly once: ${JSON.stringify(anchor.slice(0, 50))}`);
  }
  const patched = original
    .replace(GETPARAM, GETPARAM.replace('if (!param || pid < 0)', 'if (unlikely(!param || pid < 0))'))
    .replace(GETSCHEDULER, GETSCHEDULER.replace('if (pid < 0)', `if (${hint}(pid < 0))`));
  const work = join(dir, `${name}.d`);
  mkdirSync(join(work, 'a/kernel/sched'), { recursive: true });
  mkdirSync(join(work, 'b/kernel/sched'), { recursive: true });
  writeFileSync(join(work, 'a', PATCHED_FILE), original);
  writeFileSync(join(work, 'b', PATCHED_FILE), patched);
  const diff = spawnSync('diff', ['-u', `a/${PATCHED_FILE}`, `b/${PATCHED_FILE}`], { cwd: work, encoding: 'utf8' });
  if (diff.status !== 1) throw new Error(`diff -u failed: ${diff.stderr}`);
  const patch = join(dir, name);
  writeFileSync(patch, diff.stdout.replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2'));
  rmSync(work, { recursive: true, force: true });
  return patch;
}
