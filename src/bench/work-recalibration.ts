/**
 * `--inject-work-b PCT%` with two processes taking turns: B's additions
 * recalibrated at each generation of processes from A's level and the cost
 * of one addition as the run has measured them (./paired.ts runTurns), and
 * what the run records of it.
 */
import type { WorkCalibrationRecord } from '../run-record.ts';
import { median } from '../stats/descriptive.ts';
import { roundWork } from './known-work.ts';
import { workFor } from './work-pilot.ts';

/** Additions per gauged block (`--work-gauge`, probes/work.c): about 1 µs, far above the clock's resolution. */
export const GAUGE_ADDS = 4096;

/**
 * `--inject-work-b PCT%` in turns: B's N for the next generation, per
 * profile, = PCT/100 x a / s, both as this run has measured them:
 *
 * - a, A's level: the mean ns per call of A's measured rounds so far, once
 *   there are MIN_LEVEL_ROUNDS of them (the pilot's before). A's level
 *   drifts under load over a long run, and a pilot of a few hundred
 *   milliseconds reads it to a few per cent.
 * - s, the cost of one addition: the mean over the generations so far of
 *   each generation's median gauge (`--work-gauge`, after every measured
 *   round of both sides; the pilot's before the first generation ends). On
 *   the shared VM it moves by 10 % within seconds; the pilot's snapshot
 *   missed the run's mean by 2 % on average and up to 7 %, and the share B
 *   bought missed with it. The median keeps a timer tick inside one 16 µs
 *   gauge out; the mean over generations keeps the slow moves in.
 *
 * The gauge times additions alone, never B against A: the share B buys is
 * still judged only by the run's comparison. `perGeneration` keeps each
 * generation's N and `gaugedPerAddNs` the s it used; `meanN` weighs the N
 * by the pairs each generation ran.
 */
export class WorkRecalibration {
  readonly perGeneration: Record<string, number[]> = {};
  /** Per generation, the gauged cost of one addition its N used (ns), or null where it used the pilot's. */
  readonly gaugedPerAddNs: (number | null)[] = [];
  private readonly pairsOf: number[] = [];
  private readonly gaugeMedians: number[] = [];
  private gauges: number[] = [];
  constructor(private readonly cal: WorkCalibrationRecord, private readonly levelOfA: () => RoundsSoFar) {}

  /** One gauge line's cost of one addition (ns), from either side's process. */
  gauge(perAddNs: number): void {
    if (Number.isFinite(perAddNs) && perAddNs > 0) this.gauges.push(perAddNs);
  }

  /** B's injectWork for the generation about to start. */
  next(): Record<string, number> {
    const level = this.levelOfA();
    const gauged = this.gaugeMedians.length ? this.gaugeMedians.reduce((s, x) => s + x, 0) / this.gaugeMedians.length : null;
    this.gaugedPerAddNs.push(gauged);
    const out: Record<string, number> = {};
    for (const [p, pilotPerAdd] of Object.entries(this.cal.perAddNs)) {
      const seen = level.get(p);
      const a = seen && seen.rounds >= MIN_LEVEL_ROUNDS ? seen.sum / seen.rounds : this.cal.levelNs[p]!;
      out[p] = workFor(this.cal.pct, a, gauged ?? pilotPerAdd);
      (this.perGeneration[p] ??= []).push(out[p]);
    }
    return out;
  }

  /** The generation just ended: the pairs it ran (for the weighted mean), and its gauges' median. */
  ended(pairs: number): void {
    this.pairsOf.push(pairs);
    const [first, ...rest] = this.gauges;
    if (first !== undefined) this.gaugeMedians.push(median([first, ...rest]));
    this.gauges = [];
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
