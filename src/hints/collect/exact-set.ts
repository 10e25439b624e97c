/**
 * `branches.json`, the exact set's counts (`hintlab hints collect --exact`):
 * every conditional jump of the kernel that ran in a measured window, its
 * taken and fall-through totals over all windows, where it lies (System.map
 * function and offset), and the addr2line inline chain of the jump, of its
 * target and of its fall-through. Pure: windows, symbols and chains in, the
 * document out; `hintlab hints` reads it.
 *
 * Format history: version 1, first version.
 */
import type { BranchCounts } from '../../vm/branch-lines.ts';
import { functionAt, type KernelSymbol } from '../../vm/cost-functions.ts';
import type { InlineFrame } from '../../vm/dwarf-lines.ts';

export const BRANCHES_FILE = 'branches.json';
export const BRANCHES_FORMAT = 'hintlab-branches';
export const BRANCHES_VERSION = 1;

/** Where one address's code is: the addr2line -i chain, innermost frame first (`[]` when unknown). */
export interface BranchEnd {
  /** Hex, no 0x. */
  addr: string;
  at: InlineFrame[];
}

/** One conditional jump with its totals over every measured window. */
export interface ExactBranch {
  /** Hex, no 0x. */
  addr: string;
  /** The System.map symbol holding the jump, and bytes from its start. */
  function: string;
  offset: number;
  /** objdump's text of the jump (`jne ffffffff812345a0`), when objdump could read it. */
  insn?: string;
  taken: number;
  fell: number;
  at: InlineFrame[];
  target: BranchEnd;
  next: BranchEnd;
}

/** The whole `branches.json`. */
export interface BranchesDocument {
  format: typeof BRANCHES_FORMAT;
  version: typeof BRANCHES_VERSION;
  kernel: { release: string; vmlinux: string; lineTable: boolean };
  /** Measured windows summed. */
  windows: number;
  /** Ordered by address. */
  branches: ExactBranch[];
}

/** A jump's totals before it is placed. */
export interface JumpTotals {
  addr: bigint;
  target: bigint;
  fall: bigint;
  taken: number;
  fell: number;
}

/** Each jump's taken and fell summed over every window, ordered by address. */
export function sumWindows(windows: readonly { branches: readonly BranchCounts[] }[]): JumpTotals[] {
  const totals = new Map<bigint, JumpTotals>();
  for (const w of windows) {
    for (const b of w.branches) {
      const t = totals.get(b.addr);
      if (t) {
        t.taken += b.taken;
        t.fell += b.fell;
      } else totals.set(b.addr, { addr: b.addr, target: b.target, fall: b.fall, taken: b.taken, fell: b.fell });
    }
  }
  return [...totals.values()].sort((a, b) => (a.addr < b.addr ? -1 : a.addr > b.addr ? 1 : 0));
}

/** Every address addr2line has to place: each jump, its target and its fall-through. */
export function addressesToPlace(jumps: readonly JumpTotals[]): bigint[] {
  return [...new Set(jumps.flatMap((j) => [j.addr, j.target, j.fall]))];
}

export interface PlacedJumps {
  symbols: readonly KernelSymbol[];
  /** Address -> chain; empty when the kernel has no line table. */
  chains: ReadonlyMap<bigint, InlineFrame[]>;
  /** Address -> objdump's text of the jump; empty when objdump was not run. */
  insns: ReadonlyMap<bigint, string>;
}

const hex = (a: bigint): string => a.toString(16);

/** The document: each jump placed in its function, with its three chains. */
export function branchesDocument(jumps: readonly JumpTotals[], windows: number, kernel: BranchesDocument['kernel'], placed: PlacedJumps): BranchesDocument {
  const at = (a: bigint): InlineFrame[] => placed.chains.get(a) ?? [];
  return {
    format: BRANCHES_FORMAT,
    version: BRANCHES_VERSION,
    kernel,
    windows,
    branches: jumps.map((j) => {
      const fn = functionAt(placed.symbols, j.addr);
      const insn = placed.insns.get(j.addr);
      return {
        addr: hex(j.addr),
        function: fn?.name ?? '(below the first symbol)',
        offset: fn ? Number(j.addr - fn.addr) : 0,
        ...(insn === undefined ? {} : { insn }),
        taken: j.taken,
        fell: j.fell,
        at: at(j.addr),
        target: { addr: hex(j.target), at: at(j.target) },
        next: { addr: hex(j.fall), at: at(j.fall) },
      };
    }),
  };
}

/**
 * The document as written: one branch per line, so a set diffs and greps
 * line by line, and two boots that counted the same give the same bytes.
 */
export function branchesText(doc: BranchesDocument): string {
  const { branches, ...head } = doc;
  const top = JSON.stringify(head).slice(0, -1);
  const body = branches.map((b) => `  ${JSON.stringify(b)}`).join(',\n');
  return `${top},\n"branches": [\n${body}${branches.length ? '\n' : ''}]}\n`;
}
