/**
 * Apply a unified diff to the scratch mirror with GNU patch, and take it off
 * again. Files the patch touches are first replaced by private copies, so
 * patching never writes through a hard link into the user's tree.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';
import { checkPatchTargets } from '../kernel/source.ts';
import { patchNames } from '../kernel/patch-names.ts';
import { breakLink, replaceWithCopy } from './workspace.ts';

/** The tree-relative paths a -p1 patch reads or writes (`--- a/x`, `+++ b/x`, git rename/copy lines). */
export function patchedPaths(patchText: string, source?: string): string[] {
  return [...new Set(patchNames(patchText, source).map((n) => n.file))];
}

function runPatch(dir: string, patchFile: string, extra: string[]): Promise<{ ok: boolean; output: string }> {
  const args = ['-p1', '--batch', '--forward', '--no-backup-if-mismatch', '--reject-file=-', '-d', dir, '-i', patchFile, ...extra];
  return new Promise((resolve, reject) => {
    execFile('patch', args, { env: { ...process.env, LC_ALL: 'C' } }, (err, stdout, stderr) => {
      if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
        reject(new UserError("'patch' not found: install it with 'apt-get install -y patch'")); return;
      }
      resolve({ ok: !err, output: `${stdout}${stderr}`.trim() });
    });
  });
}

/** A patch applied to a mirror; `revert` restores the touched files from the user's tree. */
export class AppliedPatch {
  private constructor(
    private readonly mirror: string,
    private readonly tree: string,
    readonly paths: string[],
  ) {}

  /** Check with --dry-run, then apply; a patch that does not apply is a UserError quoting patch's own report. */
  static async apply(mirror: string, tree: string, patchFile: string): Promise<AppliedPatch> {
    const text = readFileSync(patchFile, 'utf8');
    const paths = patchedPaths(text, `--patch ${patchFile}`);
    // a link in the tree is a link in the mirror: breaking it or reverting would write where it points
    checkPatchTargets(tree, { path: patchFile, text });
    checkPatchTargets(mirror, { path: patchFile, text });
    if (paths.length === 0) throw new UserError(`--patch ${patchFile}: no '--- a/...' / '+++ b/...' file headers found; give a unified diff (git diff, git format-patch)`, 2);
    const check = await runPatch(mirror, patchFile, ['--dry-run']);
    if (!check.ok) {
      throw new UserError(`--patch ${patchFile} does not apply to ${tree} (patch -p1 --dry-run says):\n${indent(check.output)}\nRebase the patch onto this tree, or point --src at the tree it was made for.`, 2);
    }
    for (const p of paths) if (existsSync(join(mirror, p))) breakLink(join(mirror, p));
    const applied = new AppliedPatch(mirror, tree, paths);
    const result = await runPatch(mirror, patchFile, []);
    if (!result.ok) {
      applied.revert();
      throw new UserError(`--patch ${patchFile} failed to apply:\n${indent(result.output)}`);
    }
    return applied;
  }

  /** Put back the user's version of every touched file (as a private copy with a fresh mtime, so make rebuilds). */
  revert(): void {
    for (const p of this.paths) {
      const dst = join(this.mirror, p);
      if (existsSync(join(this.tree, p))) replaceWithCopy(join(this.tree, p), dst);
      else rmSync(dst, { force: true });
    }
  }
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
