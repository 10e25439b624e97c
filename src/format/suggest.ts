/**
 * "did you mean 'getppid'?" for a mistyped name among a known list, by
 * Levenshtein edit distance (insertions, deletions and substitutions of one
 * character each cost 1; Levenshtein 1966, computed row by row as in
 * Wagner and Fischer 1974).
 */

/** The edit distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The known names closest to `word`, within a third of its length (at
 * least one edit): none when nothing is that close, so a word unlike every
 * name suggests nothing.
 */
export function closest(word: string, names: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(word.length / 3));
  const scored = names.map((n) => ({ n, d: editDistance(word.toLowerCase(), n.toLowerCase()) })).filter((s) => s.d <= limit);
  const best = Math.min(...scored.map((s) => s.d));
  return scored.filter((s) => s.d === best).map((s) => s.n);
}

/** " (did you mean 'getppid'?)", or '' when no name is close. */
export function didYouMean(word: string, names: readonly string[]): string {
  const near = closest(word, names);
  return near.length ? ` (did you mean ${near.map((n) => `'${n}'`).join(' or ')}?)` : '';
}
