/**
 * The bisection itself, as a pure function over an ordered commit list and
 * a `test` callback: no git, no kernel, no qemu. The caller measures the
 * two endpoints first (their values define what "good" and "bad" mean) and
 * hands them in; the search only ever tests commits strictly between them.
 *
 * Classifying a step: a value is on the side of the endpoint it lies
 * nearer to, as LKP's bisections do (the midpoint between the good and the
 * bad value is the threshold). A commit that moves the count by one
 * instruction next to a regression of fifty is then good, and the search
 * goes on to the commit that brings the fifty. A value exactly at the
 * midpoint counts as bad: at least half of the change is already there.
 *
 * Skips: a commit whose test says `skip` (it does not build or boot) is
 * left out and a neighbour is tried instead, nearest to the midpoint
 * first, later first on a tie, as `git bisect skip` does. When only
 * skipped commits lie between the last good and the first bad commit, the
 * culprit is one of them or the first bad one: the outcome names that
 * range of candidates instead of guessing.
 *
 * History: the list is first-parent linear history (git rev-list
 * --first-parent), so a merge is one step; a culprit that is a merge
 * commit means "something the merge brought", which the caller says.
 */

/** A commit as the search and its reports see it. */
export interface Commit {
  hash: string;
  subject: string;
  author: string;
}

/** Which endpoint a tested value lies nearer to. */
export type Side = 'good' | 'bad';

/** What testing one commit gave: its value in the measured unit, or why it was skipped. */
export type TestOutcome = { state: 'measured'; value: number } | { state: 'skip'; reason: string };

/** One commit the search tested, in test order. */
export type SearchStep =
  | { commit: Commit; state: 'measured'; value: number; side: Side }
  | { commit: Commit; state: 'skip'; reason: string };

/** Where the search ended. */
export type SearchOutcome =
  | { state: 'found'; firstBad: Commit; lastGood: Commit }
  | { state: 'ambiguous'; candidates: Commit[]; lastGood: Commit };

export interface SearchResult {
  outcome: SearchOutcome;
  steps: SearchStep[];
}

/** The endpoints' values, measured before the search. */
export interface Endpoints {
  good: number;
  bad: number;
}

/** The side of `value`: nearer the good value is good; at or past the midpoint, bad. */
export function sideOf(value: number, ends: Endpoints): Side {
  return Math.abs(value - ends.good) < Math.abs(value - ends.bad) ? 'good' : 'bad';
}

/**
 * The index to test between `lo` (good) and `hi` (bad), skipping the
 * skipped: the untested index nearest the midpoint, later first on a tie;
 * null when every index between them is skipped.
 */
export function nextIndex(lo: number, hi: number, skipped: ReadonlySet<number>): number | null {
  const mid = Math.floor((lo + hi) / 2);
  for (let d = 0; d < hi - lo; d++) {
    for (const i of d === 0 ? [mid] : [mid + d, mid - d]) {
      if (i > lo && i < hi && !skipped.has(i)) return i;
    }
  }
  return null;
}

/**
 * Bisect `commits` (oldest first; the first is the good endpoint, the last
 * the bad one, both measured as `ends`). `test` is called once per tested
 * commit, in search order, never for an endpoint.
 */
export async function bisectCommits(commits: readonly Commit[], ends: Endpoints, test: (commit: Commit) => Promise<TestOutcome>): Promise<SearchResult> {
  if (commits.length < 2) throw new Error('bisectCommits needs the good and the bad commit');
  let lo = 0;
  let hi = commits.length - 1;
  const skipped = new Set<number>();
  const steps: SearchStep[] = [];
  for (;;) {
    const i = nextIndex(lo, hi, skipped);
    if (i === null) break;
    const commit = commits[i]!;
    const out = await test(commit);
    if (out.state === 'skip') {
      skipped.add(i);
      steps.push({ commit, state: 'skip', reason: out.reason });
      continue;
    }
    const side = sideOf(out.value, ends);
    steps.push({ commit, state: 'measured', value: out.value, side });
    if (side === 'good') lo = i;
    else hi = i;
  }
  const lastGood = commits[lo]!;
  if (hi - lo === 1) return { outcome: { state: 'found', firstBad: commits[hi]!, lastGood }, steps };
  return { outcome: { state: 'ambiguous', candidates: commits.slice(lo + 1, hi + 1), lastGood }, steps };
}
