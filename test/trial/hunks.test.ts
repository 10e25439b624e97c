/**
 * The hunks of a change (src/trial/hunks.ts) on real files with the real
 * diff(1) and patch(1): taken from A's and B's trees, grouped when one
 * declares a name another uses, and written back as patches of some hunks
 * that apply to A on their own and give the expected file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { changeHunks, declaredNames, groupHunks, hunkName, variantPatch } from '../../src/trial/hunks.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireAll, requireTool } from '../helpers/tools.ts';

const skip = requireAll(requireTool('patch', 'patch'), requireTool('diff', 'diffutils'));
const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

const filler = (name: string, n: number): string[] => Array.from({ length: n }, (_, i) => `\t${name}_${i} = ${i};`);

/** A: two functions far apart in one file, one in another; B: a hint, a helper and its caller, a hint in the other file. */
function trees(): { a: string; b: string } {
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  mkdirSync(join(a, 'kernel'), { recursive: true });
  const core = [
    'int first(int x)',
    '{',
    ...filler('f', 10),
    '\tif (x < 0)',
    '\t\treturn -1;',
    ...filler('g', 10),
    '\treturn x;',
    '}',
    '',
    'int second(int y)',
    '{',
    ...filler('h', 10),
    '\treturn y + 1;',
    '}',
    '',
  ];
  writeFileSync(join(a, 'kernel/core.c'), core.join('\n'));
  writeFileSync(join(a, 'kernel/other.c'), ['int other(int z)', '{', '\tif (z)', '\t\treturn 1;', '\treturn 0;', '}', ''].join('\n'));
  cpSync(a, b, { recursive: true });
  const bCore = core
    .map((l) => (l === '\tif (x < 0)' ? '\tif (unlikely(x < 0))' : l))
    .map((l) => (l === '\treturn y + 1;' ? '\treturn y + slow_helper(y);' : l));
  bCore.splice(bCore.indexOf('int second(int y)'), 0, 'static int slow_helper(int v)', '{', '\treturn v * 3;', '}', '');
  writeFileSync(join(b, 'kernel/core.c'), bCore.join('\n'));
  writeFileSync(join(b, 'kernel/other.c'), ['int other(int z)', '{', '\tif (likely(z))', '\t\treturn 1;', '\treturn 0;', '}', ''].join('\n'));
  return { a, b };
}

test('hunks come from diff -U3 of the two trees, numbered over the change in file order', { skip }, () => {
  const { a, b } = trees();
  const hunks = changeHunks(a, b, ['kernel/core.c', 'kernel/other.c', 'kernel/absent.c']);
  assert.deepEqual(
    hunks.map((h) => [h.index, hunkName(h), h.body.filter((l) => l.startsWith('+')).length]),
    [
      [1, 'kernel/core.c @10', 1],
      [2, 'kernel/core.c @25', 5],
      [3, 'kernel/core.c @37', 1],
      [4, 'kernel/other.c @1', 1],
    ],
  );
  // B's start of the third hunk is behind the five lines the second adds
  assert.equal(hunks[2]!.newStart, hunks[2]!.oldStart + 5);
});

test('a helper and its caller are one group, named by the helper; hints stay apart', { skip }, () => {
  const { a, b } = trees();
  const groups = groupHunks(changeHunks(a, b, ['kernel/core.c', 'kernel/other.c']));
  assert.deepEqual(
    groups.map((g) => [g.hunks, g.names]),
    [
      [[1], []],
      [[2, 3], ['slow_helper']],
      [[4], []],
    ],
  );
});

test('the patch of some hunks applies to A alone with patch(1) and gives A with just those changes', { skip }, () => {
  const { a, b } = trees();
  const hunks = changeHunks(a, b, ['kernel/core.c', 'kernel/other.c']);
  const apply = (name: string, include: number[]): string => {
    const tree = join(dir, name);
    cpSync(a, tree, { recursive: true });
    const patch = join(dir, `${name}.patch`);
    writeFileSync(patch, variantPatch(hunks, new Set(include)));
    const r = spawnSync('patch', ['-p1', '--fuzz=0', '--batch', '-d', tree, '-i', patch], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /offset|fuzz/, 'every hunk applies where its header says');
    return tree;
  };
  const hint = apply('alone-1', [1]);
  assert.match(readFileSync(join(hint, 'kernel/core.c'), 'utf8'), /if \(unlikely\(x < 0\)\)/);
  assert.doesNotMatch(readFileSync(join(hint, 'kernel/core.c'), 'utf8'), /slow_helper/);
  assert.equal(readFileSync(join(hint, 'kernel/other.c'), 'utf8'), readFileSync(join(a, 'kernel/other.c'), 'utf8'));
  // all but the hint: the helper and its caller, and the other file
  const without = apply('without-1', [2, 3, 4]);
  const core = readFileSync(join(without, 'kernel/core.c'), 'utf8');
  assert.match(core, /slow_helper\(int v\)[\s\S]*y \+ slow_helper\(y\)/);
  assert.match(core, /\tif \(x < 0\)/);
  assert.equal(readFileSync(join(without, 'kernel/other.c'), 'utf8'), readFileSync(join(b, 'kernel/other.c'), 'utf8'));
  // every hunk: B itself
  const all = apply('all', [1, 2, 3, 4]);
  assert.equal(readFileSync(join(all, 'kernel/core.c'), 'utf8'), readFileSync(join(b, 'kernel/core.c'), 'utf8'));
});

test('declared names: functions, macros, tags and variables at column 0; statements and labels declare nothing', () => {
  assert.deepEqual(declaredNames('static inline bool task_on_cpu(struct rq *rq, struct task_struct *p)'), ['task_on_cpu']);
  assert.deepEqual(declaredNames('#define SCHED_FAST_PATH 1'), ['SCHED_FAST_PATH']);
  assert.deepEqual(declaredNames('struct slice_cache {'), ['slice_cache']);
  assert.deepEqual(declaredNames('static unsigned int sysctl_fast[4] = { 0 };'), ['sysctl_fast']);
  assert.deepEqual(declaredNames('SYSCALL_DEFINE2(sched_getparam, pid_t, pid, struct sched_param __user *, param)'), ['sched_getparam']);
  assert.deepEqual(declaredNames('int helper(int);'), ['helper']);
  assert.deepEqual(declaredNames('\tif (unlikely(!param || pid < 0))'), []);
  assert.deepEqual(declaredNames('\treturn helper(x);'), []);
  assert.deepEqual(declaredNames('out:'), []);
  assert.deepEqual(declaredNames('}'), []);
  assert.deepEqual(declaredNames(' * a comment line'), []);
});
