/**
 * The three patches of the slow behave test, made against whatever 6.12.y
 * Debian's linux-source-6.12 holds with `diff -u` (as the A/B/A test makes
 * its patch), each from exact anchors in kernel/sched/syscalls.c:
 *
 * - `unlikely`: the unlikely() hints of the sched_syscalls reference thread
 *   (Colin Ian King, Feb 2025): nothing observable changes;
 * - `getparam-efault`: sched_getparam(pid, NULL) returns -EFAULT instead of
 *   -EINVAL: one argument class, one error code;
 * - `uclamp-default`: a util_min request equal to the default (0) is not
 *   marked user-defined, so the task looks the same at once, and only a
 *   later switch to an RT policy shows it (RT's implicit minimum replaces it);
 * - `getparam-warn`: the same error code, but a WARN_ON_ONCE() for a NULL
 *   param: every step alike, a kernel warning on the console.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PATCHED_FILE = 'kernel/sched/syscalls.c';

type Edit = [from: string, to: string];

export const PATCHES: Record<string, Edit[]> = {
  unlikely: [
    ['\tif (!param || pid < 0)\n\t\treturn -EINVAL;\n\tif (copy_from_user(&lparam', '\tif (unlikely(!param || pid < 0))\n\t\treturn -EINVAL;\n\tif (copy_from_user(&lparam'],
    ['\tif (!uattr || pid < 0 || flags)\n\t\treturn -EINVAL;\n', '\tif (unlikely(!uattr || pid < 0 || flags))\n\t\treturn -EINVAL;\n'],
    ['\tif (!param || pid < 0)\n\t\treturn -EINVAL;\n\n\tscoped_guard (rcu) {', '\tif (unlikely(!param || pid < 0))\n\t\treturn -EINVAL;\n\n\tscoped_guard (rcu) {'],
    ['\tif (!uattr || pid < 0 || usize > PAGE_SIZE ||\n\t    usize < SCHED_ATTR_SIZE_VER0 || flags)\n', '\tif (unlikely(!uattr || pid < 0 || usize > PAGE_SIZE ||\n\t    usize < SCHED_ATTR_SIZE_VER0 || flags))\n'],
  ],
  'getparam-efault': [
    ['\tif (!param || pid < 0)\n\t\treturn -EINVAL;\n\n\tscoped_guard (rcu) {', '\tif (!param)\n\t\treturn -EFAULT;\n\tif (pid < 0)\n\t\treturn -EINVAL;\n\n\tscoped_guard (rcu) {'],
  ],
  'getparam-warn': [
    ['\tif (!param || pid < 0)\n\t\treturn -EINVAL;\n\n\tscoped_guard (rcu) {', '\tif (WARN_ON_ONCE(!param) || pid < 0)\n\t\treturn -EINVAL;\n\n\tscoped_guard (rcu) {'],
  ],
  'uclamp-default': [
    [
      '\t\tuclamp_se_set(&p->uclamp_req[UCLAMP_MIN],\n\t\t\t      attr->sched_util_min, true);\n',
      '\t\t/* a request for the default minimum is no request */\n\t\tuclamp_se_set(&p->uclamp_req[UCLAMP_MIN],\n\t\t\t      attr->sched_util_min, attr->sched_util_min != 0);\n',
    ],
  ],
};

/** Write PATCHES[name] as a unified diff against `tree` into `dir`; returns its path. */
export function writePatch(tree: string, dir: string, name: string): string {
  const original = readFileSync(join(tree, PATCHED_FILE), 'utf8');
  let patched = original;
  for (const [from, to] of PATCHES[name]!) {
    assert.equal(patched.split(from).length, 2, `${PATCHED_FILE}: the anchor for patch ${name} is not there exactly once: ${JSON.stringify(from.slice(0, 60))}`);
    patched = patched.replace(from, to);
  }
  const work = join(dir, name);
  mkdirSync(join(work, 'a/kernel/sched'), { recursive: true });
  mkdirSync(join(work, 'b/kernel/sched'), { recursive: true });
  writeFileSync(join(work, 'a', PATCHED_FILE), original);
  writeFileSync(join(work, 'b', PATCHED_FILE), patched);
  const diff = spawnSync('diff', ['-u', `a/${PATCHED_FILE}`, `b/${PATCHED_FILE}`], { cwd: work, encoding: 'utf8' });
  assert.equal(diff.status, 1, diff.stderr);
  // diff -u stamps each file with its mtime: drop the stamps so the patch (and the build's key) depends only on the change
  const patch = join(dir, `${name}.patch`);
  writeFileSync(patch, diff.stdout.replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2'));
  return patch;
}
