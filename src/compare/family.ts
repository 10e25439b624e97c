/**
 * The family-wise correction: the same contrast (B vs A, A2 vs A, or B vs
 * A+A2) over every subject of one comparison is one family, and its
 * p-values are adjusted together, so testing 24 stress-ng subjects at
 * alpha 0.05 claims a change that is not there in at most 5 % of
 * comparisons, not in 71 %.
 */
import { holmAdjust } from '../stats/multiple.ts';
import type { Contrast } from './types.ts';
import type { ComparisonOptions } from './options.ts';
import { type SideCounts, testability } from './verdict.ts';

/** One subject's contrast with the rounds and units behind it. */
export interface FamilyMember {
  contrast: Contrast;
  counts: SideCounts;
}

function adjust(pValues: readonly number[], correction: ComparisonOptions['correction']): number[] {
  return correction === 'holm' ? holmAdjust(pValues) : [...pValues];
}

/**
 * The members' contrasts with `adjusted` filled in, in member order. Only
 * testable contrasts (src/compare/verdict.ts `testability`) form the family
 * and count in its size; the others are `not-tested` with the reason.
 * Rank-test p-values are adjusted over the members that have one, so the
 * two tests are compared at the same family-wise level. The minimum-effect
 * p-values (`Contrast.beyondThreshold`) are adjusted over the same members
 * as a family of their own: with 24 subjects each changed by exactly the
 * threshold, the unadjusted whole-CI rule claimed at least one change beyond
 * it in 45 % of comparisons (docs/compare-family.md).
 */
export function correctFamily(members: readonly FamilyMember[], options: ComparisonOptions): { contrasts: Contrast[]; familySize: number } {
  const tests = members.map((m) => testability(m.contrast, m.counts, options));
  const tested = tests.flatMap((t, i) => (t.kind === 'testable' ? [{ i, welch: t.pValue, mwu: t.rankPValue, beyond: t.beyondThresholdPValue }] : []));
  const welch = adjust(tested.map((t) => t.welch), options.correction);
  const beyond = adjust(tested.map((t) => t.beyond), options.correction);
  const withMwu = tested.filter((t) => t.mwu !== null);
  const mwu = adjust(withMwu.map((t) => t.mwu as number), options.correction);
  const adjustedWelch = new Map(tested.map((t, k) => [t.i, welch[k]!]));
  const adjustedBeyond = new Map(tested.map((t, k) => [t.i, beyond[k]!]));
  const adjustedMwu = new Map(withMwu.map((t, k) => [t.i, mwu[k]!]));
  const contrasts = members.map((m, i): Contrast => {
    const t = tests[i]!;
    const p = adjustedWelch.get(i);
    if (t.kind === 'untestable' || p === undefined) {
      return { ...m.contrast, adjusted: { kind: 'not-tested', reason: t.kind === 'untestable' ? t.reason : 'not tested' } };
    }
    return {
      ...m.contrast,
      adjusted: {
        kind: 'adjusted',
        correction: options.correction,
        familySize: tested.length,
        pValue: p,
        rankPValue: adjustedMwu.get(i) ?? null,
        beyondThresholdPValue: adjustedBeyond.get(i)!,
      },
    };
  });
  return { contrasts, familySize: tested.length };
}
