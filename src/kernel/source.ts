/**
 * The user's kernel tree is never written to. A build works on a copy made
 * of hard links (`cp -al`, seconds for a whole tree, no extra disk), in
 * which every file a patch touches is first replaced by a real copy: patch
 * then edits files no other tree shares, whatever way it writes them.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, utimesSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.ts';
import { writeAtomically } from '../write-file.ts';
import type { AppliedFile, AppliedHunk, PatchRecord } from './manifest.ts';
import { type PatchName, patchNames, patchSections, stripOne } from './patch-names.ts';

/** `6.12.57` from the tree's top Makefile (VERSION, PATCHLEVEL, SUBLEVEL, EXTRAVERSION). */
export function kernelVersion(src: string): string {
  const makefile = join(src, 'Makefile');
  if (!existsSync(makefile)) throw new UserError(`--src ${src}: no Makefile; point --src at the top of a Linux source tree`, 2);
  const text = readFileSync(makefile, 'utf8').split('\n').slice(0, 12).join('\n');
  const field = (name: string): string => new RegExp(`^${name}[ \\t]*=[ \\t]*(\\S*)`, 'm').exec(text)?.[1] ?? '';
  const [v, p, s] = [field('VERSION'), field('PATCHLEVEL'), field('SUBLEVEL')];
  if (!v || !p) throw new UserError(`--src ${src}: the Makefile has no VERSION/PATCHLEVEL; is this a Linux source tree?`, 2);
  return `${v}.${p}${s ? `.${s}` : ''}${field('EXTRAVERSION')}`;
}

/**
 * sha256 over every file's path, size and mtime (not contents: a tree has
 * ~90k files). Any edit, added or removed file changes it.
 */
export function treeFingerprint(src: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git') continue;
      const path = join(dir, name);
      const st = lstatSync(path);
      if (st.isDirectory()) walk(path);
      else hash.update(`${relative(src, path)}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  walk(src);
  return hash.digest('hex');
}

/** The files a unified diff touches, relative to the tree (as `patch -p1` strips `a/` and `b/`). */
export function patchedFiles(diff: string, source?: string): string[] {
  return [...new Set(patchSections(diff, source).flatMap((s) => [s.oldName, s.newName]).filter((n) => n !== '/dev/null').map(stripOne))].filter(Boolean).sort();
}

/** Read and hash a patch; errors name the file. */
export function readPatch(path: string): PatchRecord & { text: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a diff' : code === 'EACCES' ? 'not readable (permission denied)' : (code ?? (err as Error).message);
    throw new UserError(`--patch ${path}: ${why}`, 2);
  }
  const files = patchedFiles(text, `--patch ${path}`);
  if (files.length === 0) throw new UserError(`--patch ${path}: no '+++ b/...' lines; expected a unified diff made with 'git diff' or 'diff -u' (applied with -p1)`, 2);
  return { path, sha256: createHash('sha256').update(text).digest('hex'), files, text };
}

/** Each file a unified diff names (`---`/`+++` and git's rename/copy lines, /dev/null aside), as `patch -p1` strips it, with its 1-based line in the diff. */
export function patchTargets(diff: string, source?: string): PatchName[] {
  return patchNames(diff, source);
}

/** The first part of `rel` (a path inside `root`) that is a symbolic link, with where it points; null when none is. */
export function linkOnPath(root: string, rel: string): { at: string; to: string } | null {
  let at = root;
  for (const part of rel.split('/').filter((p) => p !== '' && p !== '.')) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      return null; // a file the patch creates: nothing further exists to follow
    }
    if (st.isSymbolicLink()) return { at, to: readlinkSync(at) };
  }
  return null;
}

/**
 * Refuse a patch that names a file outside `tree` (`../../etc/x`, an
 * absolute path) or reaches it through a symbolic link of the tree (a link
 * to a directory or a file): patching, or giving the file its own inode in
 * the copy, would write where the link points. Names the patch file and line.
 */
export function checkPatchTargets(tree: string, patch: { path: string; text: string }): void {
  for (const t of patchTargets(patch.text, `--patch ${patch.path}`)) {
    const where = `--patch ${patch.path}, line ${t.line}`;
    if (t.file === '' || isAbsolute(t.file) || t.file.split('/').includes('..')) {
      throw new UserError(`${where}: '${t.given}' names a file outside the source tree; a patch for -p1 names files inside it (a/kernel/sys.c, b/kernel/sys.c); fix that line`, 2);
    }
    const link = linkOnPath(tree, t.file);
    if (link) {
      throw new UserError(
        `${where}: '${t.given}' goes through ${link.at}, a symbolic link (to ${link.to}); hintlab never writes through a link of the tree, ` +
          `so patch the file where it really is, or make ${relative(tree, link.at)} a real directory or file`,
        2,
      );
    }
  }
}

function inside(root: string, rel: string): string {
  const path = resolve(root, rel);
  if (!path.startsWith(root + sep)) throw new UserError(`a patch names '${rel}', which is outside the source tree`, 2);
  const link = linkOnPath(root, rel);
  if (link) throw new UserError(`a patch names '${rel}', which goes through ${link.at}, a symbolic link (to ${link.to}); hintlab never writes through a link of the tree`, 2);
  return path;
}

/**
 * A fresh hard-link copy of `src` at `dest`, ready for `make O=`: the files
 * in `detach` become real copies with the current time as mtime (so make
 * rebuilds what a previous build's patches had changed), and the marks of
 * an in-place configuration that make O= refuses are unlinked from the copy.
 * `keep` names a directory of the old copy that survives into the new one
 * (make's object directory); the same name in `src` is left out of the copy.
 */
export function linkCopy(srcPath: string, dest: string, detach: readonly string[], keep: string | null = null): void {
  // cp copies a symlink as a symlink: copy what it points to, or every later
  // write to the "copy" (patches, removing .config) would land in the user's tree
  const src = realpathSync(srcPath);
  // the object directory lives inside the copy (see layout.ts): moved aside, not lost
  const kept = keep !== null && existsSync(join(dest, keep)) ? `${dest}.${keep}-kept` : null;
  if (kept) {
    rmSync(kept, { recursive: true, force: true });
    renameSync(join(dest, keep!), kept);
  }
  rmSync(dest, { recursive: true, force: true });
  let cp = spawnSync('cp', ['-al', '--', src, dest], { encoding: 'utf8' });
  if (cp.status !== 0) {
    // another filesystem: hard links are impossible, a real copy is slower but as safe
    rmSync(dest, { recursive: true, force: true });
    cp = spawnSync('cp', ['-a', '--', src, dest], { encoding: 'utf8' });
  }
  if (cp.status !== 0) throw new UserError(`cannot copy ${src} to ${dest}: ${cp.stderr.trim() || cp.error?.message}`);
  rmSync(join(dest, '.git'), { recursive: true, force: true });
  for (const mark of ['.config', 'include/config', 'arch/x86/include/generated']) {
    rmSync(join(dest, mark), { recursive: true, force: true });
  }
  if (keep !== null) rmSync(join(dest, keep), { recursive: true, force: true });
  if (kept) renameSync(kept, join(dest, keep!));
  const now = new Date();
  for (const rel of detach) {
    const path = inside(dest, rel);
    if (!existsSync(path)) continue;
    // a new inode with the same content and mode (through an exclusive temporary
    // file: nothing the tree holds is followed); the user's file keeps its own
    writeAtomically(path, readFileSync(path), lstatSync(path).mode & 0o7777);
    utimesSync(path, now, now);
  }
}

/** Each file section of a unified diff in order, with the new-file start line of each of its hunks. */
export function diffHunks(diff: string): { file: string; starts: number[] }[] {
  return patchSections(diff).map((s) => ({ file: stripOne(s.newName === '/dev/null' ? s.oldName : s.newName), starts: s.hunkStarts }));
}

/**
 * patch(1)'s report, file by file: "patching file F", then a line per hunk
 * that did not apply exactly where its header said ("Hunk #2 succeeded at
 * 640 (offset 3 lines).", "... with fuzz 1 ..."); a silent hunk applied as is.
 */
export function patchReport(output: string): { file: string; hunks: Map<number, { line: number; offsetLines: number; fuzz: number }> }[] {
  const files: { file: string; hunks: Map<number, { line: number; offsetLines: number; fuzz: number }> }[] = [];
  for (const line of output.split('\n')) {
    const file = /^patching file (.+)$/.exec(line);
    if (file) files.push({ file: file[1]!.replace(/^'(.*)'$/, '$1'), hunks: new Map() });
    const hunk = /^Hunk #(\d+) succeeded at (\d+)(?: with fuzz (\d+))?(?: \(offset (-?\d+) lines?\))?\./.exec(line);
    if (hunk) files.at(-1)?.hunks.set(Number(hunk[1]), { line: Number(hunk[2]), offsetLines: Number(hunk[4] ?? 0), fuzz: Number(hunk[3] ?? 0) });
  }
  return files;
}

/** Where every hunk of `diff` applied: the header's line unless patch reported it elsewhere. */
export function appliedHunks(diff: string, output: string): AppliedFile[] {
  const reports = patchReport(output);
  return diffHunks(diff).map((section, i) => {
    // patch reports the files in the diff's order; a name match covers output it did not label as expected
    const report = reports[i]?.file === section.file ? reports[i] : reports.find((r) => r.file === section.file);
    const hunks: AppliedHunk[] = section.starts.map((start, h) => {
      const r = report?.hunks.get(h + 1);
      return r ? { hunk: h + 1, ...r } : { hunk: h + 1, line: start, offsetLines: 0, fuzz: 0 };
    });
    return { file: section.file, hunks };
  });
}

/** A patch as a trial has it before any file is written: its name in messages (`s.mbox, message 2`) and its text. */
export interface PatchText {
  path: string;
  text: string;
}

function patchOf(p: string | PatchText): PatchRecord & { text: string } {
  if (typeof p === 'string') return readPatch(p);
  return { path: p.path, sha256: createHash('sha256').update(p.text).digest('hex'), files: patchedFiles(p.text, `--patch ${p.path}`), text: p.text };
}

/**
 * Check, without writing anything, that each patch applies to `tree` as the
 * build will apply it (`patch -p1 --fuzz=0 --dry-run`), so a patch that
 * cannot apply fails in a second, not after a whole build of A. A patch
 * touching a file an earlier patch touches is left to the build: its dry
 * run would not see the earlier patch. A patch given as text (a message
 * of an mbox series) goes to patch(1) on its standard input.
 */
export function checkPatchesApply(tree: string, patches: readonly (string | PatchText)[]): void {
  const touched = new Set<string>();
  for (const given of patches) {
    const patch = patchOf(given);
    checkPatchTargets(tree, patch);
    const after = patch.files.some((f) => touched.has(f));
    patch.files.forEach((f) => touched.add(f));
    if (after) continue;
    const input = typeof given === 'string' ? ['-i', given] : [];
    const r = spawnSync('patch', ['-p1', '--dry-run', '--forward', '--batch', '--fuzz=0', '-d', tree, ...input], { encoding: 'utf8', ...(typeof given === 'string' ? {} : { input: given.text }) });
    if (r.error) throw new UserError(`cannot run patch(1) (${r.error.message}); install it with 'apt-get install patch'`);
    if (r.status !== 0) throw new UserError(`--patch ${patch.path} does not apply to ${tree} (checked with --dry-run; nothing was built or written):\n${(r.stdout + r.stderr).trim()}`, 2);
  }
}

/**
 * Apply one patch to the copy with `patch -p1`, no fuzz (a shifted hunk may
 * apply, a mismatched context may not); a failure shows patch's own words.
 * Returns where each hunk applied.
 */
export function applyPatch(tree: string, patch: PatchRecord & { text?: string }): AppliedFile[] {
  const r = spawnSync('patch', ['-p1', '--forward', '--batch', '--fuzz=0', '--no-backup-if-mismatch', '-d', tree, '-i', patch.path], { encoding: 'utf8' });
  if (r.error) throw new UserError(`cannot run patch(1) (${r.error.message}); install it with 'apt-get install patch'`);
  if (r.status !== 0) {
    throw new UserError(`--patch ${patch.path} does not apply to this tree (the tree itself is unchanged):\n${(r.stdout + r.stderr).trim()}`);
  }
  return appliedHunks(patch.text ?? readFileSync(patch.path, 'utf8'), r.stdout);
}
