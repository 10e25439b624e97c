/**
 * A bound on --ops: one round must end within ROUND_CAP_S. A short pilot
 * (one round of PILOT_OPS calls of each profile, on the same target and
 * CPU) measures the time per call; a round of --ops calls is estimated from
 * it and refused above the cap, with the estimate and the largest --ops
 * that fits. Only --ops far above a profile's default (whose rounds last
 * 10-30 ms) pays for a pilot.
 */
import { parseLine } from '../launch/probe-protocol.ts';
import { probeArgs, type CpuPlan, type ProbeRequest } from './probe-run.ts';
import type { Target } from '../targets/target.ts';
import { fixed } from '../format/numbers.ts';
import { formatRoughDuration } from '../format/durations.ts';

/**
 * The longest round hintlab runs: a round is one sample, so a round of
 * minutes hides whatever the machine did during it, and a signal waits
 * for the probe's next check.
 */
export const ROUND_CAP_S = 60;
const PILOT_OPS = 1000;
/** A pilot runs only for --ops above this many times a profile's default. */
const PILOT_ABOVE = 20;

/** An --ops whose rounds would run past the cap; the message says the estimate, the cap and the largest --ops that fits. */
export class OpsBoundError extends Error {}

/** ns per call of each profile in a pilot's output (its round lines). */
export function pilotNsPerCall(lines: string[]): Map<string, number> {
  const ns = new Map<string, number>();
  for (const raw of lines) {
    const parsed = parseLine(raw);
    if (parsed.kind === 'event' && parsed.event.type === 'round' && parsed.event.ops > 0) ns.set(parsed.event.profile, parsed.event.elapsed / parsed.event.ops);
  }
  return ns;
}

/** Refuse `ops` when the pilot's time per call says one round of a profile would pass ROUND_CAP_S. */
export function checkRoundTime(ops: number, nsPerCall: Map<string, number>): void {
  for (const [profile, ns] of nsPerCall) {
    const roundS = (ops * ns) / 1e9;
    if (roundS <= ROUND_CAP_S) continue;
    const most = Math.floor((ROUND_CAP_S * 1e9) / ns);
    throw new OpsBoundError(
      `--ops ${ops}: one round of ${profile} would take about ${formatRoughDuration(roundS)} (a pilot measured ${fixed(ns, 0)} ns/call over ${PILOT_OPS} calls); ` +
        `a round is capped at ${ROUND_CAP_S} s, so --ops can be at most ${most} for it; use --rounds for more calls`,
    );
  }
}

/** Run the pilot where --ops is far above a profile's default, and check the round time. A pilot that fails says nothing: the run itself reports it. */
export async function boundOps(req: ProbeRequest, plan: CpuPlan, target: Target, abort: AbortSignal): Promise<void> {
  const ops = req.ops;
  if (ops === null) return;
  const profiles = req.profiles.filter((p) => ops > PILOT_ABOVE * p.defaultOps);
  if (profiles.length === 0) return;
  const lines: string[] = [];
  const args = probeArgs({ ...req, profiles, ops: PILOT_OPS, warmups: 0, rounds: 1 }, plan);
  await target.run({ program: 'probe', args }, (l) => lines.push(l), abort);
  checkRoundTime(ops, pilotNsPerCall(lines));
}
