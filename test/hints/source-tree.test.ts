/**
 * What `hints` reads must come from --src: --path values that are missing
 * or lead outside the tree are named and refused, and profiled files that
 * --src lacks are named, apart from files that were never in the tree.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hintlab } from './helpers.ts';

const C_FILE = 'int f(int x)\n{\n\tif (x < 0)\n\t\treturn -22;\n\treturn x;\n}\n';

let dir = '';
let src = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hintlab-hints-tree-'));
  src = join(dir, 'src');
  mkdirSync(join(src, 'kernel'), { recursive: true });
  writeFileSync(join(src, 'kernel', 'a.c'), C_FILE);
  writeFileSync(join(dir, 'secret.c'), C_FILE);
  symlinkSync('../secret.c', join(src, 'link.c'));
  symlinkSync('..', join(src, 'up'));
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function staticHints(path: string): Promise<{ code: number; stderr: string; stdout: string }> {
  return hintlab(['hints', '--static', '--src', src, '--path', path]);
}

describe('--path', () => {
  test('a path that does not exist is named in a usage error', async () => {
    const r = await staticHints('nosuch.c');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--path nosuch\.c: no such file or directory under --src /);
    assert.doesNotMatch(r.stderr, /internal error/);
  });

  test('../x, an absolute path elsewhere and symlinks out of the tree are refused before anything is read', async () => {
    for (const p of ['../secret.c', join(dir, 'secret.c'), 'link.c', 'up/secret.c', 'up']) {
      const r = await staticHints(p);
      assert.equal(r.code, 2, `${p}: ${r.stderr}`);
      assert.match(r.stderr, /outside --src/, p);
      assert.equal(r.stdout, '', p);
    }
  });

  test('a path inside the tree, relative or absolute, is read', async () => {
    for (const p of ['kernel/a.c', join(src, 'kernel'), '.']) {
      const r = await staticHints(p);
      assert.equal(r.code, 0, `${p}: ${r.stderr}`);
      assert.match(r.stdout, /^1 ifs in 1 files$/m, p);
    }
  });
});

describe('profiled files --src lacks', () => {
  test('are named as missing in the tree, apart from files outside it', async () => {
    // Profiled tree: prof/ with main.c and inc/helper.h; ext/outside.h was never in it.
    const prof = join(dir, 'prof');
    mkdirSync(join(prof, 'inc'), { recursive: true });
    mkdirSync(join(dir, 'ext'));
    const inline = (name: string): string => `static inline int ${name}(int x)\n{\n\tif (x & 1)\n\t\treturn x * 3;\n\treturn x;\n}\n`;
    writeFileSync(join(prof, 'inc', 'helper.h'), inline('helper'));
    writeFileSync(join(dir, 'ext', 'outside.h'), inline('outside'));
    writeFileSync(
      join(prof, 'main.c'),
      '#include "inc/helper.h"\n#include "outside.h"\n' +
        'int main(int argc, char **argv)\n{\n\tint n = argc * 1000, s = 0;\n\tfor (int i = 0; i < n; i++)\n\t\ts += helper(i) + outside(i);\n\treturn s == 42;\n}\n',
    );
    execFileSync('gcc', ['--coverage', '-O1', '-I', '../ext', '-o', 'main', 'main.c'], { cwd: prof });
    execFileSync(join(prof, 'main'), ['x'], { cwd: prof });
    execFileSync('gcov', ['-j', 'main.c'], { cwd: prof, stdio: 'ignore' });
    // --src is a copy of the tree that lacks inc/helper.h.
    const partial = join(dir, 'partial');
    mkdirSync(partial);
    copyFileSync(join(prof, 'main.c'), join(partial, 'main.c'));
    const r = await hintlab(['hints', `w=${join(prof, 'main.gcov.json.gz')}`, '--src', partial, '--min-hits', '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 profiled files missing in the source tree, ignored \(is --src the profiled tree\?\): inc\/helper\.h(;|$)/m);
    assert.match(r.stdout, /1 profiled files outside the source tree ignored: \S*\/ext\/outside\.h$/m);
    const j = await hintlab(['hints', `w=${join(prof, 'main.gcov.json.gz')}`, '--src', partial, '--format', 'json']);
    const w = (JSON.parse(j.stdout) as { workloads: { missingInSourceTree: string[]; outsideSourceTree: string[] }[] }).workloads[0];
    assert.deepEqual(w?.missingInSourceTree, ['inc/helper.h']);
    assert.equal(w.outsideSourceTree.length, 1);
  });
});

describe('--static', () => {
  test('prints the columns a heuristic has: no executions, then-share or workloads columns of "-"', async () => {
    mkdirSync(join(src, 'sys'), { recursive: true });
    writeFileSync(join(src, 'sys', 'foo.c'), 'SYSCALL_DEFINE1(foo, int, x)\n{\n\tif (x < 0)\n\t\treturn -EINVAL;\n\treturn x;\n}\n');
    const r = await staticHints('sys');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[1]!, /^file:line +function +proposal +confidence$/);
    // The `if` of line 3, in the function SYSCALL_DEFINE1(foo, ...) defines.
    assert.match(lines[2]!, /^sys\/foo\.c:3 +__do_sys_foo +unlikely +heuristic$/);
  });
});
