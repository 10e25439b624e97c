/**
 * The time order of the boots of a boots-as-units comparison, and what it
 * lets the verdict claim.
 *
 * Welch on boot means treats every boot as an independent unit. Boots of
 * one session (one `hintlab vm` invocation, one evening on a box) can share
 * a shift of their own: the host's load, its frequency, the page cache.
 * When A's boots are interleaved with B's (A B A B A B, or vm --repeat's
 * A B B A A B), a session's shift hits both sides alike and only widens the
 * spread. When one side's boots form one block in time (A A A, then
 * B B B), the block's shift moves that side only, and no statistic over the
 * boots can tell it from a change: with a shift of one boot SD per block,
 * Welch claims a change between identical kernels in 18-19 % of
 * comparisons at alpha 5 % (issue 32's audit; test/compare/boot-order.test.ts).
 *
 * So the blocks, not the boots, are then the units of the session term:
 *   - A, B, A2 as three blocks (A/B/A across sessions): B against the
 *     midpoint of the A and A2 blocks, with the block-to-block variation
 *     A vs A2 showed, the run-level t with 1 df (src/compare/aba.ts);
 *   - any other blocked order (A A A B B B): one block per side measures
 *     nothing of the session term, so no claim, saying to interleave.
 *
 * Each boot's time is the earliest `recordedAt` of its rounds (warm-ups
 * included), which survives joining boots given with commas (merge.ts);
 * boots whose times tie across sides cannot be ordered, and the design says
 * the order is not known (hand-built data; stored boots are seconds apart).
 */
import type { RunWithRounds } from '../model.ts';

/** A run's role in a comparison (RunRole of ./types.ts, which imports this file). */
type RunRole = 'A' | 'B' | 'A2';

/**
 * The order of a comparison's boots: `sequence` lists each boot's side in
 * time order. 'interleaved': neither side's boots form one block, judged on
 * boots; 'aba-blocks': the baseline, the candidate, the baseline again, each
 * one block, judged on blocks; 'blocks': another blocked order, no claim;
 * 'counted': blocked, but the units are counts of an emulated execution
 * under -icount, which a host session's shift does not move (judged on
 * boots, said); 'unknown': the boots' times do not order them (judged on
 * boots, said).
 */
export type BootOrder =
  | { kind: 'interleaved'; sequence: RunRole[] }
  | { kind: 'aba-blocks'; sequence: RunRole[] }
  | { kind: 'blocks'; sequence: RunRole[] }
  | { kind: 'counted'; sequence: RunRole[] }
  | { kind: 'unknown'; reason: string };

/** Each unit's (boot's) earliest recorded time in ms, by unit index; units whose rounds carry no time are left out. */
export function unitTimes(run: RunWithRounds): Map<number, number> {
  const times = new Map<number, number>();
  for (const r of run.rounds) {
    const t = Date.parse(r.recordedAt);
    if (!Number.isFinite(t)) continue;
    const seen = times.get(r.replicate);
    if (seen === undefined || t < seen) times.set(r.replicate, t);
  }
  return times;
}

/** True when the positions of `role` (at least 2 of them) in `sequence` are consecutive. */
function oneBlock(sequence: readonly boolean[]): boolean {
  const at = sequence.flatMap((x, i) => (x ? [i] : []));
  return at.length >= 2 && at[at.length - 1]! - at[0]! === at.length - 1;
}

/** Maximal runs of baseline (A, A2) and candidate (B) boots: 'AAABBBAAA' is base, cand, base. */
function blocksOf(sequence: readonly RunRole[]): ('base' | 'cand')[] {
  const blocks: ('base' | 'cand')[] = [];
  for (const role of sequence) {
    const side = role === 'B' ? 'cand' : 'base';
    if (blocks[blocks.length - 1] !== side) blocks.push(side);
  }
  return blocks;
}

/**
 * The order of the boots of A, B (and A2) in time. The baseline is A with
 * A2 pooled, as Welch on boots pools them. Blocked when the candidate's
 * boots, or the baseline's, form one block; with A2 given, A, B and A2 as
 * three blocks in that order are 'aba-blocks'.
 */
export function bootOrderOf(runs: readonly { role: RunRole; run: RunWithRounds }[]): BootOrder {
  const order = timeOrderOf(runs);
  const counted = runs.every(({ run }) => COUNTED_UNITS.has(run.unit));
  return counted && (order.kind === 'blocks' || order.kind === 'aba-blocks') ? { kind: 'counted', sequence: order.sequence } : order;
}

/**
 * Units that count an emulated execution under qemu -icount: the guest's
 * clock is its instruction count, so the host's load, frequency or page
 * cache during a session cannot shift them, and boots in blocks are units
 * as interleaved ones are.
 */
const COUNTED_UNITS: ReadonlySet<string> = new Set(['instructions/call', 'icount-bogo-ops/s']);

function timeOrderOf(runs: readonly { role: RunRole; run: RunWithRounds }[]): BootOrder {
  const boots = runs.flatMap(({ role, run }) => [...unitTimes(run).values()].map((t) => ({ role, t })));
  if (boots.length === 0) return { kind: 'unknown', reason: 'no boot records when it ran' };
  boots.sort((x, y) => x.t - y.t);
  const tie = boots.find((x, i) => i > 0 && x.t === boots[i - 1]!.t && (x.role === 'B') !== (boots[i - 1]!.role === 'B'));
  if (tie !== undefined) return { kind: 'unknown', reason: `boots of both sides share the start time ${new Date(tie.t).toISOString()}` };
  const sequence = boots.map((x) => x.role);
  const blocked = oneBlock(sequence.map((r) => r === 'B')) || oneBlock(sequence.map((r) => r !== 'B'));
  if (!blocked) return { kind: 'interleaved', sequence };
  const a2 = runs.some((r) => r.role === 'A2');
  const aThenA2 = sequence.indexOf('A2') > sequence.lastIndexOf('A');
  if (a2 && aThenA2 && blocksOf(sequence).join() === 'base,cand,base') return { kind: 'aba-blocks', sequence };
  return { kind: 'blocks', sequence };
}

/** 'A B A B A B', or with runs of a side shortened, 'A x3, B x3'. */
export function sequenceText(sequence: readonly RunRole[]): string {
  if (sequence.length <= 12) return sequence.join(' ');
  const runs: [RunRole, number][] = [];
  for (const role of sequence) {
    const last = runs[runs.length - 1];
    if (last?.[0] === role) last[1]++;
    else runs.push([role, 1]);
  }
  return runs.map(([role, n]) => (n === 1 ? role : `${role} x${n}`)).join(', ');
}

/** What the order lets a claim rest on, for the design line. */
export function bootOrderText(order: BootOrder): string {
  switch (order.kind) {
    case 'interleaved':
      return `interleaved in time (${sequenceText(order.sequence)}), so a session's shift hits both sides`;
    case 'aba-blocks':
      return `in three blocks (${sequenceText(order.sequence)}): judged on the blocks, B against the midpoint of A and A2 over their difference (t with 1 degree of freedom)`;
    case 'blocks':
      return `in blocks (${sequenceText(order.sequence)}): no claim, a session's shift of one block cannot be told from the change`;
    case 'counted':
      return `in blocks (${sequenceText(order.sequence)}), counted under -icount, which a host session's shift does not move: every boot a unit`;
    case 'unknown':
      return `order not known (${order.reason}): judged as if interleaved`;
  }
}

/** Why boots in blocks claim nothing, and what to run instead. */
export const BLOCKS_ADVICE =
  'boots in blocks: the order cannot separate a session shift from the change; interleave ABAB (hintlab vm --order A,B,A,B,A,B, or --repeat 3 for A B B A A B), or boot the baseline again after B and give it as A2';
