/**
 * The tests inside a Contrast (src/compare/types.ts, schema 6): which test
 * decides, the rank test beside it, the pairs of a paired design, and the
 * A/B/A run-to-run term.
 */
import type { InsufficientData } from '../stats/result.ts';

/**
 * A/B/A: the run-to-run term of B vs (A + A2)/2. A run's level carries a
 * shift of its own (load, frequency, placement) that all its units share,
 * so the runs, not their units, are the observations of that term: A and
 * A2 measure the same configuration, and their difference d estimates the
 * variance of a run's level, d²/2, with ONE degree of freedom
 * (src/compare/aba.ts). Never clipped to zero.
 */
export type RunToRun =
  | { kind: 'not-estimated' }
  | {
      kind: 'from-a2';
      /** sqrt(d²/2): standard deviation of a run's level (its shift and its units' noise), in % of the baseline. */
      runSdPct: number;
      /** Degrees of freedom of the estimate: 1 (one A/A2 pair). */
      df: number;
    }
  | {
      /** abbaab: the residual spread of the six run levels about the fitted change and linear drift (src/compare/abbaab.ts, schema 9). */
      kind: 'drift-model';
      /** Standard deviation of a run's level about the fit, in % (100 x on the log scale). */
      runSdPct: number;
      /** Degrees of freedom: runs less 3 (3 for six runs). */
      df: number;
      /** The fitted drift per run, in % (100 x on the log scale). */
      driftPerRunPct: number;
    };

/** Which test decides a contrast (its p-value and its interval). */
export type TestMethod =
  /** Welch's t on unit means (processes, boots, invocations), Welch-Satterthwaite df. */
  | 'welch'
  /** Student's t on per-pair log ratios ln(B_k/A_k), K - 1 df (duet, alternation: generation means, fewer than 20 pairs, a run stopped by a precision target). */
  | 'paired-t'
  /** Wilcoxon's signed-rank test on per-pair log ratios with the Hodges-Lehmann interval (independent pairs, at least 20; schema 8). */
  | 'signed-rank'
  /** A/B/A: B - (A + A2)/2 over the run-to-run term A vs A2 showed, 1 df. */
  | 'run-level-t'
  /** abbaab: B vs A on the six run levels (log scale) with a linear drift fitted beside it, runs - 3 df (schema 9). */
  | 'drift-model-t'
  /** Documents before schema 8 only: a paired run stopped by a precision target, judged on the confidence sequence (src/stats/sequential.ts); such runs are now judged by the fixed-n paired t. */
  | 'anytime';

/**
 * The deciding test. `t` and `df` are the fixed-n t statistic and its
 * degrees of freedom (for 'signed-rank', the standardized W+ and the pairs
 * less one, shown only; for 'anytime' shown only: its p came from the
 * confidence sequence); `sePct` is the standard error of the change in % of
 * the baseline (x 100 on the log scale for pairs; for 'signed-rank' the
 * Hodges-Lehmann interval's half-width over z(1 - alpha/2)), from which the
 * power figures come.
 */
export type ContrastTest =
  | { kind: 'ok'; method: TestMethod; t: number; df: number; pValue: number; sePct: number }
  | InsufficientData;

/**
 * The second test shown beside the deciding one (never deciding): the rank
 * test (Mann-Whitney on unit means, Wilcoxon signed-rank on pairs), or,
 * where the signed-rank test decides, the paired t.
 */
export type RankTest =
  | {
      kind: 'ok';
      method: 'mann-whitney' | 'wilcoxon-signed-rank' | 'paired-t';
      pValue: number;
      /** The smallest p these sizes can give: a test that cannot reach alpha cannot disagree. */
      minPValue: number;
    }
  | InsufficientData;

/**
 * The minimum-effect test beside the deciding one: H0 "the change lies
 * within the noise threshold on the side of its estimate" (at most
 * +threshold for an estimate above it, at least -threshold below), tested
 * one-sided with the deciding test's own distribution (t with its df and
 * standard error; for the signed-rank test, the one-sided signed-rank test
 * of the centre at the bound). Its p is
 * corrected over the family like the deciding test's, so a claim of a
 * change beyond the threshold holds at alpha family-wise. With threshold 0
 * it is the one-sided half of the deciding test.
 */
export type BeyondThreshold =
  | { kind: 'ok'; thresholdPct: number; side: 'above' | 'below'; pValue: number }
  | InsufficientData;

/** Paired designs: the pairs behind a contrast. */
export interface PairInfo {
  /** Pairs with both sides measured (unit k of A with unit k of B). */
  pairs: number;
  /** Units measured in one run only, dropped. */
  dropped: number;
  /** Mean and sample standard deviation of d_k = ln(B_k / A_k). */
  meanLogRatio: number;
  sdLogRatio: number;
  /** B_k / A_k of each pair, in pair (measurement) order: drift and outliers show in it (schema 7; absent in older documents). */
  ratios?: number[];
}
