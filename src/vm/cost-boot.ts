/**
 * After a `vm --cost` boot: the plugin's windows matched to the rounds the
 * probe stored, their counters stored as per-call metrics of those rounds,
 * and the measured windows' kernel blocks summed per function and subject
 * (recorded in the run's environment under `cost`), and their conditional
 * jumps per subject, placed at source lines when the kernel has DWARF.
 */
import { existsSync } from 'node:fs';
import type { Known } from '../model.ts';
import type { Store } from '../store/store.ts';
import { type BootRound, costMetrics, matchWindows, readCostOutput } from './cost.ts';
import { type CostModel, headerMismatch } from './cost-plugin.ts';
import type { FunctionCost, FunctionCounts } from '../cost-counters.ts';
import { type BootBranches, subjectBranches } from './branch-counts.ts';
import type { DebugElf } from './dwarf-lines.ts';
import { attributeBlocks, type KernelSymbol, perCall } from './cost-functions.ts';

/** What one boot's cost output added to its run. */
export interface BootCost {
  /** Subject -> the functions its measured calls ran, per call. */
  functions: Known<Record<string, FunctionCost[]>>;
  /** Subject -> its conditional jumps per call (src/vm/branch-counts.ts). */
  branches: Known<BootBranches>;
}

export interface BootCostInput {
  store: Store;
  runId: number;
  /** The boot's replicate within the run (pooled boots), or null when the run is this boot alone. */
  replicate: number | null;
  file: string;
  /** The model the boot asked the plugin for: a header naming another fails the boot. */
  model: CostModel;
  symbols: Known<{ path: string; symbols: KernelSymbol[] }>;
  /** The kernel's vmlinux, for the source lines of its branches. */
  debug: Known<DebugElf>;
}

/** Store the boot's counters; a string says why they could not be matched to its rounds (the boot then fails). */
export function recordBootCost(input: BootCostInput): BootCost | string {
  if (!existsSync(input.file)) return `the cost plugin wrote no output (${input.file}); qemu's stderr above says why`;
  let out;
  try {
    out = readCostOutput(input.file);
  } catch (err) {
    return (err as Error).message;
  }
  const mismatch = headerMismatch(out.header, input.model);
  if (mismatch) return `${input.file}:1: ${mismatch}`;
  const run = input.store.getRun(input.runId);
  const rounds: BootRound[] = run.rounds
    .filter((r) => input.replicate === null || r.replicate === input.replicate)
    .filter((r) => r.metrics.length === 0)
    .map((r) => ({ seq: r.seq, subject: r.subject, warmup: r.warmup, ops: r.ops }));
  const matched = matchWindows(out, rounds);
  if (typeof matched === 'string') return matched;
  input.store.addMetrics(input.runId, matched.map(({ round, window }) => ({ seq: round.seq, metrics: costMetrics(window.counts, round.ops) })));
  if (!input.symbols.known) return { functions: { known: false, reason: input.symbols.reason }, branches: { known: false, reason: input.symbols.reason } };
  const { symbols } = input.symbols.value;
  const totals = new Map<string, { calls: number; fns: Map<string, FunctionCounts> }>();
  for (const { round, window } of matched) {
    if (round.warmup) continue;
    const t = totals.get(round.subject) ?? { calls: 0, fns: new Map<string, FunctionCounts>() };
    t.calls += round.ops;
    attributeBlocks(window.blocks, symbols, t.fns);
    totals.set(round.subject, t);
  }
  const functions = Object.fromEntries([...totals.entries()].map(([subject, t]) => [subject, perCall(t.fns, t.calls, symbols)]));
  const measured = matched.filter(({ round }) => !round.warmup).map(({ round, window }) => ({ subject: round.subject, ops: round.ops, branches: window.branches }));
  return { functions: { known: true, value: functions }, branches: { known: true, value: subjectBranches(measured, symbols, input.debug) } };
}
