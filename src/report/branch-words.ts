/**
 * Branch comparisons (src/vm/branch-flips.ts) in words: per kernel whether
 * its boots gave the same per-branch counts, and one line per branch whose
 * common direction changed between A and B, as a kernel engineer reads
 * it: "sched_getattr: __do_sys_sched_getattr kernel/sched/syscalls.c:1033:
 * A falls through 1.00/call, B jumps 1.00/call: the hot path now jumps".
 */
import { fixed, formatNumber } from '../format/numbers.ts';
import { type BranchBound, type BranchComparison, type BranchFlip, type BranchFlips, type Direction, directionOf, HOT_PER_CALL } from '../vm/branch-flips.ts';

const perCall = (v: number): string => `${fixed(v, 2)}/call`;

/** "falls through 1.00/call", "jumps 0.98/call", "goes both ways 0.50/call each". */
function sideWords(taken: number, fell: number): { dir: Direction; words: string } {
  const dir = directionOf(taken, fell);
  if (dir === 'jumps') return { dir, words: `jumps ${perCall(taken)}` };
  if (dir === 'falls through') return { dir, words: `falls through ${perCall(fell)}` };
  return { dir, words: `goes both ways ${perCall(taken)} each` };
}

/** Where a flipped branch is: `kernel/sched/syscalls.c:1033`, or `+0x1c` into its function without a line table. */
export function flipPlace(f: BranchFlip): string {
  return f.file !== null && f.line !== null ? `${f.file}:${f.line}` : `+0x${f.offset.toString(16)}`;
}

/** One flipped branch in a line. */
export function flipLine(f: BranchFlip): string {
  const a = sideWords(f.takenPerCallA, f.fallThroughPerCallA);
  const b = sideWords(f.takenPerCallB, f.fallThroughPerCallB);
  const now = b.dir === 'both ways' ? 'the hot path now goes both ways' : `the hot path now ${b.dir}`;
  return `${f.subject}: ${f.function} ${flipPlace(f)}: A ${a.words}, B ${b.words}: ${now}`;
}

/** How the branches were matched and what matched nowhere, in a sentence. */
function matchWords(x: BranchFlips): string {
  const how = x.matchedBy.by === 'line' ? 'matched by source line' : `matched by function and offset (${x.matchedBy.reason})`;
  const only = x.onlyA || x.onlyB ? `; ${x.onlyA} jump(s) only in A, ${x.onlyB} only in B` : '';
  return `${how}${only}`;
}

/** Per kernel: whether its boots gave the same per-branch counts, and why it has no source lines when it has none. */
export function branchKernelLines(c: BranchComparison): string[] {
  return c.kernels.map((k) => `kernel ${k.label}: per-branch counts ${k.identical ? 'identical' : `DIFFER${boundWords(k.bound)}`} across ${k.boots} boot(s)${k.noLines ? `; no source lines: ${k.noLines}` : ''}`);
}

/** " in 3 branches, by at most 0.0010/call (getppid: update_curr kernel/sched/fair.c:1234)", or nothing without a bound. */
function boundWords(b: BranchBound | undefined): string {
  if (!b) return '';
  return ` in ${b.branches} branch${b.branches === 1 ? '' : 'es'}, by at most ${formatNumber(b.perCall)}/call (${b.subject}: ${b.function} ${b.place})`;
}

/** The flipped branches as lines under a heading; null when there is no A/B comparison. */
export function flipLines(c: BranchComparison): string[] | null {
  const ab = c.ab;
  if (!ab) return null;
  const head = `per branch, ${ab.b} against ${ab.a}, in the functions whose counts changed (jumps run ${HOT_PER_CALL}/call or more; ${matchWords(ab)}):`;
  if (!ab.flips.length) return [head, '  no branch changed its common direction'];
  return [head, ...ab.flips.map((f) => `  ${flipLine(f)}`)];
}

/** Everything `vm --cost` says about branches, after its function table. */
export function branchReport(c: BranchComparison): string {
  if (!c.kernels.length) return '';
  return `${[...branchKernelLines(c), ...(flipLines(c) ?? [])].join('\n')}\n`;
}
