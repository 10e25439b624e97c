/**
 * The one-file patch the slow kernel tests and bench/incremental-build.ts
 * build as kernel B: a 100-iteration loop the compiler must keep, added to
 * sched_getscheduler() in 6.12's kernel/sched/syscalls.c. Made with
 * `diff -u` against the tree at hand, so it fits whatever 6.12.y Debian ships.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SCHED_FILE = 'kernel/sched/syscalls.c';
const ANCHOR = 'SYSCALL_DEFINE1(sched_getscheduler, pid_t, pid)\n{\n\tstruct task_struct *p;\n\tint retval;\n\n\tif (pid < 0)\n\t\treturn -EINVAL;\n';

/** Write the patch into `dir` (with the a/ and b/ copies diff needs) and return its path. */
export function schedSlowdownPatch(tree: string, dir: string): string {
  const original = readFileSync(join(tree, SCHED_FILE), 'utf8');
  if (!original.includes(ANCHOR)) throw new Error(`${SCHED_FILE} no longer has the expected sched_getscheduler opening`);
  const work = '\n\t/* test load: 100 iterations the compiler must keep */\n\tfor (int i = 0; i < 100; i++)\n\t\tbarrier();\n';
  mkdirSync(join(dir, 'a/kernel/sched'), { recursive: true });
  mkdirSync(join(dir, 'b/kernel/sched'), { recursive: true });
  writeFileSync(join(dir, 'a', SCHED_FILE), original);
  writeFileSync(join(dir, 'b', SCHED_FILE), original.replace(ANCHOR, ANCHOR + work));
  const diff = spawnSync('diff', ['-u', `a/${SCHED_FILE}`, `b/${SCHED_FILE}`], { cwd: dir, encoding: 'utf8' });
  if (diff.status !== 1) throw new Error(`diff -u failed: ${diff.stderr}`);
  const patch = join(dir, 'sched_getscheduler-loop.patch');
  writeFileSync(patch, diff.stdout);
  return patch;
}

/** Objects kbuild compiled, from its "  CC      path" lines in a build log. */
export function compiledObjects(buildLog: string): string[] {
  return readFileSync(buildLog, 'utf8')
    .split('\n')
    .flatMap((l) => /^\s+CC\s+(\S+)$/.exec(l)?.[1] ?? []);
}
