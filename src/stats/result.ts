/**
 * A statistic that cannot be computed from the data at hand (too few
 * values, zero variance...) says so with the reason. Callers must handle it:
 * nothing in src/stats falls back to a guessed value or verdict.
 */
export interface InsufficientData {
  kind: 'insufficient-data';
  reason: string;
}

export function insufficient(reason: string): InsufficientData {
  return { kind: 'insufficient-data', reason };
}

/** A two-sided interval at `level` (0.95 for 95 %). */
export interface Interval {
  kind: 'ok';
  low: number;
  high: number;
  level: number;
}
