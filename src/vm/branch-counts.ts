/**
 * The cost plugin's per-branch counts (read by ./branch-lines.ts) summed
 * per subject and placed in kernel functions: for every conditional jump a
 * window ran, how often it jumped and how often it fell through. The
 * counts are exact (a direction is read from the block that runs next), so
 * a branch's per-call counts repeat boot to boot like the other counters.
 */
import type { Known } from '../model.ts';
import type { BranchCounts } from './branch-lines.ts';
import { functionAt, type KernelSymbol } from './cost-functions.ts';
import { type DebugElf, type SourcePlace, sourcePlaces } from './dwarf-lines.ts';

/** A branch's counts summed over the measured windows of one subject, with where it lies. */
export interface BranchTotals {
  addr: bigint;
  target: bigint;
  function: string;
  /** Bytes from the function's start. */
  offset: number;
  taken: number;
  fell: number;
}

/** Add a window's branches to `into`, keyed by address, each placed in its System.map function. */
export function attributeBranches(branches: readonly BranchCounts[], symbols: readonly KernelSymbol[], into: Map<bigint, BranchTotals>): void {
  for (const b of branches) {
    const t = into.get(b.addr);
    if (t) {
      t.taken += b.taken;
      t.fell += b.fell;
      continue;
    }
    const fn = functionAt(symbols, b.addr);
    into.set(b.addr, {
      addr: b.addr,
      target: b.target,
      function: fn?.name ?? '(below the first symbol)',
      offset: fn ? Number(b.addr - fn.addr) : 0,
      taken: b.taken,
      fell: b.fell,
    });
  }
}

/** One branch of one subject per call, as stored with the run (environment `cost.branches`). */
export interface BranchCost {
  function: string;
  offset: number;
  /** Hex addresses in this kernel. */
  addr: string;
  target: string;
  takenPerCall: number;
  fallThroughPerCall: number;
  /** Absent when the kernel has no line table. */
  source?: SourcePlace;
}

/** The per-call table of one subject's branches, ordered by function then offset. */
export function branchesPerCall(totals: ReadonlyMap<bigint, BranchTotals>, calls: number, places: ReadonlyMap<bigint, SourcePlace>): BranchCost[] {
  return [...totals.values()]
    .sort((a, b) => a.function.localeCompare(b.function) || a.offset - b.offset)
    .map((t) => {
      const place = places.get(t.addr);
      return {
        function: t.function,
        offset: t.offset,
        addr: t.addr.toString(16),
        target: t.target.toString(16),
        takenPerCall: t.taken / calls,
        fallThroughPerCall: t.fell / calls,
        ...(place ? { source: place } : {}),
      };
    });
}

/** One measured window's branches and the subject and calls of its round. */
export interface MeasuredWindow {
  subject: string;
  ops: number;
  branches: readonly BranchCounts[];
}

/**
 * One boot's branches as stored with its run (environment `cost.branches`,
 * one entry per boot): each subject's branches per call; `noLines` says,
 * once for the boot, why they have no source lines.
 */
export interface BootBranches {
  subjects: Record<string, BranchCost[]>;
  noLines: string | null;
}

/**
 * Every subject's branches per call over its measured windows, each placed
 * in its function and, when the kernel has a line table, at its source
 * line (one addr2line run for the boot).
 */
export function subjectBranches(windows: readonly MeasuredWindow[], symbols: readonly KernelSymbol[], elf: Known<DebugElf>): BootBranches {
  const totals = new Map<string, { calls: number; branches: Map<bigint, BranchTotals> }>();
  for (const w of windows) {
    const t = totals.get(w.subject) ?? { calls: 0, branches: new Map<bigint, BranchTotals>() };
    t.calls += w.ops;
    attributeBranches(w.branches, symbols, t.branches);
    totals.set(w.subject, t);
  }
  const addrs = [...new Set([...totals.values()].flatMap((t) => [...t.branches.keys()]))];
  const places = elf.known ? sourcePlaces(elf.value, addrs) : elf;
  const placed = places.known ? places.value : new Map<bigint, SourcePlace>();
  const subjects = Object.fromEntries([...totals.entries()].map(([subject, t]) => [subject, branchesPerCall(t.branches, t.calls, placed)]));
  return { subjects, noLines: places.known ? null : places.reason };
}
