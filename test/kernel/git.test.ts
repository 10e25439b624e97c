/**
 * The git plumbing against a small history made with the real git: refs,
 * ancestry, the commits of a range, a commit as a patch, a tree exported,
 * and the errors that name their input.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { commitPatch, exportTree, gitTopLevel, isAncestor, parseRange, rangeCommits, resolveRange, revParse } from '../../src/kernel/git.ts';
import { tempDir } from '../helpers/cli.ts';
import { commit, gitIn, initRepo } from '../helpers/git-history.ts';

function history() {
  const repo = tempDir();
  writeFileSync(join(repo, 'a.c'), 'int a(void)\n{\n\treturn 1;\n}\n');
  const base = initRepo(repo);
  const one = commit(repo, 'a: return 2', { 'a.c': 'int a(void)\n{\n\treturn 2;\n}\n' });
  const two = commit(repo, 'b: new file', { 'b.c': 'int b;\n' });
  gitIn(repo, 'tag', 'v1', base);
  return { repo, base, one, two };
}

test('a range lists its commits oldest first with subjects and authors, BASE left out', () => {
  const h = history();
  const r = resolveRange(h.repo, 'v1..main');
  assert.equal(r.base.commit, h.base);
  assert.equal(r.head.commit, h.two);
  assert.deepEqual(r.commits.map((c) => [c.commit, c.subject, c.author]), [
    [h.one, 'a: return 2', 'Ada Dev <ada@example.org>'],
    [h.two, 'b: new file', 'Ada Dev <ada@example.org>'],
  ]);
  assert.deepEqual(rangeCommits(h.repo, h.one, h.two).map((c) => c.subject), ['b: new file']);
});

test('revParse gives the full hash of a tag and names an unknown ref with its flag', () => {
  const h = history();
  assert.equal(revParse(h.repo, 'v1'), h.base);
  assert.throws(() => revParse(h.repo, 'no-such-ref'), (e: unknown) => e instanceof UserError && /--range: unknown revision 'no-such-ref'/.test(e.message));
  assert.throws(() => revParse(h.repo, '--all'), /not a revision/);
});

test('a range whose BASE is not an ancestor of HEAD is refused as no ancestry path', () => {
  const h = history();
  assert.equal(isAncestor(h.repo, h.base, h.two), true);
  assert.equal(isAncestor(h.repo, h.two, h.base), false);
  assert.throws(() => resolveRange(h.repo, 'main..v1'), /main is not an ancestor of v1 .*no ancestry path/);
  assert.throws(() => resolveRange(h.repo, 'main..main'), /the same commit/);
});

test('parseRange wants two dots and both ends', () => {
  assert.deepEqual(parseRange('v6.12..my.series'), { base: 'v6.12', head: 'my.series' });
  for (const bad of ['v1...v2', 'v1..', '..v2', 'v1']) assert.throws(() => parseRange(bad), /expected BASE\.\.HEAD/);
});

test('a directory that is no git repository is named in the error', () => {
  const dir = tempDir();
  assert.throws(() => gitTopLevel(dir), (e: unknown) => e instanceof UserError && e.message.startsWith(`--src ${dir}: not a git repository`));
});

test('commitPatch writes a -p1 diff against the first parent, a new file from /dev/null', () => {
  const h = history();
  const [one, two] = resolveRange(h.repo, 'v1..main').commits;
  assert.match(commitPatch(h.repo, one!), /--- a\/a\.c\n\+\+\+ b\/a\.c\n@@ -1,4 \+1,4 @@\n int a\(void\)\n \{\n-\treturn 1;\n\+\treturn 2;/);
  assert.match(commitPatch(h.repo, two!), /--- \/dev\/null\n\+\+\+ b\/b\.c/);
});

test('commitPatch refuses a commit that adds a symbolic link, which patch(1) would write as a regular file, naming the commit and the link', () => {
  const h = history();
  symlinkSync('a.c', join(h.repo, 'a-link.c'));
  gitIn(h.repo, 'add', 'a-link.c');
  gitIn(h.repo, 'commit', '-q', '-m', 'a: link');
  const link = resolveRange(h.repo, 'v1..main').commits[2]!;
  assert.throws(() => commitPatch(h.repo, link), (err: unknown) => err instanceof UserError && err.exitCode === 2 && /^commit [0-9a-f]{12} \("a: link"\) changes the symbolic link a-link\.c; patch\(1\) would write it as a regular file/.test(err.message));
});

test('exportTree writes the commit\'s files with the commit time, without .git, and the same commit exports the same mtimes', async () => {
  const h = history();
  const dest = join(tempDir(), 'tree');
  await exportTree(h.repo, h.one, dest);
  assert.equal(readFileSync(join(dest, 'a.c'), 'utf8'), 'int a(void)\n{\n\treturn 2;\n}\n');
  assert.throws(() => statSync(join(dest, 'b.c')));
  assert.throws(() => statSync(join(dest, '.git')));
  assert.equal(statSync(join(dest, 'a.c')).mtime.toISOString(), '2026-01-01T00:00:00.000Z');
  await assert.rejects(exportTree(h.repo, 'f'.repeat(40), join(tempDir(), 't')), /git archive of f+ .* failed/);
});
