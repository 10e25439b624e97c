/** Hostile cases about flags and arguments: refused before anything runs, naming the flag. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Case, crashed, hintlab, refused, type Scratch, summary } from './harness.ts';
import { runsIn } from './cases-files.ts';

const QUICK = ['--rounds', '2', '--warmups', '0', '--processes', '1', '--ops', '1000'];

/** A case that must be refused with exit 2, a one-line message matching `mentions`, and nothing stored. */
function mustRefuse(action: string, args: (s: Scratch) => string[], mentions: RegExp, expected = 'refused naming the flag, exit 2, nothing stored'): Case {
  return {
    action,
    expected,
    run(s) {
      const db = join(s.dir, `refuse-${action.replace(/\W+/g, '-')}.db`);
      const r = hintlab(s, [...args(s), '--db', db]);
      const stored = runsIn(db);
      const nothing = !/^[1-9]/.test(stored);
      return { observed: `${summary(r)}; ${nothing ? 'nothing stored' : stored}`, clean: refused(r, mentions) && nothing };
    },
  };
}

/** A small C tree for hints: one syscall-like function with an early error return. */
function cTree(s: Scratch): string {
  const src = join(s.dir, 'csrc');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'a.c'), 'long ksys_a(int x)\n{\n\tif (x < 0)\n\t\treturn -EINVAL;\n\treturn x;\n}\n');
  return src;
}

/** gcov JSON of a program built from main.c and helper.c, and a --src holding only main.c. */
function gcovPartlyMissing(s: Scratch): { profile: string; src: string } {
  const build = join(s.dir, 'gcov-build');
  mkdirSync(build, { recursive: true });
  writeFileSync(join(build, 'helper.c'), 'int helper(int x)\n{\n\tif (x % 7 == 0)\n\t\treturn 1;\n\treturn 0;\n}\n');
  writeFileSync(join(build, 'main.c'), 'int helper(int);\nint main(void)\n{\n\tint n = 0;\n\tfor (int i = 0; i < 100000; i++)\n\t\tif (helper(i))\n\t\t\tn++;\n\treturn n == 0;\n}\n');
  for (const c of ['main', 'helper']) execFileSync('gcc', ['--coverage', '-O2', '-c', `${c}.c`], { cwd: build });
  execFileSync('gcc', ['--coverage', '-o', 'prog', 'main.o', 'helper.o'], { cwd: build });
  execFileSync(join(build, 'prog'), { cwd: build });
  execFileSync('gcov', ['-j', '-b', 'main.c', 'helper.c'], { cwd: build, stdio: 'ignore' });
  const src = join(s.dir, 'gcov-src');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'main.c'), 'int helper(int);\nint main(void)\n{\n\tint n = 0;\n\tfor (int i = 0; i < 100000; i++)\n\t\tif (helper(i))\n\t\t\tn++;\n\treturn n == 0;\n}\n');
  return { profile: build, src };
}

export const inputCases: Case[] = [
  mustRefuse("bench --profile ''", () => ['bench', '--profile', '', ...QUICK], /--profile/),
  mustRefuse('bench --label with a newline', () => ['bench', '--profile', 'getppid', '--label', 'a\nb', ...QUICK], /--label/),
  mustRefuse("bench --label ''", () => ['bench', '--profile', 'getppid', '--label', '', ...QUICK], /--label/),
  mustRefuse('bench --inject-seccomp 5000 (above the kernel limit of 4096 instructions)', () => ['bench', '--profile', 'getppid', '--inject-seccomp', '5000', ...QUICK], /--inject-seccomp/, 'refused before starting, exit 2, nothing stored'),
  {
    action: 'compare 1 1 (a run with itself)',
    expected: 'refused, exit 2',
    run(s) {
      const r = hintlab(s, ['compare', '1', '1', '--db', s.db]);
      return { observed: summary(r), clean: refused(r) };
    },
  },
  {
    action: 'hints --static --path nosuch.c',
    expected: 'refused naming the missing path, exit 2',
    run(s) {
      const r = hintlab(s, ['hints', '--static', '--src', cTree(s), '--path', 'nosuch.c']);
      return { observed: summary(r), clean: refused(r, /nosuch\.c/) };
    },
  },
  {
    action: 'hints --static --path ../x (a directory of C files beside --src)',
    expected: 'refused as outside --src, exit 2',
    run(s) {
      const src = cTree(s);
      mkdirSync(join(s.dir, 'x'), { recursive: true });
      writeFileSync(join(s.dir, 'x', 'b.c'), 'long ksys_b(int x)\n{\n\tif (x < 0)\n\t\treturn -EINVAL;\n\treturn x;\n}\n');
      const r = hintlab(s, ['hints', '--static', '--src', src, '--path', '../x']);
      return { observed: summary(r), clean: refused(r, /--src|outside/) };
    },
  },
  {
    action: 'hints on a gcov profile whose helper.c is missing from --src',
    expected: 'the missing file is named',
    run(s) {
      const { profile, src } = gcovPartlyMissing(s);
      const r = hintlab(s, ['hints', '--src', src, `w=${profile}`]);
      const named = /helper\.c/.test(r.stdout + r.stderr);
      return { observed: `${summary(r)}; helper.c ${named ? 'named' : 'not named'} in the output`, clean: named && !crashed(r) };
    },
  },
  {
    action: 'codegen --before missing.c --after x.c',
    expected: 'refused naming the file; no temporary directory left behind',
    run(s) {
      const tmp = join(s.dir, 'tmp');
      const x = join(s.dir, 'x.c');
      writeFileSync(x, 'int x(void) { return 1; }\n');
      const before = readdirSync(tmp).length;
      const r = hintlab(s, ['codegen', '--before', join(s.dir, 'missing.c'), '--after', x]);
      const left = readdirSync(tmp).length - before;
      return { observed: `${summary(r)}; ${left} new entries in TMPDIR`, clean: r.status !== 0 && !crashed(r) && /missing\.c/.test(r.stderr) && left === 0 };
    },
  },
];
