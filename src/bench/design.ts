/**
 * Which design measures an A/B invocation (docs/bench.md), chosen from what
 * differs between the sides:
 *   - duet: A and B differ per process (a seccomp filter, known work): an A
 *     and a B probe run at the same time on two CPUs, every round started
 *     together at a barrier, the CPUs swapped every block, a fresh pair of
 *     processes per block (Bulej et al., "Duet Benchmarking", ICPE 2020);
 *   - alternation: the difference is global (a switched file): one
 *     long-lived probe measures many short blocks in random ABBA order, the
 *     file switched between blocks (Abedi and Brecht, ICPE 2017: randomized
 *     multiple interleaved trials);
 *   - processes: whole probe processes A B B A ..., unpaired (the design
 *     before the paired ones; still there with --design processes, and the
 *     one left when a global and a per-process difference come together).
 */
export type DesignKind = 'processes' | 'duet' | 'alternation';

export const DESIGNS: readonly DesignKind[] = ['processes', 'duet', 'alternation'];

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
  if (d.asked === 'alternation' && d.perProcess) return { ok: false, error: '--design alternation runs both sides in one probe process, so a per-process difference (--inject-seccomp-b, --inject-work-b) cannot switch between blocks; use --design duet or processes' };
  if (d.asked && d.asked !== 'processes' && !d.onHost) return { ok: false, error: `--design ${d.asked} runs on this machine only; use --design processes with --target` };
  if (d.asked === 'duet' && d.allowedCpus.length < 2) return { ok: false, error: `--design duet needs two allowed CPUs, only ${d.allowedCpus.join(',')} is allowed; use --design alternation or processes` };
  if (d.asked) return { ok: true, kind: d.asked, note: null };
  if (!d.onHost) return { ok: true, kind: 'processes', note: 'the paired designs run on this machine only: whole probe processes A B B A instead' };
  if (d.global && d.perProcess) return { ok: true, kind: 'processes', note: 'a switched file and a per-process difference together switch only with whole processes: A B B A probe processes, unpaired' };
  if (d.global) return { ok: true, kind: 'alternation', note: null };
  if (d.allowedCpus.length < 2 && d.perProcess) return { ok: true, kind: 'processes', note: `only CPU ${d.allowedCpus[0]} is allowed, a duet needs two: fell back to A B B A probe processes, unpaired` };
  if (d.allowedCpus.length < 2) return { ok: true, kind: 'alternation', note: `only CPU ${d.allowedCpus[0]} is allowed, a duet needs two: fell back to alternation in one probe process` };
  return { ok: true, kind: 'duet', note: null };
}

/** One line saying how the invocation measured (printed by bench; the comparison prints its own). */
export function designLine(kind: DesignKind, facts: { pairs?: number; cpus?: [number, number]; blockRounds?: number; seed?: number; order?: string; clock?: string }): string {
  const clock = facts.clock === 'thread-cpu' ? ", rounds timed on each probe thread's CPU clock" : '';
  if (kind === 'duet') return `design: duet: A and B at once on CPUs ${facts.cpus?.[0]} and ${facts.cpus?.[1]}, ${facts.pairs} pairs, CPUs swapped every block${clock}`;
  if (kind === 'alternation') return `design: alternation: one probe process, ${facts.pairs} pairs of ${facts.blockRounds}-round blocks in random ABBA order (seed ${facts.seed}), the switch flipped between blocks${clock}`;
  return `design: processes: unpaired probe processes in the order ${facts.order}${clock}`;
}
