/**
 * The per-function cost counts of `vm --cost` runs compared: whether every
 * boot of a kernel gave the same table, and which functions' per-call
 * counts differ between two kernels. The tables are what the cost boot
 * stored in each run's environment (`cost.functions`, one per boot); the
 * counters are those the table of cost counters counts per function
 * (src/cost-counters.ts). Reporters (src/report/cost.ts,
 * src/report/trial-cost.ts) only word the result.
 */
import { FUNCTION_COUNTERS, type FunctionCost, type FunctionCounts } from '../cost-counters.ts';
import type { Known, RunWithRounds } from '../model.ts';

/** One boot's table: subject -> the functions its measured calls ran, per call. */
export type BootFunctions = Record<string, FunctionCost[]>;

/** How the cost boot records a boot's table in the run's environment. */
interface StoredCost {
  functions?: { known: boolean; value?: BootFunctions; reason?: string }[];
}

const storedCost = (run: RunWithRounds): StoredCost | undefined => run.environment.cost as StoredCost | undefined;

/** The per-function tables of a run's boots, known ones only. */
export function bootFunctions(run: RunWithRounds): BootFunctions[] {
  return (storedCost(run)?.functions ?? []).flatMap((f) => (f.known && f.value ? [f.value] : []));
}

/** Whether every boot's table equals the first's, counter for counter. */
export function bootsAgree(boots: readonly BootFunctions[]): boolean {
  const first = JSON.stringify(boots[0] ?? null);
  return boots.every((b) => JSON.stringify(b) === first);
}

/**
 * How far boots of one kernel that should agree apart: the largest per-call
 * difference from the first boot's table, in any per-function counter of any
 * function (`counter` is the counter's per-function key).
 */
export interface BootsBound {
  subject: string;
  function: string;
  counter: string;
  perCall: number;
}

/**
 * One kernel's per-function counts: every boot's table equal to the first's,
 * or how far they differ (a null bound: they differ in no per-call count, only
 * in which functions or subjects a table lists, or where; no bound at all in
 * trial documents older than TRIAL_COST_SCHEMA 3); or why there are none.
 */
export type KernelFunctionCounts = Known<{ boots: number; identical: true } | { boots: number; identical: false; bound?: BootsBound | null }>;

/** The largest per-call difference of any boot's table from the first's; null when every boot agrees. */
export function bootsBound(boots: readonly BootFunctions[]): BootsBound | null {
  let bound: BootsBound | null = null;
  for (const boot of boots.slice(1)) {
    for (const c of changedFunctions(boots[0]!, boot).changed) {
      for (const [counter, v] of Object.entries(c.change)) {
        if (Math.abs(v) >= EXACT && (!bound || Math.abs(v) > bound.perCall)) bound = { subject: c.subject, function: c.name, counter, perCall: Math.abs(v) };
      }
    }
  }
  return bound;
}

/** The per-function counts of one kernel's runs, and its first boot's table when there is one. */
export function kernelFunctions(runs: readonly RunWithRounds[]): { counts: KernelFunctionCounts; first: BootFunctions | null } {
  const boots = runs.flatMap(bootFunctions);
  if (boots.length > 0) {
    const value = bootsAgree(boots) ? { boots: boots.length, identical: true as const } : { boots: boots.length, identical: false as const, bound: bootsBound(boots) };
    return { counts: { known: true, value }, first: boots[0]! };
  }
  const why = runs.map((r) => storedCost(r)?.functions?.find((f) => !f.known)?.reason).find(Boolean);
  return { counts: { known: false, reason: why ?? 'no System.map' }, first: null };
}

/** One changed function: per-call changes, and where it moved. */
export interface FunctionChange {
  subject: string;
  name: string;
  change: FunctionCounts;
  /** B's address minus A's in bytes, null when it is in one kernel only. */
  shiftBytes: number | null;
  sizeA: number | null;
  sizeB: number | null;
}

/** Per-call counts closer than this are equal: they are ratios of the same whole counts. */
export const EXACT = 1e-9;

/** B - A of every per-function counter (a function missing on one side counts 0 there). */
function changeOf(x: FunctionCost | undefined, y: FunctionCost | undefined): FunctionCounts {
  return Object.fromEntries(FUNCTION_COUNTERS.map(({ perFunction: { key } }) => [key, (y?.perCall[key] ?? 0) - (x?.perCall[key] ?? 0)]));
}

/** Functions whose per-call counts differ between A and B, per subject. */
export function changedFunctions(a: BootFunctions, b: BootFunctions): { changed: FunctionChange[]; unchanged: number } {
  const changed: FunctionChange[] = [];
  let unchanged = 0;
  for (const subject of Object.keys(a).filter((s) => s in b)) {
    const fa = new Map(a[subject]!.map((f) => [f.name, f]));
    const fb = new Map(b[subject]!.map((f) => [f.name, f]));
    for (const name of new Set([...fa.keys(), ...fb.keys()])) {
      const x = fa.get(name);
      const y = fb.get(name);
      const change = changeOf(x, y);
      if (Object.values(change).every((v) => Math.abs(v) < EXACT)) {
        unchanged++;
        continue;
      }
      const shift = x && y && x.addr !== '?' && y.addr !== '?' ? Number(BigInt(`0x${y.addr}`) - BigInt(`0x${x.addr}`)) : null;
      changed.push({ subject, name, change, shiftBytes: shift, sizeA: x?.size ?? null, sizeB: y?.size ?? null });
    }
  }
  return { changed, unchanged };
}

/**
 * Changes below this per call are shown as a count, not row by row: they
 * are the share of a few timer ticks spread over thousands of calls, which
 * differs between kernels whose windows last a different number of
 * instructions.
 */
export const SMALL_PER_CALL = 0.005;

/** The changed functions worth a row (SMALL_PER_CALL or more in some counter), and how many changed by less. */
export function significantChanges(changed: readonly FunctionChange[]): { shown: FunctionChange[]; small: number } {
  const shown = changed.filter((c) => Object.values(c.change).some((v) => Math.abs(v) >= SMALL_PER_CALL));
  return { shown, small: changed.length - shown.length };
}

/** The functions of two kernels compared: the rows worth showing, how many changed by less, how many did not change. */
export interface FunctionComparison {
  shown: FunctionChange[];
  small: number;
  unchanged: number;
}

/** Compare two kernels' tables. */
export function compareFunctions(a: BootFunctions, b: BootFunctions): FunctionComparison {
  const { changed, unchanged } = changedFunctions(a, b);
  return { ...significantChanges(changed), unchanged };
}

/** What `vm --cost` found: every run's boots by kernel label, each kernel's tables, and the first two kernels compared per function. */
export interface VmCostSummary {
  runs: RunWithRounds[];
  kernels: { label: string; counts: KernelFunctionCounts }[];
  /** B against A (the first two kernels with tables), or null with fewer than two. */
  functions: { a: string; b: string; comparison: FunctionComparison } | null;
}

/** Summarize `vm --cost`'s runs, grouped by kernel label in boot order. */
export function vmCostSummary(byKernel: ReadonlyMap<string, readonly RunWithRounds[]>): VmCostSummary {
  const tables: [string, BootFunctions][] = [];
  const kernels = [...byKernel].map(([label, runs]) => {
    const { counts, first } = kernelFunctions(runs);
    if (first) tables.push([label, first]);
    return { label, counts };
  });
  const [a, b] = tables;
  return {
    runs: [...byKernel.values()].flat(),
    kernels,
    functions: a && b ? { a: a[0], b: b[0], comparison: compareFunctions(a[1], b[1]) } : null,
  };
}
