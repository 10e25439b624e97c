/**
 * Whether the design of an A/B experiment can support a claim at all.
 *
 * Units of replication (probe processes, stress-ng invocations) of ONE run
 * share that run's stretch of time: a shift between two runs (host load,
 * CPU frequency, page placement) moves every unit of a run alike, so a test
 * on units cannot tell it from a change between configurations. Two
 * separate runs therefore never support a claim on their own. Designs that
 * do:
 *   - A/B/A: A2 measures the run-to-run variation (compare widens B's test
 *     with it; see units.ts runToRunOf);
 *   - A and B measured in one invocation with their probe processes
 *     interleaved (bench --label-b), so drift hits both sides alike;
 *   - boots as units (vm, and session on a box over ssh: each of its boots
 *     a run of one unit, a side's boots joined by merge.ts): every unit is
 *     a boot of its own, so the variation between boots is in the units
 *     themselves.
 */
import type { RunWithRounds } from '../model.ts';

export type Design =
  | { kind: 'interleaved' }
  | { kind: 'boots' }
  | { kind: 'separate-runs'; advice: string };

interface InterleaveRecord {
  side?: unknown;
  order?: unknown;
  labels?: { A?: unknown; B?: unknown };
}

function interleaveOf(run: RunWithRounds): InterleaveRecord | null {
  const rec = (run.params.extra as Record<string, unknown> | undefined)?.interleave;
  return rec !== null && typeof rec === 'object' ? (rec as InterleaveRecord) : null;
}

/**
 * True when `a` and `b` are the two sides of one interleaved invocation: both
 * record the interleaving with the other side, the same order and labels, and
 * their runs were created one after the other (`bench --label-b` stores A, then B).
 */
export function interleavedPartners(a: RunWithRounds, b: RunWithRounds): boolean {
  const ra = interleaveOf(a);
  const rb = interleaveOf(b);
  if (!ra || !rb || ra.side === rb.side || ra.order !== rb.order) return false;
  if (ra.labels?.A !== rb.labels?.A || ra.labels?.B !== rb.labels?.B) return false;
  return Math.abs(a.id - b.id) === 1;
}

/** The design an A/B comparison of `a` and `b` (without A2) rests on. */
export function designOf(a: RunWithRounds, b: RunWithRounds): Design {
  if (interleavedPartners(a, b)) return { kind: 'interleaved' };
  const unitOf = (r: RunWithRounds) => (r.replicateUnit.known ? r.replicateUnit.value : null);
  if (unitOf(a) === 'boot' && unitOf(b) === 'boot') return { kind: 'boots' };
  const again = a.kind === 'macro' ? 'run the baseline again after B and give it as A2' : 'measure A and B in one invocation (hintlab bench --label-b ...), or run the baseline again after B and give it as A2';
  return { kind: 'separate-runs', advice: again };
}
