/**
 * The cost plugin's per-branch lines, `b WINDOW ADDR TARGET TAKEN FELL FALL`
 * (probes/plugin/branches.c), read into the windows of its output
 * (src/vm/cost.ts). A leaf: what they mean is ./branch-counts.ts.
 */

/** One conditional jump's directions in one window (totals, not per call). */
export interface BranchCounts {
  addr: bigint;
  target: bigint;
  taken: number;
  fell: number;
  /** The address after the jump: where it goes when it falls through. */
  fall: bigint;
}

const HEX = /^[0-9a-f]+$/;
const COUNT = /^\d+$/;

/**
 * Add one `b` line's branch to its window; an error names the line. The
 * window must have been opened by its `w` line before (the plugin writes
 * it first).
 */
export function parseBranchLine(fields: readonly string[], windows: readonly { branches: BranchCounts[] }[], where: string): void {
  const [, win, addr, target, taken, fell, fall] = fields;
  const hex = [addr, target, fall];
  const counts = [win, taken, fell];
  if (fields.length !== 7 || !hex.every((h) => h !== undefined && HEX.test(h)) || !counts.every((c) => c !== undefined && COUNT.test(c))) {
    throw new Error(`${where}: bad branch line '${fields.join(' ').slice(0, 80)}' (expected 'b WINDOW ADDR TARGET TAKEN FELL FALL')`);
  }
  const w = windows[Number(win)];
  if (!w) throw new Error(`${where}: branch line for window ${win}, which has no window line before it`);
  w.branches.push({ addr: BigInt(`0x${addr!}`), target: BigInt(`0x${target!}`), taken: Number(taken), fell: Number(fell), fall: BigInt(`0x${fall!}`) });
}
