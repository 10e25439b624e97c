/**
 * Hostile cases about source trees, output directories, patches and
 * temporary files: what `kernel build`, `trial` and `export -o` clear,
 * follow or overwrite when the paths they are given are hostile.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Case, crashed, hintlab, nodeKind, refused, type Result, type Scratch, summary } from './harness.ts';

const SYS_C = 'int getppid(void)\n{\n\treturn 1;\n}\n';

/** A small kernel-shaped tree (top Makefile with the version, one C file) at `at`. */
function tree(at: string): string {
  mkdirSync(join(at, 'kernel'), { recursive: true });
  writeFileSync(join(at, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\n');
  writeFileSync(join(at, 'kernel/sys.c'), SYS_C);
  return at;
}

/** A -p1 diff of `file` changing `return 1` to `return 2`. */
function patch(s: Scratch, name: string, file: string): string {
  const path = join(s.dir, name);
  writeFileSync(path, `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,4 +1,4 @@\n int getppid(void)\n {\n-\treturn 1;\n+\treturn 2;\n }\n`);
  return path;
}

/** A user's own file, which no copy of the tree would bring back. */
function userFile(dir: string): () => boolean {
  writeFileSync(join(dir, 'notes.txt'), 'mine\n');
  return () => existsSync(join(dir, 'notes.txt')) && readFileSync(join(dir, 'notes.txt'), 'utf8') === 'mine\n';
}

const intact = (src: string): boolean => existsSync(join(src, 'kernel/sys.c')) && readFileSync(join(src, 'kernel/sys.c'), 'utf8') === SYS_C;

const build = (s: Scratch, src: string, out: string, extra: string[] = []): Result => hintlab(s, ['kernel', 'build', '--src', src, '--out', out, '--label', 'A', ...extra], 300_000);

const trial = (s: Scratch, src: string, out: string): Result =>
  hintlab(s, ['trial', '--src', src, '--patch', patch(s, `trial-${Date.now()}.patch`, 'kernel/sys.c'), '--out', out, '--db', join(s.dir, 'trial.db'), '--scenario', 'all'], 300_000);

/** The pids the next processes will most likely get: the last one given out, and the next `n`. */
function nextPids(n: number): number[] {
  const last = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
  return Array.from({ length: n }, (_, i) => last + 1 + i);
}

export const treeCases: Case[] = [
  {
    action: 'kernel build --src X/work/src --out X (the tree where the build puts its copy)',
    expected: 'refused before anything is removed, exit 2; every file of the tree stays',
    run(s) {
      const x = join(s.dir, 'kb-x');
      const src = tree(join(x, 'work', 'src'));
      const r = build(s, src, x);
      return { observed: `${summary(r)}; the tree is ${intact(src) ? 'intact' : 'GONE'}`, clean: refused(r, /--src/) && intact(src) };
    },
  },
  {
    action: 'trial --src Y/A/work/src --out Y (the tree where build A puts its copy)',
    expected: 'refused before anything is removed, exit 2; every file of the tree stays',
    run(s) {
      const y = join(s.dir, 'trial-y');
      const src = tree(join(y, 'A', 'work', 'src'));
      const r = trial(s, src, y);
      return { observed: `${summary(r)}; the tree is ${intact(src) ? 'intact' : 'GONE'}`, clean: refused(r, /--src/) && intact(src) };
    },
  },
  {
    action: "kernel build --out D where D/work/src already holds a user's files (no marker)",
    expected: 'refused naming D and the fix, exit 2; the files stay',
    run(s) {
      const src = tree(join(s.dir, 'kb-src'));
      const d = join(s.dir, 'kb-d');
      cpSync(src, join(d, 'work', 'src'), { recursive: true });
      const mine = userFile(join(d, 'work', 'src'));
      const r = build(s, src, d);
      const kept = mine();
      return { observed: `${summary(r)}; D/work/src ${kept ? 'kept' : 'DELETED'}`, clean: refused(r, /kb-d holds files hintlab did not write/) && kept };
    },
  },
  {
    action: "trial --out D where D/A/work/src already holds a user's files (no marker)",
    expected: 'refused naming D/A and the fix, exit 2; the files stay',
    run(s) {
      const src = tree(join(s.dir, 'trial-src'));
      const d = join(s.dir, 'trial-d');
      cpSync(src, join(d, 'A', 'work', 'src'), { recursive: true });
      const mine = userFile(join(d, 'A', 'work', 'src'));
      const r = trial(s, src, d);
      const kept = mine();
      return { observed: `${summary(r)}; D/A/work/src ${kept ? 'kept' : 'DELETED'}`, clean: refused(r, /trial-d\/A holds files hintlab did not write/) && kept };
    },
  },
  {
    action: 'trial --out EXISTING_FILE',
    expected: 'a usage error naming --out, exit 2; the file unchanged',
    run(s) {
      const src = tree(join(s.dir, 'trial-file-src'));
      const file = join(s.dir, 'not-a-dir');
      writeFileSync(file, 'mine\n');
      const r = trial(s, src, file);
      const same = readFileSync(file, 'utf8') === 'mine\n';
      return { observed: `${summary(r)}; file ${same ? 'unchanged' : 'changed'}`, clean: refused(r, /--out .* is not a directory/) && same };
    },
  },
  {
    action: 'kernel build --patch naming a/lnk/x.c, lnk a symlink in the tree to a directory outside it',
    expected: 'refused naming the patch, its line and the link, exit 2; the file outside keeps its inode, owner, links and content',
    run(s) {
      const src = tree(join(s.dir, 'lnk-src'));
      const outside = join(s.dir, 'lnk-outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'x.c'), SYS_C);
      symlinkSync(outside, join(src, 'lnk'));
      const before = statSync(join(outside, 'x.c'));
      const r = build(s, src, join(s.dir, 'lnk-out'), ['--patch', patch(s, 'lnk.patch', 'lnk/x.c')]);
      const after = statSync(join(outside, 'x.c'));
      const same = after.ino === before.ino && after.nlink === before.nlink && after.uid === before.uid && readFileSync(join(outside, 'x.c'), 'utf8') === SYS_C;
      return { observed: `${summary(r)}; the file outside ${same ? 'unchanged' : 'CHANGED (inode, links or content)'}`, clean: refused(r, /lnk\.patch, line 2: .*symbolic link/) && same };
    },
  },
  {
    action: 'kernel build --patch naming a/../../etc/x',
    expected: 'refused naming the patch file and its line, exit 2',
    run(s) {
      const src = tree(join(s.dir, 'dotdot-src'));
      const r = build(s, src, join(s.dir, 'dotdot-out'), ['--patch', patch(s, 'dotdot.patch', '../../etc/x')]);
      return { observed: summary(r), clean: refused(r, /dotdot\.patch, line 2: .*outside the source tree/) };
    },
  },
  {
    action: 'export -o DIR/out.csv in a sticky 1777 directory where .out.csv.tmp-PID links to a root-only file (planted for the next 2000 pids)',
    expected: 'the root-only file untouched; out.csv a regular file holding the CSV',
    run(s) {
      const shared = join(s.dir, 'sticky');
      mkdirSync(shared, { mode: 0o1777 });
      const victim = join(s.dir, 'root-only');
      writeFileSync(victim, 'secret\n', { mode: 0o600 });
      for (const pid of nextPids(2000)) symlinkSync(victim, join(shared, `.out.csv.tmp-${pid}`));
      const r = hintlab(s, ['export', 'A', '--format', 'csv', '-o', join(shared, 'out.csv'), '--db', s.db]);
      const untouched = readFileSync(victim, 'utf8') === 'secret\n';
      const out = join(shared, 'out.csv');
      const csv = nodeKind(out) === 'a regular file' && readFileSync(out, 'utf8').startsWith('run_id,');
      return {
        observed: `${summary(r)}; the root-only file ${untouched ? 'untouched' : 'OVERWRITTEN'}; out.csv is ${nodeKind(out)}${csv ? ' with the CSV' : ''}`,
        clean: r.status === 0 && !crashed(r) && untouched && csv && !lstatSync(out).isSymbolicLink(),
      };
    },
  },
];
