/**
 * What the cost plugin (probes/plugin/cost.c) wrote during one boot, read
 * back: one window per probe round (warm-ups included, in the probe's
 * order), each with its counters and the kernel blocks it executed. The
 * counters become per-call metrics of the round they belong to, stored
 * beside its instruction count (`COST_UNITS`).
 *
 * Invariant: a boot whose plugin output does not hold exactly one window per
 * stored round fails: a count is never matched to the wrong round.
 */
import { readFileSync } from 'node:fs';
import type { Metric } from '../model.ts';
import { type BranchCounts, parseBranchLine } from './branch-lines.ts';

/** The counters of one window, as the plugin counted them (totals, not per call). */
export interface WindowCounts {
  kinsn: number;
  uinsn: number;
  blocks: number;
  taken: number;
  fetches: number;
  misses: number;
  mispred: number;
  klines: number;
  kentries: number;
}

/** One kernel translation block's counts in one window. */
export interface BlockCounts {
  vaddr: bigint;
  bytes: number;
  insns: number;
  execs: number;
  taken: number;
  fetches: number;
  misses: number;
  mispred: number;
}

export interface CostWindow {
  index: number;
  counts: WindowCounts;
  blocks: BlockCounts[];
  /** Every conditional jump the window ran (src/vm/branch-counts.ts). */
  branches: BranchCounts[];
}

export interface CostOutput {
  /** The plugin's first line: its format and the model it ran with. */
  header: string;
  windows: CostWindow[];
}

const WINDOW_KEYS: readonly (keyof WindowCounts)[] = ['kinsn', 'uinsn', 'blocks', 'taken', 'fetches', 'misses', 'mispred', 'klines', 'kentries'];

/** Parse the plugin's file; a line it cannot read is an error naming the file and line. */
export function parseCostOutput(text: string, file: string): CostOutput {
  const lines = text.split('\n');
  const header = lines[0] ?? '';
  if (!header.startsWith('hintlab-cost 1 ')) throw new Error(`${file}:1: not the output of hintlab's cost plugin (format 1): '${header.slice(0, 60)}'`);
  const windows: CostWindow[] = [];
  lines.slice(1).forEach((line, i) => {
    const where = `${file}:${i + 2}`;
    if (line === '' || line.startsWith('end ')) return;
    const f = line.split(' ');
    if (f[0] === 'w') {
      const kv = new Map(f.slice(1).map((p) => p.split('=') as [string, string]));
      const counts = Object.fromEntries(WINDOW_KEYS.map((k) => [k, Number(kv.get(k))])) as unknown as WindowCounts;
      if (Number(kv.get('idx')) !== windows.length || WINDOW_KEYS.some((k) => !Number.isInteger(counts[k]))) throw new Error(`${where}: bad window line '${line}'`);
      windows.push({ index: windows.length, counts, blocks: [], branches: [] });
    } else if (f[0] === 't' && f.length === 10) {
      const w = windows[Number(f[1])];
      const [bytes, insns, execs, taken, fetches, misses, mispred] = f.slice(3).map(Number) as [number, number, number, number, number, number, number];
      if (!w) throw new Error(`${where}: block line for window ${f[1]}, which has no window line before it`);
      w.blocks.push({ vaddr: BigInt(`0x${f[2]}`), bytes, insns, execs, taken, fetches, misses, mispred });
    } else if (f[0] === 'b') {
      parseBranchLine(f, windows, where);
    } else {
      throw new Error(`${where}: unreadable line '${line.slice(0, 80)}'`);
    }
  });
  return { header, windows };
}

export function readCostOutput(file: string): CostOutput {
  return parseCostOutput(readFileSync(file, 'utf8'), file);
}

/** The per-call units of the cost counters; metric names are the units. */
export const COST_UNITS = [
  'kernel-instructions/call',
  'user-instructions/call',
  'taken-branches/call',
  'line-fetches/call',
  'distinct-lines/entry',
  'l1i-misses/call',
  'mispredictions/call',
] as const;
export type CostUnit = (typeof COST_UNITS)[number];

/** A window's counters per call of its round (`distinct-lines/entry` per kernel entry). */
export function costPerCall(c: WindowCounts, ops: number): Record<CostUnit, number> {
  return {
    'kernel-instructions/call': c.kinsn / ops,
    'user-instructions/call': c.uinsn / ops,
    'taken-branches/call': c.taken / ops,
    'line-fetches/call': c.fetches / ops,
    'distinct-lines/entry': c.kentries ? c.klines / c.kentries : 0,
    'l1i-misses/call': c.misses / ops,
    'mispredictions/call': c.mispred / ops,
  };
}

export function costMetrics(c: WindowCounts, ops: number): Metric[] {
  return Object.entries(costPerCall(c, ops)).map(([name, value]) => ({ name, value, unit: name, direction: 'lower-is-better' }));
}

/** The rounds of one boot, in the probe's order, as stored. */
export interface BootRound {
  seq: number;
  subject: string;
  warmup: boolean;
  ops: number;
}

/** Pair each round with its window; null with the reason when the counts disagree. */
export function matchWindows(out: CostOutput, rounds: readonly BootRound[]): { round: BootRound; window: CostWindow }[] | string {
  if (out.windows.length !== rounds.length) {
    return `the cost plugin closed ${out.windows.length} windows but the probe stored ${rounds.length} rounds in this boot`;
  }
  return rounds.map((round, i) => ({ round, window: out.windows[i]! }));
}
