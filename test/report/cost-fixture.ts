/**
 * Hand-built cost documents for the cost report snapshots: `vm --cost` runs
 * of two kernels (four boots each, two rounds per boot) with their per-call
 * counters and per-function tables as the cost boot stores them, and the
 * trial's cost section built from the same runs.
 *
 * The subjects cover each way a counter is judged: sched_getattr takes one
 * more branch per call in every boot alike (exact); getppid fetches one line
 * fewer per call out of about 258 with boots that vary in the fifth digit
 * (a count whose boots do not repeat); the modelled L1i misses fall by a
 * tenth; the mispredictions stay the same in every boot.
 */
import { compareMetrics } from '../../src/compare/metric.ts';
import type { Environment, RunWithRounds } from '../../src/model.ts';
import type { TrialCost } from '../../src/trial/cost.ts';
import { hostEnvironment, makeRun } from '../compare/fixtures.ts';

const BOOTS = 4;
const ROUNDS = 2;

type Counters = Record<string, (boot: number) => number>;

const same = (v: number) => () => v;
/** A count whose boots differ by a few events per round of 20000 calls. */
const varying = (v: number) => (boot: number) => v + [0, 0.0004, -0.0002, 0.0003][boot]!;

const COUNTERS: Record<'A' | 'B', Record<string, Counters>> = {
  A: {
    getppid: {
      'kernel-instructions/call': same(217),
      'user-instructions/call': same(9),
      'taken-branches/call': same(51),
      'line-fetches/call': varying(258.1),
      'distinct-lines/entry': same(31.5),
      'l1i-misses/call': varying(0.5),
      'mispredictions/call': same(1.2),
    },
    sched_getattr: {
      'kernel-instructions/call': same(402),
      'user-instructions/call': same(11),
      'taken-branches/call': same(60),
      'line-fetches/call': same(96.25),
      'distinct-lines/entry': same(44),
      'l1i-misses/call': same(0.75),
      'mispredictions/call': same(2.5),
    },
  },
  B: {
    getppid: {
      'kernel-instructions/call': same(217),
      'user-instructions/call': same(9),
      'taken-branches/call': same(51),
      'line-fetches/call': varying(257.1),
      'distinct-lines/entry': same(31.5),
      'l1i-misses/call': varying(0.45),
      'mispredictions/call': same(1.2),
    },
    sched_getattr: {
      'kernel-instructions/call': same(402),
      'user-instructions/call': same(11),
      'taken-branches/call': same(61),
      'line-fetches/call': same(96.25),
      'distinct-lines/entry': same(44),
      'l1i-misses/call': same(0.75),
      'mispredictions/call': same(2.5),
    },
  },
};

/** One function's per-call counts as the cost boot stores them. */
const fn = (name: string, addr: string, size: number, insns: number, taken: number, fetches: number, misses: number, mispred: number) => ({ name, addr, size, perCall: { insns, taken, fetches, misses, mispred } });

const FUNCTIONS = {
  A: {
    getppid: [fn('entry_SYSCALL_64', 'ffffffff81800000', 160, 40, 3, 6, 0, 0.5), fn('__x64_sys_getppid', 'ffffffff810a1000', 64, 12, 1, 2.1, 0.5, 0.2)],
    sched_getattr: [fn('__x64_sys_sched_getattr', 'ffffffff810c2000', 512, 120, 14, 9, 0.75, 1), fn('timer_tick', 'ffffffff81100000', 96, 0.004, 0.001, 0.001, 0, 0)],
  },
  B: {
    getppid: [fn('entry_SYSCALL_64', 'ffffffff81800000', 160, 40, 3, 6, 0, 0.5), fn('__x64_sys_getppid', 'ffffffff810a1040', 64, 12, 1, 1.1, 0.45, 0.2)],
    sched_getattr: [fn('__x64_sys_sched_getattr', 'ffffffff810c2040', 528, 120, 15, 9, 0.75, 1), fn('timer_tick', 'ffffffff81100040', 96, 0.006, 0.002, 0.001, 0, 0), fn('sched_getattr.cold', 'ffffffff810c2400', 32, 2, 1, 1, 0, 0)],
  },
};

/** One kernel's boots as one run: the instruction count as primary value, the counters as metrics of each round. */
function costRun(role: 'A' | 'B', id: number): RunWithRounds {
  const subjects = Object.keys(COUNTERS[role]);
  const values = Object.fromEntries(subjects.map((s) => [s, Array.from({ length: BOOTS * ROUNDS }, () => COUNTERS[role][s]!['kernel-instructions/call']!(0))]));
  const environment = { ...hostEnvironment({ release: role === 'A' ? '6.12.117' : '6.12.117-hl', host: 'lab1' }), cost: { functions: Array.from({ length: BOOTS }, () => ({ known: true, value: FUNCTIONS[role] })) } } as Environment;
  const run = makeRun({ id, label: `cost-${role}`, kind: 'vm', unit: 'instructions/call', units: BOOTS, ops: 20000, environment, design: 'separate', values });
  const rounds = run.rounds.map((r) => {
    const boot = r.replicate;
    const metrics = Object.entries(COUNTERS[role][r.subject]!).map(([name, at]) => ({ name, value: at(boot), unit: name, direction: 'lower-is-better' as const }));
    // The boots interleave in time (A B A B ...), as vm --repeat orders them.
    const recordedAt = new Date(Date.UTC(2026, 10, 29, 12, 2 * boot + (role === 'B' ? 1 : 0))).toISOString();
    return { ...r, metrics, recordedAt };
  });
  return { ...run, rounds };
}

/** The two kernels' runs, as `vm --cost` groups them by label. */
export function costRuns(): { A: RunWithRounds; B: RunWithRounds } {
  return { A: costRun('A', 11), B: costRun('B', 12) };
}

/** A trial's cost section from the same runs: every counter compared, both kernels' tables, the changed functions with codegen's word. */
export function trialCostSection(): TrialCost {
  const { A, B } = costRuns();
  return {
    schema: 1,
    model: 'l1i=32k,8way,64 predictor=2bit',
    scope:
      'cost counters: instructions, taken branches and line fetches are exact counts of the emulated execution (qemu TCG, per translated block); ' +
      'L1i misses and mispredictions come from the named model, not from a CPU; none is a time.',
    counters: { known: true, value: compareMetrics({ a: A, b: B }, 'all') },
    kernels: { A: { known: true, value: { boots: BOOTS, identical: true } }, B: { known: true, value: { boots: BOOTS, identical: false, bound: { subject: 'getppid', function: 'serial8250_tx_chars', counter: 'insns', perCall: 0.0125 } } } },
    functions: {
      changed: [
        { subject: 'getppid', name: '__x64_sys_getppid', change: { insns: 0, taken: 0, fetches: -1, misses: -0.05, mispred: 0 }, shiftBytes: 64, sizeA: 64, sizeB: 64, codegen: 'identical' },
        { subject: 'sched_getattr', name: '__x64_sys_sched_getattr', change: { insns: 0, taken: 1, fetches: 0, misses: 0, mispred: 0 }, shiftBytes: 64, sizeA: 512, sizeB: 528, codegen: 'layout' },
        { subject: 'sched_getattr', name: 'sched_getattr.cold', change: { insns: 2, taken: 1, fetches: 1, misses: 0, mispred: 0 }, shiftBytes: null, sizeA: null, sizeB: 32, codegen: 'added' },
      ],
      small: 1,
      unchanged: 2,
    },
  };
}
