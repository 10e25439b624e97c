/**
 * The hunks of a trial's change, taken from what B really is: the unified
 * diff (diff -U3) of every file the patches touch, A's tree against B's.
 * Several patches, or a patch whose hunks shifted, still give hunks that
 * each apply to A on their own.
 *
 * Hunks that cannot build alone are grouped before anything is built: a
 * hunk that declares or removes a name (a function, a #define, a struct, a
 * file-scope variable: lines at column 0 in kernel style) goes with every
 * hunk whose changed lines use that name (a helper and its caller, a new
 * parameter and the calls that pass it). A group is measured as one.
 *
 * `variantPatch` writes the patch of a set of hunks: the file headers and
 * those hunks, their new-side line numbers recounted.
 */
import { headerText } from '../kernel/patch-names.ts';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

export interface Hunk {
  /** 1-based over the whole change, in file then line order. */
  index: number;
  /** Relative to the tree. */
  file: string;
  oldStart: number;
  oldLines: number;
  /** Where the hunk starts in B's file. */
  newStart: number;
  newLines: number;
  /** The hunk's body: context (' '), removed ('-') and added ('+') lines, and '\ No newline' markers. */
  body: string[];
}

export interface HunkGroup {
  /** 1-based. */
  index: number;
  /** Indices of its hunks (one, unless names tie them together). */
  hunks: number[];
  /** Why the hunks are together: the names one declares and another uses. */
  names: string[];
}

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of one file's unified diff (its `---`/`+++` lines skipped). */
export function parseHunks(file: string, diff: string, firstIndex: number): Hunk[] {
  const hunks: Hunk[] = [];
  for (const line of diff.split('\n')) {
    const h = HEADER.exec(line);
    if (h) {
      hunks.push({ index: firstIndex + hunks.length, file, oldStart: Number(h[1]), oldLines: Number(h[2] ?? 1), newStart: Number(h[3]), newLines: Number(h[4] ?? 1), body: [] });
      continue;
    }
    const cur = hunks.at(-1);
    if (cur && (line.startsWith(' ') || line.startsWith('+') || line.startsWith('-') || line.startsWith('\\'))) cur.body.push(line);
  }
  return hunks;
}

/** Every hunk of B against A, file by file (files in the order given, sorted by the caller). */
export function changeHunks(aTree: string, bTree: string, files: readonly string[]): Hunk[] {
  const hunks: Hunk[] = [];
  for (const file of files) {
    const a = join(aTree, file);
    const b = join(bTree, file);
    if (!existsSync(a) && !existsSync(b)) continue;
    const r = spawnSync('diff', ['-U3', '-N', '--label', `a/${file}`, '--label', `b/${file}`, a, b], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.error) throw new UserError(`cannot run diff(1) (${r.error.message}); install it with 'apt-get install diffutils'`);
    if (r.status === 0) continue;
    if (r.status !== 1) throw new UserError(`diff of ${file} between A's and B's trees failed: ${r.stderr.trim()}`);
    hunks.push(...parseHunks(file, r.stdout, hunks.length + 1));
  }
  return hunks;
}

const KEYWORDS = new Set(
  'auto break case char const continue default do double else enum extern float for goto if inline int long register return short signed sizeof static struct switch typedef union unsigned void volatile while bool true false NULL likely unlikely'.split(' '),
);

/** Names a line at column 0 declares: `#define X`, `type name(`, `struct X {`, `type name =`/`;`. */
export function declaredNames(code: string): string[] {
  const define = /^#\s*define\s+(\w+)/.exec(code);
  if (define) return [define[1]!];
  if (/^\s/.test(code) || code === '' || /^[}#/*]/.test(code) || /^\w+:\s*$/.test(code)) return [];
  const tag = /^(?:typedef\s+)?(?:struct|union|enum)\s+(\w+)\s*\{/.exec(code);
  if (tag) return [tag[1]!];
  // a declarator: the last identifier before '(' (a function) or before '=', ';', '[' (a variable)
  const fn = /(\w+)\s*\(/.exec(code);
  if (fn && !KEYWORDS.has(fn[1]!)) {
    // SYSCALL_DEFINE3(name, ...) and friends declare the name inside the parentheses
    const macro = /^(?:COMPAT_)?SYSCALL_DEFINE\d\((\w+)/.exec(code);
    return [macro ? macro[1]! : fn[1]!];
  }
  const v = /(\w+)\s*(?:\[[^\]]*\]\s*)?(?:=|;)/.exec(code);
  return v && !KEYWORDS.has(v[1]!) ? [v[1]!] : [];
}

function changed(h: Hunk): string[] {
  return h.body.filter((l) => l.startsWith('+') || l.startsWith('-')).map((l) => l.slice(1));
}

function usedNames(h: Hunk): Set<string> {
  const names = new Set<string>();
  for (const line of changed(h)) for (const m of line.matchAll(/\b[A-Za-z_]\w*\b/g)) if (!KEYWORDS.has(m[0])) names.add(m[0]);
  return names;
}

/** Hunks tied by a name one declares (or removes) and another uses, as groups in hunk order. */
export function groupHunks(hunks: readonly Hunk[]): HunkGroup[] {
  const parent = hunks.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const why = new Map<number, Set<string>>();
  const used = hunks.map(usedNames);
  hunks.forEach((h, i) => {
    for (const name of new Set(changed(h).flatMap(declaredNames))) {
      used.forEach((names, j) => {
        if (j === i || !names.has(name)) return;
        const [a, b] = [find(i), find(j)];
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
        for (const k of [i, j]) why.set(k, (why.get(k) ?? new Set()).add(name));
      });
    }
  });
  const byRoot = new Map<number, number[]>();
  hunks.forEach((_, i) => byRoot.set(find(i), [...(byRoot.get(find(i)) ?? []), i]));
  return [...byRoot.values()].map((members, g) => ({
    index: g + 1,
    hunks: members.map((i) => hunks[i]!.index),
    names: [...new Set(members.flatMap((i) => [...(why.get(i) ?? [])]))].sort(),
  }));
}

/** The patch of `include` (hunk indices): file headers and those hunks, new-side starts recounted. */
export function variantPatch(hunks: readonly Hunk[], include: ReadonlySet<number>): string {
  const out: string[] = [];
  const files = [...new Set(hunks.map((h) => h.file))];
  for (const file of files) {
    const mine = hunks.filter((h) => h.file === file && include.has(h.index));
    if (mine.length === 0) continue;
    out.push(`--- ${headerText(`a/${file}`)}`, `+++ ${headerText(`b/${file}`)}`);
    let delta = 0;
    for (const h of mine) {
      const start = (h.oldLines === 0 ? h.oldStart + 1 : h.oldStart) + delta - (h.newLines === 0 ? 1 : 0);
      out.push(`@@ -${h.oldStart},${h.oldLines} +${start},${h.newLines} @@`, ...h.body);
      delta += h.newLines - h.oldLines;
    }
  }
  return `${out.join('\n')}\n`;
}

/** "kernel/sched/core.c @10432" (the line in A's file where the hunk starts). */
export function hunkName(h: Pick<Hunk, 'file' | 'oldStart'>): string {
  return `${h.file} @${h.oldStart}`;
}

