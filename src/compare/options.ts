/** What a comparison is asked for (`hintlab compare` flags): levels, threshold, correction, minimums and what it may accept. */

/**
 * How the p-values of one family of contrasts (the same contrast over every
 * subject of a comparison) are corrected for testing many subjects at once:
 * `holm` is Holm's step-down (src/stats/multiple.ts), `none` tests each
 * subject at alpha on its own (for a single, pre-registered subject).
 */
export type Correction = 'holm' | 'none';

export interface ComparisonOptions {
  /** Significance level of both tests: the family-wise error rate with `correction` holm. */
  alpha: number;
  /** Multiple-comparison correction over the subjects of each family of contrasts. */
  correction: Correction;
  /** Noise threshold: a claim needs the change shown beyond ±thresholdPct (the minimum-effect test, family-wise). */
  thresholdPct: number;
  confidenceLevel: number;
  /** Unused since schema 6 (the verdict's interval is the deciding test's, not a bootstrap); kept so old command lines and documents still read. */
  bootstrapResamples: number;
  bootstrapSeed: number;
  /** Power assumed for the minimum detectable effect. */
  power: number;
  /** Fewer measured rounds than this in A or B gives 'insufficient data'. */
  minRounds: number;
  /** Fewer units of replication than this in a run gives 'insufficient units'. */
  minUnits: number;
  /**
   * Take every round as its own unit (the round-level statistics of schema
   * 2): kept to measure how often they claim a difference between two runs
   * of the same kernel (bench/aa-false-claims.ts). Not for verdicts.
   */
  roundsAsUnits: boolean;
  /** Control subjects (e.g. getppid): shown, but left out of the geometric mean and the regressions. */
  controls: string[];
  detectPct: number | null;
  allowMismatch: boolean;
  allowIncomplete: boolean;
}
