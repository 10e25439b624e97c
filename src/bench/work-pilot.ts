/**
 * `--inject-work-b PCT%`: how many dependent additions per call make side B
 * cost PCT % more than A, from a short pilot on the same target in the
 * conditions of the measurement. Per profile, A's cost per call a and the
 * cost of one addition s = (t_K - a)/K give N = PCT/100 * a / s.
 *
 * - processes design: probe processes alone with no work and with
 *   PILOT_ADDS additions, in the order 0 K K 0 (a linear drift cancels).
 * - alternation: the cost of one addition as for processes, A's cost from
 *   two probes with no work taking turns block by block on one CPU as the
 *   measurement's two processes do, each block starting after the other
 *   process's syscalls ran: a getppid costs more so than in a process alone
 *   (a count calibrated alone bought about 0.87 of the share it promised),
 *   while the additions, one dependency chain, cost the same.
 * - duet: pairs of probes at once on the duet's two CPUs, meeting at a
 *   barrier before every round, as blocks (0,0) (0,K) (K,0) (0,0): a comes
 *   from the (0,0) blocks, t_K from the K sides. A probe beside a busy
 *   partner costs more than one alone (on a 2-vCPU guest measured 218 ns
 *   for a getppid against 170 ns alone, the CPUs share a core's resources)
 *   while the additions, one dependency chain, cost the same, so a count
 *   calibrated alone bought about 3/4 of the share it promised in a duet.
 *
 * Every pilot probe runs the base the measurement's processes run
 * (WORK_BASE additions, ./known-work.ts) and K (or 0) more: "no work"
 * above means the base alone, and a is A's cost with it, so the count
 * buys its share of what A measures. From the base on the cost is linear
 * in the additions; below it a constant part of the first few hides.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DesignKind, WorkCalibrationRecord } from '../run-record.ts';
import { roundWork, WORK_BASE, WORK_EXTRA_MAX } from './known-work.ts';
import { GoFifo } from './alternation.ts';
import { BARRIER_BYTES, duetCpus } from './duet.ts';
import { ConsoleLines } from '../launch/probe-protocol.ts';
import { opsFor, probeArgs, type CpuPlan } from './probe-run.ts';
import { BenchRequestError, type BenchDeps } from './runner.ts';
import { clockArgs, type InterleavedRequest } from './sides.ts';

/** Additions per call in the pilot's work processes beyond the base: large enough to stand out of the noise of a short pilot. */
export const PILOT_ADDS = 4000;

type Costs = Map<string, number[]>;

/** Per profile, the ns per call of the measured rounds of one probe process; `onWait` hears its `wait block=K` lines. */
async function pilotProcess(req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan, adds: number, extra: string[] = [], onWait?: (block: number) => void, rounds = 3): Promise<Costs> {
  // every process runs the base, as the measurement's processes do (./known-work.ts): `adds` are on top of it
  const args = [...probeArgs({ ...req, warmups: 1, rounds, injectSeccomp: req.a.injectSeccomp }, plan), '--inject-work', String(WORK_BASE + adds), ...clockArgs(req), ...extra];
  const lines = new ConsoleLines();
  const got: Costs = new Map();
  const exit = await deps.target.run({ program: 'probe', args }, (l) => {
    for (const p of lines.push(l)) {
      if (p.kind === 'event' && p.event.type === 'wait') onWait?.(p.event.block);
      if (p.kind === 'event' && p.event.type === 'round' && !p.event.warmup) got.set(p.event.profile, [...(got.get(p.event.profile) ?? []), p.event.elapsed / p.event.ops]);
    }
  }, deps.abort ?? new AbortController().signal);
  if (exit.end.kind !== 'exited' || exit.end.code !== 0) throw new BenchRequestError(exit.describe('the --inject-work-b pilot probe failed'));
  return got;
}

/** Processes alone, one after the other: [adds, costs] per process. */
async function soloPilot(req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan): Promise<[number, Costs][]> {
  const runs: [number, Costs][] = [];
  for (const adds of [0, PILOT_ADDS, PILOT_ADDS, 0]) runs.push([adds, await pilotProcess(req, deps, plan, adds)]);
  return runs;
}

/** Duet blocks (0,0) (0,K) (K,0) (0,0) on the duet's CPUs, swapped every block: [adds, costs] per process. */
async function duetPilot(req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan): Promise<[number, Costs][]> {
  const dir = mkdtempSync(join(tmpdir(), 'hintlab-pilot-'));
  const runs: [number, Costs][] = [];
  try {
    const blocks: [number, number][] = [[0, 0], [0, PILOT_ADDS], [PILOT_ADDS, 0], [0, 0]];
    for (const [k, [x, y]] of blocks.entries()) {
      const barrier = join(dir, `barrier-${k}`);
      writeFileSync(barrier, Buffer.alloc(BARRIER_BYTES));
      const { a, b } = duetCpus(k, [plan.cpu, plan.otherCpu!] as const);
      const [cx, cy] = await Promise.all([pilotProcess(req, deps, { cpu: a, otherCpu: b }, x, ['--barrier', barrier]), pilotProcess(req, deps, { cpu: b, otherCpu: a }, y, ['--barrier', barrier])]);
      runs.push([x, cx], [y, cy]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return runs;
}

/** Blocks of the alternation pilot, in the order A B B A repeated. */
const TURN_BLOCKS = 12;
const TURN_ROUNDS = 2;

/** Two probes with no work taking turns on one CPU, one block of TURN_ROUNDS rounds at a time: [0, costs] per process. */
async function turnsPilot(req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan): Promise<[number, Costs][]> {
  const fifos = [new GoFifo(), new GoFifo()] as const;
  const order = Array.from({ length: TURN_BLOCKS }, (_, k) => ('ABBA'[k % 4] === 'A' ? 0 : 1));
  const waiting = [false, false];
  let next = 0;
  let running = -1;
  const step = () => {
    if (running >= 0 && !waiting[running]) return;
    if (next === TURN_BLOCKS) {
      for (const f of fifos) f.send('s');
      return;
    }
    const side = order[next]!;
    if (!waiting[side]) return;
    waiting[side] = false;
    running = side;
    next++;
    fifos[side].send('g');
  };
  const onWait = (side: number) => () => {
    waiting[side] = true;
    step();
  };
  try {
    const rounds = TURN_ROUNDS * (TURN_BLOCKS + 1);
    const extra = (side: number) => ['--go-fifo', fifos[side]!.path, '--block-rounds', String(TURN_ROUNDS)];
    const costs = await Promise.all([0, 1].map((side) => pilotProcess(req, deps, { cpu: plan.cpu, otherCpu: plan.otherCpu }, 0, extra(side), onWait(side), rounds)));
    return costs.map((c) => [0, c]);
  } finally {
    for (const f of fifos) f.close();
  }
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** What a pilot measured per profile: A's cost per call and the cost of one addition (ns), and the N they give. */
export type WorkCalibration = Pick<WorkCalibrationRecord, 'levelNs' | 'perAddNs'> & { n: Record<string, number> };

/** N for `pct` % of `levelNs`, at `perAddNs` per addition: to the probe's thousandths, never below one of them. */
export const workFor = (pct: number, levelNs: number, perAddNs: number): number => Math.max(0.001, Math.min(WORK_EXTRA_MAX, roundWork(((pct / 100) * levelNs) / perAddNs)));

/**
 * N per profile from the pilot's costs: B costs `pct` % more than A. The
 * cost of one addition comes from `runs` (K against 0 in the same
 * conditions); A's cost from `level` when given (the design's own
 * conditions), else from the 0 runs of `runs`.
 */
export function workFromPilot(runs: [number, Costs][], profiles: readonly string[], pct: number, describe: (profile: string) => string, level?: [number, Costs][]): WorkCalibration {
  const out: WorkCalibration = { n: {}, levelNs: {}, perAddNs: {} };
  const zeros = (rs: [number, Costs][], p: string) => mean(rs.filter(([k]) => k === 0).flatMap(([, m]) => m.get(p) ?? []));
  for (const p of profiles) {
    const a0 = zeros(runs, p);
    const perAdd = (mean(runs.filter(([k]) => k > 0).flatMap(([, m]) => m.get(p) ?? [])) - a0) / PILOT_ADDS;
    const a = level ? zeros(level, p) : a0;
    if (!(perAdd > 0) || !(a > 0)) {
      throw new BenchRequestError(`the --inject-work-b pilot could not see ${PILOT_ADDS} additions per call in ${describe(p)} through the noise; give a count instead (--inject-work-b N)`);
    }
    out.n[p] = workFor(pct, a, perAdd);
    out.levelNs[p] = a;
    out.perAddNs[p] = perAdd;
  }
  return out;
}

/** N per profile so that B costs `pct` % more than A under `design`, from a pilot in its conditions. */
export async function calibrateWork(req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan, pct: number, design: DesignKind): Promise<WorkCalibration> {
  const runs = design === 'duet' && plan.otherCpu !== null ? await duetPilot(req, deps, plan) : await soloPilot(req, deps, plan);
  const level = design === 'alternation' ? await turnsPilot(req, deps, plan) : undefined;
  const byName = new Map(req.profiles.map((p) => [p.name, p]));
  return workFromPilot(runs, req.profiles.map((p) => p.name), pct, (name) => `${name} (${opsFor(req, byName.get(name)!)} calls per round)`, level);
}
