/**
 * A against B per branch: in the functions whose per-call counts changed,
 * the conditional jumps whose common direction changed. Addresses move
 * between two kernels, so a jump is matched by its source line (file and
 * line from each kernel's DWARF; several jumps on one line are paired in
 * address order); a kernel without a line table is matched by function and
 * offset, which holds only where the function's code did not change, and
 * the result says so once.
 */
import type { RunWithRounds } from '../model.ts';
import type { BootBranches, BranchCost } from './branch-counts.ts';
import { bootFunctions, changedFunctions, significantChanges } from '../compare/cost-functions.ts';

/** A branch of one subject whose common direction differs between A and B (the json object of the cost section). */
export interface BranchFlip {
  subject: string;
  function: string;
  /** Source file and line; null when a kernel has no line table (then `offset` places it). */
  file: string | null;
  line: number | null;
  /** Bytes from the function's start in A. */
  offset: number;
  /** Hex addresses in each kernel. */
  addressA: string;
  addressB: string;
  takenPerCallA: number;
  fallThroughPerCallA: number;
  takenPerCallB: number;
  fallThroughPerCallB: number;
}

/** The flipped branches of the changed functions, and how the two kernels' branches were matched. */
export interface BranchFlips {
  flips: BranchFlip[];
  /** 'line' when both kernels had line tables, else 'offset' with the reason. */
  matchedBy: { by: 'line' } | { by: 'offset'; reason: string };
  /** Jumps of the changed functions found in one kernel only (new or gone code, or a line that moved). */
  onlyA: number;
  onlyB: number;
}

/** A jump's common direction: the way it went more often per call. */
export type Direction = 'jumps' | 'falls through' | 'both ways';

export function directionOf(takenPerCall: number, fallThroughPerCall: number): Direction {
  if (takenPerCall > fallThroughPerCall) return 'jumps';
  return fallThroughPerCall > takenPerCall ? 'falls through' : 'both ways';
}

/**
 * Jumps run less often than this per call are left out: the share of a
 * timer tick spread over thousands of calls, not the calls' own path.
 */
export const HOT_PER_CALL = 0.005;

const runsPerCall = (b: BranchCost): number => b.takenPerCall + b.fallThroughPerCall;

function keyOf(b: BranchCost, byLine: boolean): string {
  return byLine && b.source ? `${b.source.file}:${b.source.line}` : `+${b.offset}`;
}

/** Each function's jumps grouped by key, in address order within a key. */
function grouped(branches: readonly BranchCost[], fn: string, byLine: boolean): Map<string, BranchCost[]> {
  const out = new Map<string, BranchCost[]>();
  for (const b of branches.filter((x) => x.function === fn).sort((x, y) => x.offset - y.offset)) {
    const k = keyOf(b, byLine);
    out.set(k, [...(out.get(k) ?? []), b]);
  }
  return out;
}

function flipOf(subject: string, fn: string, a: BranchCost, b: BranchCost, byLine: boolean): BranchFlip | null {
  if (runsPerCall(a) < HOT_PER_CALL && runsPerCall(b) < HOT_PER_CALL) return null;
  if (directionOf(a.takenPerCall, a.fallThroughPerCall) === directionOf(b.takenPerCall, b.fallThroughPerCall)) return null;
  return {
    subject,
    function: fn,
    file: byLine ? (a.source?.file ?? null) : null,
    line: byLine ? (a.source?.line ?? null) : null,
    offset: a.offset,
    addressA: a.addr,
    addressB: b.addr,
    takenPerCallA: a.takenPerCall,
    fallThroughPerCallA: a.fallThroughPerCall,
    takenPerCallB: b.takenPerCall,
    fallThroughPerCallB: b.fallThroughPerCall,
  };
}

/**
 * The flipped branches of `changed` (subject and function names whose
 * counts changed), from the first boot of each kernel.
 */
export function branchFlips(a: BootBranches, b: BootBranches, changed: readonly { subject: string; name: string }[]): BranchFlips {
  const noLines = a.noLines ?? b.noLines;
  const byLine = noLines === null;
  const result: BranchFlips = { flips: [], matchedBy: noLines === null ? { by: 'line' } : { by: 'offset', reason: noLines }, onlyA: 0, onlyB: 0 };
  for (const { subject, name } of changed) {
    const ga = grouped(a.subjects[subject] ?? [], name, byLine);
    const gb = grouped(b.subjects[subject] ?? [], name, byLine);
    for (const key of new Set([...ga.keys(), ...gb.keys()])) {
      const xs = ga.get(key) ?? [];
      const ys = gb.get(key) ?? [];
      result.onlyA += Math.max(0, xs.length - ys.length);
      result.onlyB += Math.max(0, ys.length - xs.length);
      for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
        const flip = flipOf(subject, name, xs[i]!, ys[i]!, byLine);
        if (flip) result.flips.push(flip);
      }
    }
  }
  return result;
}

/** The branch tables of a run's boots (environment `cost.branches`), known ones only. */
export function bootBranches(environment: Record<string, unknown>): BootBranches[] {
  const cost = environment.cost as { branches?: { known: boolean; value?: BootBranches }[] } | undefined;
  return (cost?.branches ?? []).filter((x) => x.known && x.value).map((x) => x.value!);
}

/** How far a kernel's boots differ per branch: how many branches differ from the first boot's, and the largest difference. */
export interface BranchBound {
  branches: number;
  /** The largest difference of a taken or fall-through count per call. */
  perCall: number;
  subject: string;
  function: string;
  /** `file:line`, or `+0xOFFSET` without a line table. */
  place: string;
}

/** One kernel's branch tables: how many boots have one, whether they all equal the first, why lines are missing. */
export interface KernelBranches {
  label: string;
  boots: number;
  identical: boolean;
  noLines: string | null;
  /** When the boots differ: by how much (absent in trial documents written before it was kept). */
  bound?: BranchBound;
}

const placeOf = (b: BranchCost): string => (b.source ? `${b.source.file}:${b.source.line}` : `+0x${b.offset.toString(16)}`);

/** The branches of later boots that differ from the first boot's (a branch one boot lacks counts as its whole runs per call). */
export function branchBound(boots: readonly BootBranches[]): BranchBound | undefined {
  const [first, ...rest] = boots;
  if (!first) return undefined;
  const differing = new Set<string>();
  let worst: BranchBound | undefined;
  for (const boot of rest) {
    for (const subject of new Set([...Object.keys(first.subjects), ...Object.keys(boot.subjects)])) {
      const a = new Map((first.subjects[subject] ?? []).map((b) => [b.addr, b]));
      const b = new Map((boot.subjects[subject] ?? []).map((x) => [x.addr, x]));
      for (const addr of new Set([...a.keys(), ...b.keys()])) {
        const x = a.get(addr);
        const y = b.get(addr);
        const d = Math.max(Math.abs((x?.takenPerCall ?? 0) - (y?.takenPerCall ?? 0)), Math.abs((x?.fallThroughPerCall ?? 0) - (y?.fallThroughPerCall ?? 0)));
        if (d === 0) continue;
        differing.add(`${subject} ${addr}`);
        const at = (x ?? y)!;
        if (!worst || d > worst.perCall) worst = { branches: 0, perCall: d, subject, function: at.function, place: placeOf(at) };
      }
    }
  }
  return worst && { ...worst, branches: differing.size };
}

/** Each kernel's branch tables, and A (the first kernel with tables) against B (the second). */
export interface BranchComparison {
  kernels: KernelBranches[];
  /** Null with fewer than two kernels holding branch tables. */
  ab: (BranchFlips & { a: string; b: string }) | null;
}

/**
 * The branch comparison of kernels in boot order; `changedOf` names the
 * changed functions of two kernels' labels (a trial passes its own).
 */
export function compareBranches(kernels: readonly { label: string; runs: readonly RunWithRounds[] }[], changedOf: (a: string, b: string) => readonly { subject: string; name: string }[]): BranchComparison {
  const tables = new Map<string, BootBranches>();
  const out: KernelBranches[] = [];
  for (const { label, runs } of kernels) {
    const boots = runs.flatMap((r) => bootBranches(r.environment));
    if (!boots[0]) continue;
    const first = JSON.stringify(boots[0]);
    const identical = boots.every((x) => JSON.stringify(x) === first);
    const bound = identical ? undefined : branchBound(boots);
    out.push({ label, boots: boots.length, identical, noLines: boots[0].noLines, ...(bound ? { bound } : {}) });
    tables.set(label, boots[0]);
  }
  const [a, b] = [...tables.keys()];
  if (a === undefined || b === undefined) return { kernels: out, ab: null };
  return { kernels: out, ab: { a, b, ...branchFlips(tables.get(a)!, tables.get(b)!, changedOf(a, b)) } };
}

/** `vm --cost`: the branch comparison of the kernels' runs, over the functions whose counts changed by SMALL_PER_CALL or more. */
export function vmBranchComparison(byKernel: ReadonlyMap<string, RunWithRounds[]>): BranchComparison {
  const kernels = [...byKernel.entries()].map(([label, runs]) => ({ label, runs }));
  const changedOf = (a: string, b: string) => {
    const [fa, fb] = [byKernel.get(a)!.flatMap(bootFunctions)[0], byKernel.get(b)!.flatMap(bootFunctions)[0]];
    return fa && fb ? significantChanges(changedFunctions(fa, fb).changed).shown : [];
  };
  return compareBranches(kernels, changedOf);
}
