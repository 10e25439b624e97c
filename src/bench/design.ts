/**
 * Which design measures an A/B invocation (docs/bench.md), chosen from what
 * differs between the sides:
 *   - alternation (the default): blocks of a few rounds in random ABBA
 *     order, pair k the k-th A and the k-th B block (Abedi and Brecht, ICPE
 *     2017: randomized multiple interleaved trials). A global difference (a
 *     switched file) runs in one long-lived probe, the file switched
 *     between blocks; a per-process one (a seccomp filter, known work) in
 *     an A and a B probe taking turns on one CPU, replaced every few dozen
 *     pairs (./turns.ts); both together in two processes with the file
 *     switched too;
 *   - duet (--design duet): an A and a B probe at the same time on two
 *     CPUs, every round started together at a barrier, the CPUs swapped
 *     every block, a fresh pair of processes per block (Bulej et al., "Duet
 *     Benchmarking", ICPE 2020). It cancels interference from outside only
 *     when the two CPUs do not slow each other; on the 2-vCPU guests
 *     hintlab is developed on they do (docs/bench.md), so it is not the
 *     default;
 *   - processes: whole probe processes A B B A ..., unpaired (the design
 *     before the paired ones; still there with --design processes, and the
 *     one left on a box over ssh);
 *   - abbaab (--design abbaab): six runs in the order A B B A A B, each
 *     of --processes probe processes sharing --rounds as one plain run
 *     would, judged on the six run levels with a linear drift fitted
 *     beside the change (src/compare/abbaab.ts): the A/B/A of separate
 *     runs with three runs per side, in one invocation.
 */
import type { DesignKind } from '../run-record.ts';

/** Alternation in two processes (./turns.ts): pairs measured by one pair of processes before both are replaced. */
export const PAIRS_PER_PROCESS = 25;

/** The order of the six runs of --design abbaab: each half of the sequence is balanced against a linear drift, the whole nearly (src/stats/drift-model.ts). */
export const ABBAAB_ORDER = 'ABBAAB';

export interface DesignInput {
  /** The sides differ inside each process (seccomp filter, known work). */
  perProcess: boolean;
  /** The sides differ by a global switch (files). */
  global: boolean;
  /** CPUs this process may run on. */
  allowedCpus: number[];
  /** Where the probe runs: the paired designs need this machine (a shared barrier file, a FIFO). */
  onHost: boolean;
  asked: DesignKind | null;
}

export type DesignChoice = { ok: true; kind: DesignKind; note: string | null } | { ok: false; error: string };

/** The design for an invocation, or why the one asked for cannot run. */
export function chooseDesign(d: DesignInput): DesignChoice {
  if (d.asked === 'duet' && d.global) return { ok: false, error: '--design duet runs A and B at the same time, so a global --switch-file cannot tell them apart; use --design alternation or processes' };
  if (d.asked && d.asked !== 'processes' && d.asked !== 'abbaab' && !d.onHost) return { ok: false, error: `--design ${d.asked} runs on this machine only; use --design processes with --target` };
  if (d.asked === 'duet' && d.allowedCpus.length < 2) return { ok: false, error: `--design duet needs two allowed CPUs, only ${d.allowedCpus.join(',')} is allowed; use --design alternation or processes` };
  if (d.asked) return { ok: true, kind: d.asked, note: null };
  if (!d.onHost) return { ok: true, kind: 'processes', note: 'the paired designs run on this machine only: whole probe processes A B B A instead' };
  return { ok: true, kind: 'alternation', note: null };
}

/** One line saying how the invocation measured (printed by bench; the comparison prints its own). */
export function designLine(kind: DesignKind, facts: { pairs?: number; cpus?: [number, number]; blockRounds?: number; seed?: number; order?: string; clock?: string; processes?: number; cpu?: number; rounds?: number }): string {
  const clock = facts.clock === 'thread-cpu' ? ", rounds timed on each probe thread's CPU clock" : facts.clock === 'wall' ? ', rounds timed on the wall clock' : '';
  if (kind === 'duet') return `design: duet: A and B at once on CPUs ${facts.cpus?.[0]} and ${facts.cpus?.[1]}, ${facts.pairs} pairs, CPUs swapped every block${clock}`;
  if (kind === 'alternation' && facts.processes === 2) {
    return `design: alternation: an A and a B probe process taking turns on CPU ${facts.cpu}, ${facts.pairs} pairs of ${facts.blockRounds}-round blocks in random ABBA order (seed ${facts.seed}), fresh processes every ${PAIRS_PER_PROCESS} pairs${clock}`;
  }
  if (kind === 'alternation') return `design: alternation: one probe process, ${facts.pairs} pairs of ${facts.blockRounds}-round blocks in random ABBA order (seed ${facts.seed}), the switch flipped between blocks${clock}`;
  if (kind === 'abbaab') {
    return `design: abbaab: 3 runs per side in ABBAAB order, each of ${facts.processes} probe process${facts.processes === 1 ? '' : 'es'} and ${facts.rounds} rounds, judged on the 6 run levels with a linear drift fitted beside the change${clock}`;
  }
  return `design: processes: unpaired probe processes in the order ${facts.order}${clock}`;
}
