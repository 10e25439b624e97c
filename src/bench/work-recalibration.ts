/**
 * `--inject-work-b PCT%` with two processes taking turns: B's additions
 * recalibrated at each generation of processes from A's level and the cost
 * of one addition as the run has measured them (./paired.ts runTurns), and
 * what the run records of it.
 */
import type { WorkCalibrationRecord } from '../run-record.ts';
import { roundWork } from './known-work.ts';
import { workFor } from './work-pilot.ts';

/** Additions per call a gauge adds (`--work-gauge`, probes/work.c): 512, about 13 µs over a gauge's 100 calls at 0.25 ns an addition. */
export const GAUGE_ADDS = 512;

/**
 * `--inject-work-b PCT%` in turns: B's N for the next generation, per
 * profile, = PCT/100 x a / s, both as this run has measured them:
 *
 * - a, A's level: the mean ns per call of A's measured rounds so far, once
 *   there are MIN_MEASURED of them (the pilot's before). A's level drifts
 *   under load over a long run, and a pilot of a few hundred milliseconds
 *   reads it to a few per cent.
 * - s, the cost of one addition: the mean of the run's gauges so far
 *   (`--work-gauge`, before every block of both sides: GAUGE_ADDS
 *   more additions in the profile's own loop), once there are MIN_MEASURED
 *   (the pilot's before). The clock's period moves by 10 % within seconds
 *   on the shared VM, and the pilot's snapshot missed the run by a few per
 *   cent. The mean, as for A's level: a timer tick inside a gauge's
 *   middle run adds to it what one in its outer runs takes away.
 *
 * A gauge times additions against none in the same process, never B
 * against A: the share B buys is still judged only by the run's
 * comparison. `perGeneration` keeps each generation's N and
 * `gaugedPerAddNs` the s it used; `meanN` weighs the N by the pairs each
 * generation ran.
 */
export class WorkRecalibration {
  readonly perGeneration: Record<string, number[]> = {};
  /** Per profile and generation, the gauged cost of one addition its N used (ns), or null where it used the pilot's. */
  readonly gaugedPerAddNs: Record<string, (number | null)[]> = {};
  private readonly pairsOf: number[] = [];
  private readonly gauges: RoundsSoFar = new Map();
  constructor(private readonly cal: WorkCalibrationRecord, private readonly levelOfA: () => RoundsSoFar) {}

  /** One gauge line's cost of one addition (ns) in `profile`'s loop, from either side's process. */
  gauge(profile: string, perAddNs: number): void {
    if (Number.isFinite(perAddNs)) addRound(this.gauges, profile, perAddNs);
  }

  /** B's injectWork for the generation about to start. */
  next(): Record<string, number> {
    const level = this.levelOfA();
    const out: Record<string, number> = {};
    for (const [p, pilotPerAdd] of Object.entries(this.cal.perAddNs)) {
      const a = meanOf(level, p) ?? this.cal.levelNs[p]!;
      const gauged = meanOf(this.gauges, p);
      // a mean of gauges at or below zero is noise, not a cost: the pilot's stands
      const s = gauged !== null && gauged > 0 ? gauged : null;
      out[p] = workFor(this.cal.pct, a, s ?? pilotPerAdd);
      (this.perGeneration[p] ??= []).push(out[p]);
      (this.gaugedPerAddNs[p] ??= []).push(s);
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

/** Measured rounds of A, or gauges, needed before the run's own mean replaces the pilot's (a generation gives 50 of A's, 100 gauges). */
const MIN_MEASURED = 20;

/** A profile's mean so far, once there are MIN_MEASURED values; else null. */
function meanOf(so: RoundsSoFar, profile: string): number | null {
  const s = so.get(profile);
  return s && s.rounds >= MIN_MEASURED ? s.sum / s.rounds : null;
}

/** Per profile, the sum of the measured values so far (ns per call, or per addition) and their count. */
export type RoundsSoFar = Map<string, { sum: number; rounds: number }>;

/** Adds one measured value to a profile's sum. */
export function addRound(so: RoundsSoFar, profile: string, perCall: number): void {
  const s = so.get(profile) ?? { sum: 0, rounds: 0 };
  so.set(profile, { sum: s.sum + perCall, rounds: s.rounds + 1 });
}
