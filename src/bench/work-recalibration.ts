/**
 * `--inject-work-b PCT%` with two processes taking turns: B's additions
 * recalibrated at each generation of processes from A's level as the run
 * has measured it (./paired.ts runTurns), and what the run records of it.
 */
import type { WorkCalibrationRecord } from '../run-record.ts';
import { roundWork } from './known-work.ts';
import { workFor } from './work-pilot.ts';

/**
 * `--inject-work-b PCT%` in turns: B's N for the next generation, per
 * profile, from A's level as this run has measured it (the mean ns per call
 * of A's measured rounds so far, once there are MIN_LEVEL_ROUNDS of them;
 * the pilot's before). A's level drifts under load over a long run, and a
 * pilot of a few hundred milliseconds reads it to a few per cent: the
 * share B buys follows A's own level instead. `perGeneration` keeps the N
 * of each generation; `meanN` weighs them by the pairs each generation ran.
 */
export class WorkRecalibration {
  readonly perGeneration: Record<string, number[]> = {};
  private readonly pairsOf: number[] = [];
  constructor(private readonly cal: WorkCalibrationRecord, private readonly levelOfA: () => RoundsSoFar) {}

  /** B's injectWork for the generation about to start. */
  next(): Record<string, number> {
    const level = this.levelOfA();
    const out: Record<string, number> = {};
    for (const [p, perAdd] of Object.entries(this.cal.perAddNs)) {
      const seen = level.get(p);
      const a = seen && seen.rounds >= MIN_LEVEL_ROUNDS ? seen.sum / seen.rounds : this.cal.levelNs[p]!;
      out[p] = workFor(this.cal.pct, a, perAdd);
      (this.perGeneration[p] ??= []).push(out[p]);
    }
    return out;
  }

  /** The pairs the generation just ended ran (for the weighted mean). */
  ended(pairs: number): void {
    this.pairsOf.push(pairs);
  }

  /** Per profile, N weighted by the pairs of each generation (the last, still running or cut short, by what it ran). */
  meanN(totalPairs: number): Record<string, number> {
    const counted = this.pairsOf.reduce((s, x) => s + x, 0);
    const weights = [...this.pairsOf, Math.max(0, totalPairs - counted)];
    return Object.fromEntries(Object.entries(this.perGeneration).map(([p, ns]) => {
      const w = ns.map((_, g) => weights[g] ?? 0);
      const all = w.reduce((s, x) => s + x, 0);
      return [p, roundWork(all > 0 ? ns.reduce((s, n, g) => s + n * w[g]!, 0) / all : ns[0]!)];
    }));
  }
}

/** A's measured rounds so far needed before its own level replaces the pilot's (a generation gives 50). */
const MIN_LEVEL_ROUNDS = 20;

/** Per profile, the sum of the measured rounds' values (ns per call) and their count. */
export type RoundsSoFar = Map<string, { sum: number; rounds: number }>;

/** Adds one measured round to a profile's sum. */
export function addRound(so: RoundsSoFar, profile: string, perCall: number): void {
  const s = so.get(profile) ?? { sum: 0, rounds: 0 };
  so.set(profile, { sum: s.sum + perCall, rounds: s.rounds + 1 });
}
