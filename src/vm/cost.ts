/**
 * What the cost plugin (probes/plugin/cost.c) wrote during one boot, read
 * back: one window per probe round (warm-ups included, in the probe's
 * order), each with its counters and the kernel blocks it executed. The
 * counters become per-call metrics of the round they belong to, stored
 * beside its instruction count. Which counters a window line carries, and
 * which counts a block line carries, come from the table of cost counters
 * (src/cost-counters.ts).
 *
 * Invariant: a boot whose plugin output does not hold exactly one window per
 * stored round fails: a count is never matched to the wrong round.
 */
import { readFileSync } from 'node:fs';
import { BLOCK_COUNT_KEYS, COST_COUNTERS, type FunctionCounts, KERNEL_ENTRIES_KEY, WINDOW_KEYS } from '../cost-counters.ts';
import type { Metric } from '../model.ts';
import { type BranchCounts, parseBranchLine } from './branch-lines.ts';

/** The counts of one window by the plugin's window keys (totals, not per call). */
export type WindowCounts = Readonly<Record<string, number>>;

/** One kernel translation block's counts in one window: where it lies, how often it ran, its counts by per-function key. */
export interface BlockCounts {
  vaddr: bigint;
  bytes: number;
  insns: number;
  execs: number;
  counts: FunctionCounts;
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

/** Reads one line of its kind (split at spaces) into `out`; throws naming `where` (file:line) when it cannot. */
type LineReader = (fields: readonly string[], out: CostOutput, where: string) => void;

function readWindow(fields: readonly string[], out: CostOutput, where: string): void {
  const kv = new Map(fields.slice(1).map((p) => [p.slice(0, p.indexOf('=')), Number(p.slice(p.indexOf('=') + 1))]));
  const missing = WINDOW_KEYS.filter((k) => !Number.isInteger(kv.get(k)));
  if (kv.get('idx') !== out.windows.length || missing.length) {
    throw new Error(`${where}: bad window line '${fields.join(' ')}' (window ${out.windows.length} expected${missing.length ? `; no whole ${missing.join(', ')}` : ''})`);
  }
  out.windows.push({ index: out.windows.length, counts: Object.fromEntries(kv), blocks: [], branches: [] });
}

/** `t WINDOW VADDR BYTES INSNS EXECS` and the block counts in BLOCK_COUNT_KEYS order. */
function readBlock(fields: readonly string[], out: CostOutput, where: string): void {
  if (fields.length !== 6 + BLOCK_COUNT_KEYS.length) throw new Error(`${where}: unreadable line '${fields.join(' ').slice(0, 80)}' (a block line has ${6 + BLOCK_COUNT_KEYS.length} fields)`);
  const w = out.windows[Number(fields[1])];
  if (!w) throw new Error(`${where}: block line for window ${fields[1]}, which has no window line before it`);
  const [bytes, insns, execs, ...counts] = fields.slice(3).map(Number) as [number, number, number, ...number[]];
  w.blocks.push({ vaddr: BigInt(`0x${fields[2]}`), bytes, insns, execs, counts: Object.fromEntries(BLOCK_COUNT_KEYS.map((k, i) => [k, counts[i]!])) });
}

const ignored: LineReader = () => undefined;

/** `b WINDOW ADDR TARGET TAKEN FELL FALL`: one conditional jump's directions (./branch-lines.ts). */
const readBranch: LineReader = (fields, out, where) => {
  parseBranchLine(fields, out.windows, where);
};

/**
 * The plugin's line kinds, by their first field. A new kind is one entry;
 * a kind registered by nobody is an unreadable line.
 */
const LINE_KINDS: Readonly<Record<string, LineReader>> = { w: readWindow, t: readBlock, b: readBranch, end: ignored };

/** Parse the plugin's file; a line it cannot read is an error naming the file and line. */
export function parseCostOutput(text: string, file: string): CostOutput {
  const lines = text.split('\n');
  const header = lines[0] ?? '';
  if (!header.startsWith('hintlab-cost 1 ')) throw new Error(`${file}:1: not the output of hintlab's cost plugin (format 1): '${header.slice(0, 60)}'`);
  const out: CostOutput = { header, windows: [] };
  lines.slice(1).forEach((line, i) => {
    if (line === '') return;
    const fields = line.split(' ');
    const reader = Object.hasOwn(LINE_KINDS, fields[0]!) ? LINE_KINDS[fields[0]!] : undefined;
    if (!reader) throw new Error(`${file}:${i + 2}: unreadable line '${line.slice(0, 80)}' (line kinds: ${Object.keys(LINE_KINDS).join(', ')})`);
    reader(fields, out, `${file}:${i + 2}`);
  });
  return out;
}

export function readCostOutput(file: string): CostOutput {
  return parseCostOutput(readFileSync(file, 'utf8'), file);
}

/** A window's counters per call of its round (per kernel entry for `kernel entry` counters; 0 without entries), by metric name. */
export function costPerCall(c: WindowCounts, ops: number): Record<string, number> {
  const entries = c[KERNEL_ENTRIES_KEY] ?? 0;
  return Object.fromEntries(
    COST_COUNTERS.map((k) => {
      const count = c[k.windowKey] ?? 0;
      return [k.metric, k.per === 'call' ? count / ops : entries ? count / entries : 0];
    }),
  );
}

/** The window's counters as metrics of its round, each named by its unit. */
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
