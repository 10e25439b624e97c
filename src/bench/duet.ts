/**
 * Duet (Bulej et al., "Duet Benchmarking", ICPE 2020): an A probe and a B
 * probe run at the same time, pinned to two CPUs, and meet at a barrier
 * before every round (probes/sync.c), so whatever the machine does in that
 * instant falls on both. Each block is a fresh pair of processes (process
 * state such as address-space layout is replicated with the pairs) and the
 * two CPUs swap sides every block, so no CPU favours a side. Pair k is block
 * k: replicate k of both runs, the mean of its measured rounds on each side.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DriverSegment } from '../targets/driver.ts';
import { probeArgs, type CpuPlan } from './probe-run.ts';
import { clockArgs, type PairedRun, type SideRun } from './sides.ts';
import { workArgs } from './known-work.ts';

/** CPUs of side A and B in block k: swapped every block. */
export function duetCpus(k: number, cpus: readonly [number, number]): { a: number; b: number } {
  return k % 2 === 0 ? { a: cpus[0], b: cpus[1] } : { a: cpus[1], b: cpus[0] };
}

/** Bytes of the barrier the two probes share (two 32-bit words, padded). */
export const BARRIER_BYTES = 64;

/** Lay out the duet's blocks on the drive: one block now, the next each time a pair ends and the budget says go on. */
export function duetLayout(run: PairedRun, plan: CpuPlan): { segments: DriverSegment[]; nextBlock(k: number): DriverSegment; cleanup(): void; cpus: [number, number] } {
  const cpus: [number, number] = [plan.cpu, plan.otherCpu!];
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-duet-'));
  const R = run.budget.blockRounds;
  const side = (s: SideRun, cpu: number, other: number, barrier: string): DriverSegment => ({
    run: s.name === 'A' ? 0 : 1,
    target: run.deps.target,
    what: `the probe (${s.name})`,
    job: { program: 'probe', args: [...probeArgs({ ...run.req, rounds: R, injectSeccomp: s.side.injectSeccomp }, { cpu, otherCpu: other }), ...workArgs(s.side, run.req), ...clockArgs(run.req), '--barrier', barrier] },
    begin: () => s.session.startSegment(R),
  });
  const nextBlock = (k: number): DriverSegment => {
    const barrier = join(dir, `barrier-${k}`);
    writeFileSync(barrier, Buffer.alloc(BARRIER_BYTES));
    const { a, b } = duetCpus(k, cpus);
    return { ...side(run.sides[0], a, b, barrier), alongside: side(run.sides[1], b, a, barrier) };
  };
  return { segments: [nextBlock(0)], nextBlock, cleanup: () => rmSync(dir, { recursive: true, force: true }), cpus };
}
