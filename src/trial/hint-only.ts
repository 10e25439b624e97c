/**
 * Does a patch only add, remove or change branch hints? Then instruction
 * counts barely move (a hint changes where code lies, not how much runs),
 * and a trial under TCG counts what a hint does change with the cost model
 * (`--cost`) unless told not to (`--no-cost`). A patch is hint-only when,
 * in every file, its removed and added lines are the same once
 * `likely(`/`unlikely(`/`__builtin_expect(..., 0|1)` wrappers, parentheses
 * and white space are taken out, and at least one hint changed.
 */

import { patchSections } from '../kernel/patch-names.ts';

const HINT = /\b(?:(?:un)?likely|__builtin_expect)\s*\(/g;
/** The expected value of a __builtin_expect: `, 1)` or `, 0)` after the condition. */
const EXPECTED = /,\s*[01][lL]?\s*\)/g;

/** A changed line with its hints, parentheses and white space taken out. */
const bare = (line: string) => (line.includes('__builtin_expect') ? line.replace(EXPECTED, ')') : line).replace(HINT, '').replace(/[()\s]/g, '');
const hints = (line: string) => (line.match(HINT) ?? []).length;

/** True when every patch only changes likely()/unlikely() annotations (and changes at least one). */
export function isHintOnly(patches: readonly string[]): boolean {
  let changedHints = 0;
  for (const patch of patches) {
    const files = patchSections(patch);
    if (files.length === 0) return false;
    for (const { removed, added } of files) {
      const a = removed.map(bare).filter((l) => l !== '').sort();
      const b = added.map(bare).filter((l) => l !== '').sort();
      if (a.length !== b.length || a.some((l, i) => l !== b[i])) return false;
      changedHints += [...removed, ...added].reduce((s, l) => s + hints(l), 0);
    }
  }
  return changedHints > 0;
}

/**
 * Whether a trial runs the cost model: as asked (`--cost`, `--no-cost`),
 * else on for a hint-only patch under TCG (instruction counts alone could
 * say neither yes nor no for it), off otherwise and under --kvm.
 */
export function costByDefault(asked: boolean | undefined, kvm: boolean, patchTexts: readonly string[]): { on: boolean; note: string | null } {
  if (asked !== undefined) return { on: asked, note: null };
  if (kvm || !isHintOnly(patchTexts)) return { on: false, note: null };
  return { on: true, note: 'the patch only changes branch hints: every boot also counts what they change with the cost model (--cost; --no-cost to skip it)' };
}
