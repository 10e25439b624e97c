/**
 * The paired designs on the run driver: duet (./duet.ts) and alternation,
 * in one process (./alternation.ts) or in two taking turns (./turns.ts). Both measure pair after pair until the budget
 * (./budget.ts) says stop, then record how they measured in both runs:
 * the design's facts, the order, the pairs, and the stopping rule when a
 * precision target was watched.
 */
import { mulberry32 } from '../stats/random.ts';
import { drive, type DriveStop, type DrivenRun, type DriverSegment, type OpenedRun, type SegmentResult } from '../targets/driver.ts';
import { AlternationSession, GoFifo } from './alternation.ts';
import { TurnSession, Turns } from './turns.ts';
import { PAIRS_PER_PROCESS, designLine } from './design.ts';
import { budgetState, minPairsOf, progressText, stoppingRecord, pairLogRatios, type BudgetState } from './budget.ts';
import { duetLayout } from './duet.ts';
import { probeArgs, type CpuPlan } from './probe-run.ts';
import { interruptedBetween } from './runner.ts';
import { clockArgs, switchRecord, workText, type DesignRecord, type PairedRun, type SideRun } from './sides.ts';
import { workArgs } from './known-work.ts';
import { addRound, GAUGE_ADDS, WorkRecalibration, type RoundsSoFar } from './work-recalibration.ts';


export interface PairedOutcome {
  stop: DriveStop | null;
  text: string;
}

/** Why a side with no failure of its own ends failed: its partner's. */
export const partnerReason = (sides: [SideRun, SideRun], abort?: AbortSignal) => (st: DriveStop): string =>
  st.kind === 'failed' ? `stopped with its interleaved partner ${sides[st.run]!.name} (run #${st.runId}): ${st.reason}` : interruptedBetween(abort);

/**
 * Without a precision target, between two full looks at the pairs this long
 * at least. A full look reads both runs from the store and computes the
 * confidence sequence, which grows with the pairs; done after every pair it
 * kept the other vCPU of a 2-vCPU guest about 30 % busy beside the probe.
 * Stopping between looks still follows the time budget.
 */
const LOOK_EVERY_MS = 250;

/** Watch the pairs: after each, the budget's state (looked at fully at most every LOOK_EVERY_MS), shown as progress. */
function watcher(run: PairedRun) {
  const started = Date.now();
  let state: BudgetState | null = null;
  let looked = -Infinity;
  let pairs = 0;
  let pairsAtLook = 0;
  const total = run.budget.secondsPerProfile * run.req.profiles.length;
  return {
    check(): BudgetState {
      const now = Date.now();
      const elapsed = (now - started) / 1000;
      pairs++;
      // a precision target is looked at after every pair: it stops at the first pair that reaches it
      if (state && run.budget.precisionPct === null && now - looked < LOOK_EVERY_MS) {
        const timeUp = elapsed >= total && pairsAtLook + pairs >= minPairsOf(run.budget);
        return { ...state, stop: timeUp ? 'time' : null };
      }
      looked = now;
      pairs = 0;
      const [a, b] = run.sides.map((s) => run.deps.store.getRun(s.runId));
      const ratios = pairLogRatios(a!, b!);
      pairsAtLook = Math.min(...[...ratios.values()].map((xs) => xs.length));
      state = budgetState(ratios, run.budget, run.req.profiles.length, elapsed);
      run.deps.onProgress?.(Math.min(total, Math.round(elapsed)), total, progressText(state));
      return state;
    },
    /** The budget's state at the end, looked at fully. */
    final(): BudgetState | null {
      if (!state) return null;
      const [a, b] = run.sides.map((s) => run.deps.store.getRun(s.runId));
      state = { ...budgetState(pairLogRatios(a!, b!), run.budget, run.req.profiles.length, (Date.now() - started) / 1000), stop: state.stop };
      return state;
    },
  };
}

/** Record in both runs how they were measured (contract: interleave.design and its facts, stopping). */
function record(run: PairedRun, order: string, design: DesignRecord, pairs: number, state: BudgetState | null, req = run.req): void {
  for (const s of run.sides) {
    const precisionPct = run.budget.precisionPct;
    const stopping = precisionPct !== null && state ? { stopping: stoppingRecord(run.budget, precisionPct, state) } : {};
    run.deps.store.mergeParamsExtra(s.runId, { interleave: switchRecord(s.name, req, run.files.switches, order, design), processes: pairs, ...stopping });
  }
}

/** Drive both sides' runs through blocks of segments (added as they end: duet, turns; one for one-process alternation); both fail together. */
async function driveBlocks(run: PairedRun, opened: OpenedRun[], segments: DriverSegment[], onSegmentEnd: (r: SegmentResult) => void): Promise<DriveStop | null> {
  const { stop } = await drive({
    store: run.deps.store,
    abort: run.deps.abort ?? new AbortController().signal,
    runs: opened.map((o): DrivenRun => ({ open: () => o, createdBefore: true, finalEnvironment: run.ending })),
    segments,
    stopOnFailure: true,
    together: true,
    interruptedBefore: () => interruptedBetween(run.deps.abort),
    stoppedReason: partnerReason(run.sides, run.deps.abort),
    onSegmentEnd,
  });
  return stop;
}

/** Duet: blocks of two probes at once, added while the budget says go on. */
export async function runDuet(run: PairedRun, plan: CpuPlan): Promise<PairedOutcome> {
  const layout = duetLayout(run, plan);
  const watch = watcher(run);
  let ended = 0;
  const onSegmentEnd = (r: SegmentResult): void => {
    if (r.outcome.state === 'failed' || ++ended % 2 !== 0) return;
    const pairs = ended / 2;
    if (!watch.check().stop && !run.deps.abort?.aborted) layout.segments.push(layout.nextBlock(pairs));
  };
  let stop: DriveStop | null;
  try {
    stop = await driveBlocks(run, run.sides, layout.segments, onSegmentEnd);
  } finally {
    layout.cleanup();
  }
  const pairs = Math.floor(ended / 2);
  record(run, 'duet', { design: 'duet', cpus: layout.cpus, swapEvery: 1, blockRounds: run.budget.blockRounds }, pairs, watch.final());
  return { stop, text: designLine('duet', { cpus: layout.cpus, pairs, clock: run.req.clock ?? 'wall' }) };
}

/** Alternation: one probe process, blocks in random ABBA order, the files switched between them. */
export async function runAlternation(run: PairedRun, plan: CpuPlan, seed: number): Promise<PairedOutcome> {
  const R = run.budget.blockRounds;
  const go = new GoFifo();
  const watch = watcher(run);
  const session = new AlternationSession(run.sides, R, seed, {
    goOn: () => !watch.check().stop && !run.deps.abort?.aborted,
    switchTo: (side) => run.files.set(side),
    send: (c) => go.send(c),
  });
  // enough rounds for any budget: the probe stops when hintlab sends 's'
  const maxBlocks = 2 * 100_000;
  const args = [...probeArgs({ ...run.req, rounds: maxBlocks * R, injectSeccomp: run.req.a.injectSeccomp }, plan), ...clockArgs(run.req), '--go-fifo', go.path, '--block-rounds', String(R)];
  // B is filled by the same process: the drive ends it as A ends (failed with A, complete with A)
  const [a, b] = run.sides;
  let stop: DriveStop | null;
  try {
    stop = await driveBlocks(run, [{ runId: a.runId, session }, b], [{ run: 0, target: run.deps.target, what: 'the probe', job: { program: 'probe', args } }], () => {});
  } finally {
    go.close();
  }
  const pairs = session.pairs;
  record(run, session.order, { design: 'alternation', blockRounds: R, seed }, pairs, watch.final());
  return { stop, text: designLine('alternation', { pairs, blockRounds: R, seed, clock: run.req.clock ?? 'wall' }) };
}


/**
 * Which side's process each generation starts first, drawn from the seed
 * (a stream of its own, so a seed's block order stays what it was). The
 * process started first reads slower by about 0.05-0.1 % on the
 * development VM (docs/compare-process.md): always starting A would turn
 * that into a bias of the comparison; drawn per generation it is noise
 * between generations, which the generation-level analysis carries.
 */
export function startOrder(seed: number): () => 0 | 1 {
  const random = mulberry32((seed ^ 0x5bd1e995) >>> 0);
  return () => (random() < 0.5 ? 0 : 1);
}

/** Blocks enough for any budget: the probes stop when hintlab sends 's'. */
const MAX_BLOCKS = 2 * 100_000;

/**
 * Alternation in two processes (./turns.ts): an A and a B probe on one CPU
 * take turns block by block in random ABBA order, replaced by fresh ones
 * every PAIRS_PER_PROCESS pairs.
 */
export async function runTurns(run: PairedRun, plan: CpuPlan, seed: number): Promise<PairedOutcome> {
  const R = run.budget.blockRounds;
  const watch = watcher(run);
  const turns = new Turns(run.sides, R, seed, {
    goOn: () => !watch.check().stop && !run.deps.abort?.aborted,
    switchTo: (side) => run.files.set(side),
  });
  const levelOfA: RoundsSoFar = new Map();
  const cal = run.req.workCalibration;
  const recal = cal ? new WorkRecalibration(cal, () => levelOfA) : null;
  const onGauge = recal ? (profile: string, perAdd: number) => recal.gauge(profile, perAdd) : undefined;
  const sessions = run.sides.map((s, i) => new TurnSession(s, turns, R, i === 0 ? (p, v) => addRound(levelOfA, p, v) : undefined, onGauge)) as [TurnSession, TurnSession];
  const open: GoFifo[] = [];
  const firstStarted = startOrder(seed);
  // both sides gauge the additions before every block (./work-recalibration.ts), so the gauges cost A what they cost B
  const gauge = recal ? ['--work-gauge', String(GAUGE_ADDS)] : [];
  const generation = (): DriverSegment => {
    const fifos: [GoFifo, GoFifo] = [new GoFifo(), new GoFifo()];
    open.push(...fifos);
    const work = recal ? { ...run.sides[1].side, injectWork: recal.next() } : run.sides[1].side;
    const sideOf = (i: 0 | 1) => (i === 1 ? work : run.sides[0].side);
    const side = (i: 0 | 1): DriverSegment => ({
      run: i,
      target: run.deps.target,
      what: `the probe (${run.sides[i].name})`,
      job: { program: 'probe' as const, args: [...probeArgs({ ...run.req, rounds: MAX_BLOCKS * R, injectSeccomp: run.sides[i].side.injectSeccomp }, { cpu: plan.cpu, otherCpu: plan.otherCpu }), ...workArgs(sideOf(i), run.req), ...clockArgs(run.req), ...gauge, '--go-fifo', fifos[i].path, '--block-rounds', String(R)] },
    });
    const first = firstStarted();
    return {
      ...side(first),
      begin: () => {
        for (const s of sessions) s.restart();
        turns.startGeneration(fifos);
      },
      alongside: side(first === 0 ? 1 : 0),
    };
  };
  const segments = [generation()];
  let ended = 0;
  let pairsBefore = 0;
  const onSegmentEnd = (r: SegmentResult): void => {
    if (r.outcome.state === 'failed' || ++ended % 2 !== 0) return;
    for (const f of open.splice(0)) f.close();
    recal?.ended(turns.pairs - pairsBefore);
    pairsBefore = turns.pairs;
    if (!turns.finished && !watch.check().stop && !run.deps.abort?.aborted) segments.push(generation());
  };
  let stop: DriveStop | null;
  try {
    stop = await driveBlocks(run, run.sides.map((s, i) => ({ runId: s.runId, session: sessions[i]! })), segments, onSegmentEnd);
  } finally {
    for (const f of open) f.close();
  }
  const pairs = turns.pairs;
  // a recalibrated B records the N it ran on average (its environment too), and each generation's
  const ran = recal && cal ? { ...run.req, b: { ...run.req.b, injectWork: recal.meanN(pairs) }, workCalibration: { ...cal, perGeneration: recal.perGeneration, gaugedPerAddNs: recal.gaugedPerAddNs } } : run.req;
  if (ran !== run.req) run.deps.store.updateEnvironment(run.sides[1].runId, { injectWork: workText(ran.b.injectWork) });
  record(run, turns.order, { design: 'alternation', processes: 2, cpu: plan.cpu, blockRounds: R, seed, pairsPerProcess: PAIRS_PER_PROCESS }, pairs, watch.final(), ran);
  return { stop, text: designLine('alternation', { pairs, blockRounds: R, seed, clock: run.req.clock ?? 'wall', processes: 2, cpu: plan.cpu }) };
}
