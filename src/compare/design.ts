/**
 * The design an A/B experiment rests on, and whether it can support a claim.
 *
 * Units of replication (probe processes, stress-ng invocations) of ONE run
 * share that run's stretch of time: a shift between two runs (host load,
 * CPU frequency, page placement) moves every unit of a run alike, so a test
 * on units cannot tell it from a change between configurations. Two
 * separate runs therefore never support a claim on their own. Designs that
 * do (docs/compare-designs.md has their assumptions and simulated error rates):
 *   - duet (Bulej et al., ICPE 2020): A and B probes at once on two CPUs,
 *     rounds started together; unit k of A and of B form pair k;
 *   - alternation (Abedi & Brecht, ICPE 2017): short blocks of one probe in
 *     random ABBA order with a global switch flipped between them; adjacent
 *     blocks form pairs;
 *   - processes: A and B probe processes interleaved A B B A in one
 *     invocation (bench --label-b before designs were recorded), unpaired;
 *   - A/B/A: A2 measures the run-to-run variation, with one degree of
 *     freedom (src/compare/aba.ts);
 *   - abbaab: six runs A B B A A B of one invocation, judged on the run
 *     levels with a linear drift fitted beside the change, 3 degrees of
 *     freedom (src/compare/abbaab.ts);
 *   - boots as units (vm, and session on a box over ssh: each of its boots
 *     a run of one unit, a side's boots joined by merge.ts), when the boots
 *     of A and B are interleaved in time; boots in blocks claim only as an
 *     A/B/A of blocks (src/compare/boot-order.ts).
 */
import type { RunWithRounds } from '../model.ts';
import { type BootOrder, bootOrderOf, bootOrderText } from './boot-order.ts';
import type { InterleaveRecord, Stopping } from '../run-record.ts';

export type Design =
  | { kind: 'processes' }
  | { kind: 'duet'; cpus: [number, number] | null; swapEvery: number | null; stopping: Stopping | null; blockRounds?: number | null; processesPerSide?: ProcessesPerSide }
  | {
      kind: 'alternation';
      blockRounds: number | null;
      seed: number | null;
      stopping: Stopping | null;
      processes?: number | null;
      /** Two processes taking turns: pairs measured by one generation of processes before both are replaced (null when not recorded). */
      pairsPerProcess?: number | null;
      processesPerSide?: ProcessesPerSide;
      cpu?: number | null;
    }
  | { kind: 'aba' }
  | {
      kind: 'abbaab';
      /** The runs' order ('ABBAAB') and the probe processes in each run (null when not recorded: no claim). */
      order: string;
      processesPerRun: number | null;
    }
  | { kind: 'boots'; order: BootOrder }
  | { kind: 'separate-runs'; advice: string };

/**
 * Probe processes per side of a paired design: a count, `shared` when one
 * process measured both sides (alternation with a switched file), null
 * when the runs did not record enough to tell.
 */
export type ProcessesPerSide = number | 'shared' | null;

const interleaveOf = (run: RunWithRounds): InterleaveRecord | null => run.params.extra.interleave ?? null;

/** The stopping record both runs of a paired invocation carry, or null (absent from either). */
export function stoppingOf(a: RunWithRounds, b: RunWithRounds): Stopping | null {
  const sa = a.params.extra.stopping ?? null;
  return sa !== null && b.params.extra.stopping !== undefined ? sa : null;
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
  if (ra.labels.A !== rb.labels.A || ra.labels.B !== rb.labels.B) return false;
  if ((ra.design ?? 'processes') !== (rb.design ?? 'processes')) return false;
  return Math.abs(a.id - b.id) === 1;
}

/**
 * Processes per side of an alternation: one process for both sides with a
 * switched file; with an A and a B process, the processes that measured:
 * every generation but the last measures exactly `pairsPerProcess` pairs
 * (`params.extra.processes` holds a paired run's pairs), and one started
 * after the budget ran out measures none.
 */
function alternationProcesses(rec: InterleaveRecord, run: RunWithRounds): ProcessesPerSide {
  if (rec.processes !== 2) return 'shared';
  const pairs = run.params.extra.processes;
  const per = rec.pairsPerProcess;
  return pairs !== undefined && per !== undefined && per > 0 ? Math.max(1, Math.ceil(pairs / per)) : null;
}

/** The interleaved design of two partners: a run recorded without `design` is 'processes'. */
function interleavedDesign(a: RunWithRounds, b: RunWithRounds): Design {
  const rec = interleaveOf(a)!;
  if (rec.design === 'duet') {
    // every block is a fresh pair of processes: as many per side as pairs
    return { kind: 'duet', cpus: rec.cpus ?? null, swapEvery: rec.swapEvery ?? null, stopping: stoppingOf(a, b), blockRounds: rec.blockRounds ?? null, processesPerSide: a.params.extra.processes ?? null };
  }
  if (rec.design === 'alternation') {
    const cpu = rec.cpu ?? a.params.cpu;
    return { kind: 'alternation', blockRounds: rec.blockRounds ?? null, seed: rec.seed ?? null, stopping: stoppingOf(a, b), processes: rec.processes ?? null, pairsPerProcess: rec.pairsPerProcess ?? null, processesPerSide: alternationProcesses(rec, a), cpu };
  }
  if (rec.design === 'abbaab') return { kind: 'abbaab', order: rec.order, processesPerRun: rec.processesPerRun ?? null };
  return { kind: 'processes' };
}

/** The design an A/B comparison of `a` and `b` rests on; with A2 it is A/B/A (or boots, when every unit is a boot). */
export function designOf(a: RunWithRounds, b: RunWithRounds, a2?: RunWithRounds): Design {
  const unitOf = (r: RunWithRounds) => (r.replicateUnit.known ? r.replicateUnit.value : null);
  const boots = unitOf(a) === 'boot' && unitOf(b) === 'boot';
  const roles = [{ role: 'A' as const, run: a }, { role: 'B' as const, run: b }];
  if (a2 !== undefined) return boots && unitOf(a2) === 'boot' ? { kind: 'boots', order: bootOrderOf([...roles, { role: 'A2', run: a2 }]) } : { kind: 'aba' };
  if (interleavedPartners(a, b)) return interleavedDesign(a, b);
  if (boots) return { kind: 'boots', order: bootOrderOf(roles) };
  const again = a.kind === 'macro' ? 'run the baseline again after B and give it as A2' : 'measure A and B in one invocation (hintlab bench --label-b ...), or run the baseline again after B and give it as A2';
  return { kind: 'separate-runs', advice: again };
}

/** True for the designs whose units pair up (unit k of A with unit k of B). */
export function isPaired(d: Design): d is Extract<Design, { kind: 'duet' | 'alternation' }> {
  return d.kind === 'duet' || d.kind === 'alternation';
}

/** 'from 38 to 40 pairs', '40 pairs' */
function countText(counts: readonly number[], noun: string): string {
  if (counts.length === 0) return `no ${noun}s`;
  const lo = Math.min(...counts);
  const hi = Math.max(...counts);
  return lo === hi ? `${lo} ${noun}${lo === 1 ? '' : 's'}` : `${lo} to ${hi} ${noun}s per subject`;
}

function stoppingText(s: Stopping | null): string {
  if (s === null) return '';
  return `, stopped by the ±${s.precisionPct} % precision target${s.reached ? '' : ' (not reached: budget spent)'} on the interval's width alone, judged by the fixed-n paired t`;
}

/**
 * One line saying what the design was, e.g. 'duet: A and B at once on CPUs 0
 * and 1, 40 pairs, CPUs swapped every 4 blocks'. `units` are the units (or
 * pairs) each subject's judged contrast rests on.
 */
export function designText(d: Design, units: readonly number[]): string {
  switch (d.kind) {
    case 'duet': {
      const cpus = d.cpus ? ` on CPUs ${d.cpus[0]} and ${d.cpus[1]}` : '';
      const swap = d.swapEvery !== null ? `, CPUs swapped every ${d.swapEvery === 1 ? 'block' : `${d.swapEvery} blocks`}` : '';
      return `duet: A and B at once${cpus}, ${countText(units, 'pair')}${swap}${stoppingText(d.stopping)}`;
    }
    case 'alternation': {
      const block = d.blockRounds !== null ? ` of ${d.blockRounds} round${d.blockRounds === 1 ? '' : 's'}` : '';
      const seed = d.seed !== null ? ` (seed ${d.seed})` : '';
      // two processes taking turns are judged per generation: the units counted are generations, not pairs
      if (d.processes === 2 && d.pairsPerProcess) {
        const gens = `${countText(units, 'generation')} of processes (up to ${d.pairsPerProcess} pairs of adjacent blocks each), judged on each generation's mean`;
        return `alternation: blocks${block} in random ABBA order${seed}, an A and a B process taking turns on one CPU, ${gens}${stoppingText(d.stopping)}`;
      }
      const how = d.processes === 2 ? 'an A and a B process taking turns on one CPU' : 'the switch flipped between them';
      return `alternation: blocks${block} in random ABBA order${seed}, ${how}, ${countText(units, 'pair')} of adjacent blocks${stoppingText(d.stopping)}`;
    }
    case 'processes':
      return `processes: A and B probe processes interleaved A B B A in one invocation, unpaired, ${countText(units, 'unit')} per side`;
    case 'aba':
      return 'A/B/A: three separate runs, B against the midpoint of A and A2 over their difference (t with 1 degree of freedom)';
    case 'abbaab': {
      const each = d.processesPerRun === null ? '' : `, each of ${d.processesPerRun} probe process${d.processesPerRun === 1 ? '' : 'es'}`;
      const order = d.order.split('').join(' ');
      // both sides have as many runs when every run measured the subject: runs - 3 df
      const df = units.length > 0 ? `${Math.max(0, 2 * Math.min(...units) - 3)} degrees of freedom` : 'the runs less 3 degrees of freedom';
      return `abbaab: ${countText(units, 'run')} per side in ${d.order} order (${order})${each}, judged on the run levels with a linear drift fitted beside the change (t with ${df})`;
    }
    case 'boots':
      return `boots as units: ${countText(units, 'boot')} per side, every boot a unit, ${bootOrderText(d.order)}`;
    case 'separate-runs':
      return 'separate runs: A and B measured apart, so a shift between runs cannot be told from a change (no claim)';
  }
}
