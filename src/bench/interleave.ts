/**
 * `hintlab bench` with a B side: one invocation measures A and B where they
 * differ by something switchable at run time (a seccomp filter or known
 * work in the probe, values written to files). The design is chosen from
 * what differs (./design.ts): duet (./duet.ts), alternation
 * (./alternation.ts), or whole probe processes A, B, B, A, A, B, ... (this
 * file), so that linear drift of the machine hits both sides alike. Either
 * way it stores two runs that `compare` and `report` read like any other.
 *
 * Invariant: every switched file holds its original value again when this
 * returns or throws (and a watchdog restores it if the process dies).
 */
import { parseCpuList } from '../environment/host.ts';
import { drive, type DriverSegment, type DrivenRun, type DriveStop } from '../targets/driver.ts';
import { DEFAULT_ALPHA, DEFAULT_BLOCK_ROUNDS, DEFAULT_SECONDS_PER_PROFILE, PAIRED_OPS_DIVISOR, PAIRED_WARMUPS } from './budget.ts';
import type { DesignKind } from '../run-record.ts';
import { ABBAAB_ORDER, chooseDesign, designLine } from './design.ts';
import { partnerReason, runAlternation, runDuet, runTurns } from './paired.ts';
import { type PairedRun, clockArgs, sharedEnding, startSides, type InterleavedRequest, type InterleavedResult, type PairedBudget, type SideName, type SideRun } from './sides.ts';
import { defaultClock, probeArgs, splitRounds, type CpuPlan } from './probe-run.ts';
import { BenchRequestError, benchStart, checkOps, interruptedBetween, type BenchDeps } from './runner.ts';
import { FileSwitches } from './switch-file.ts';
import { calibrateWork, type WorkCalibration } from './work-pilot.ts';
import { fixed } from '../format/numbers.ts';
import { workArgs } from './known-work.ts';
import { GAUGE_ADDS } from './work-recalibration.ts';


/**
 * The side of each probe process: A B B A repeated, `perSide` processes per
 * side. Under a linear drift, every ABBA block gives both sides the same
 * mean position.
 */
export function abbaOrder(perSide: number): SideName[] {
  return Array.from({ length: 2 * perSide }, (_, i) => ('ABBA'[i % 4] as SideName));
}

/**
 * The probe processes of the processes design and of abbaab: the side of
 * each, and its rounds. processes: one process per letter of A B B A ...,
 * `--rounds` split over `--processes` per side. abbaab: six runs A B B A A
 * B, each of `--processes` processes sharing `--rounds` as one plain run
 * would, so a side's unit k belongs to its run floor(k / processesPerRun).
 */
export function processPlan(kind: 'processes' | 'abbaab', rounds: number, processes: number): { order: SideName[]; shares: number[]; processesPerRun: number } {
  const perRun = splitRounds(rounds, processes);
  if (kind === 'processes') return { order: abbaOrder(perRun.length), shares: perRun, processesPerRun: perRun.length };
  const runs = ABBAAB_ORDER.split('') as SideName[];
  return { order: runs.flatMap((side) => perRun.map(() => side)), shares: runs.slice(0, 3).flatMap(() => perRun), processesPerRun: perRun.length };
}

/** The probe processes in their order: each switches the files to its side, then runs its share of rounds. */
function processSegments(sides: SideRun[], order: SideName[], shares: readonly number[], req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan, files: FileSwitches): DriverSegment[] {
  const next = { A: 0, B: 0 };
  return order.map((name) => {
    const s = sides[name === 'A' ? 0 : 1]!;
    const rounds = shares[next[name]++]!;
    return {
      run: name === 'A' ? 0 : 1,
      target: deps.target,
      what: 'the probe',
      job: { program: 'probe', args: [...probeArgs({ ...req, rounds, injectSeccomp: s.side.injectSeccomp }, plan), ...workArgs(s.side, req), ...clockArgs(req)] },
      begin: () => {
        files.set(name);
        s.session.startSegment(rounds);
      },
    };
  });
}

/** The design, from what differs and what was asked; a request that cannot run is refused before anything is measured. */
/** A and B differ inside each process (a seccomp filter, known work): they need a process each. */
const perProcess = (req: InterleavedRequest) => req.a.injectSeccomp !== req.b.injectSeccomp || (req.workB ?? null) !== null || Boolean(req.b.injectWork);

function designFor(req: InterleavedRequest, deps: BenchDeps, allowed: string, plan: CpuPlan): { kind: DesignKind; note: string | null } {
  const choice = chooseDesign({
    perProcess: perProcess(req),
    global: req.files.length > 0,
    allowedCpus: plan.otherCpu === null ? [plan.cpu] : parseCpuList(allowed),
    onHost: deps.target.kind === 'host',
    asked: req.design === 'auto' ? null : req.design,
  });
  if (!choice.ok) throw new BenchRequestError(choice.error);
  return choice;
}

/**
 * A paired design's processes are short and many: one warm-up each unless
 * --warmups was given, and rounds of a fifth of the profile's default calls
 * unless --ops was (more pairs in the same time: the interval of the paired
 * change narrows with the number of pairs, docs/bench.md).
 */
function pairedDefaults(req: InterleavedRequest): InterleavedRequest {
  const warmups = req.warmupsAsked ? req.warmups : Math.min(req.warmups, PAIRED_WARMUPS);
  const profiles = req.ops === null ? req.profiles.map((p) => ({ ...p, defaultOps: Math.ceil(p.defaultOps / PAIRED_OPS_DIVISOR) })) : req.profiles;
  return { ...req, warmups, profiles };
}

const defaultBudget: PairedBudget = { secondsPerProfile: DEFAULT_SECONDS_PER_PROFILE, precisionPct: null, blockRounds: DEFAULT_BLOCK_ROUNDS, alpha: DEFAULT_ALPHA };

/** The note on a PCT% pilot: N per profile and what it measured; whether turns recalibrate N per generation. */
function workNote(pct: number, cal: WorkCalibration, design: DesignKind, perGeneration: boolean): string {
  const from = { duet: 'a duet pilot', alternation: 'an alternation pilot', processes: 'a pilot', abbaab: 'a pilot' }[design];
  const each = Object.entries(cal.n).map(([p, n]) => `${p} ${n} additions per call (A ${fixed(cal.levelNs[p]!, 1)} ns per call, one addition ${fixed(cal.perAddNs[p]!, 3)} ns)`);
  const again = perGeneration ? `; B's N is then recalibrated at each generation of processes from A's level and the cost of one addition as this run measures them (both sides gauge ${GAUGE_ADDS} more additions in their loop before every block)` : '';
  return `--inject-work-b ${pct}%: ${each.join(', ')}, from ${from} on the run's clock${again}`;
}

/** Run A and B with the design chosen from what differs; both runs are stored, and both fail together. */
export async function runInterleaved(req0: InterleavedRequest, deps: BenchDeps): Promise<InterleavedResult> {
  if (req0.a.label === req0.b.label) throw new BenchRequestError(`A and B need different labels (both are '${req0.a.label}'); pass --label and --label-b`);
  const { env, plan } = benchStart(req0, deps, null);
  await checkOps({ ...req0, injectSeccomp: null }, plan, deps);
  const design = designFor(req0, deps, env.cpu.allowed.known ? env.cpu.allowed.value : String(plan.cpu), plan);
  const notes = design.note ? [design.note] : [];
  const clocked = { ...req0, clock: req0.clock ?? defaultClock(req0.profiles) };
  const whole = design.kind === 'processes' || design.kind === 'abbaab';
  let req = whole ? clocked : pairedDefaults(clocked);
  const workB = req0.workB;
  if (workB) {
    if (workB.kind === 'count') {
      req = { ...req, b: { ...req.b, injectWork: Object.fromEntries(req.profiles.map((p) => [p.name, workB.n])) } };
    } else {
      const { n, levelNs, perAddNs } = await calibrateWork(req, deps, plan, workB.pct, design.kind);
      // known work runs per process, so alternation takes turns (runTurns), which recalibrates per generation
      notes.push(workNote(workB.pct, { n, levelNs, perAddNs }, design.kind, design.kind === 'alternation'));
      req = { ...req, b: { ...req.b, injectWork: n }, workCalibration: { pct: workB.pct, levelNs, perAddNs } };
    }
  }
  const seed = ('seed' in req ? req.seed : undefined) ?? Math.floor(Math.random() * 2 ** 31);
  // a design chosen as processes reads no budget
  const budget = 'budget' in req ? req.budget : defaultBudget;
  const wholePlan = whole ? processPlan(design.kind === 'abbaab' ? 'abbaab' : 'processes', req.rounds, req.processes) : null;
  const order = wholePlan?.order ?? [];
  const processes = order.length / 2;
  const files = await FileSwitches.prepare(req.files, { ...req.switchOptions, signal: deps.abort });
  const { ending, final } = sharedEnding(env, deps);
  let sides: [SideRun, SideRun] | null = null;
  let stop: DriveStop | null;
  let text: string;
  try {
    let total = 0;
    const sideTotal = req.profiles.length * (req.warmups * processes + (wholePlan?.shares.reduce((x, y) => x + y, 0) ?? 0));
    const progress = whole ? () => deps.onProgress?.(++total, 2 * sideTotal, 'A and B') : () => {};
    const record = design.kind === 'abbaab' ? { design: design.kind, processesPerRun: wholePlan!.processesPerRun } : { design: design.kind };
    // abbaab records the order of its runs, whose units floor(k / processesPerRun) compare maps onto it
    const orderText = design.kind === 'abbaab' ? ABBAAB_ORDER : order.join('') || design.kind;
    sides = startSides({ req, deps, env, plan, files: files.switches, order: orderText, design: record, processes, progress });
    const paired: PairedRun = { req, deps, budget, sides, files, ending };
    if (design.kind === 'duet') ({ stop, text } = await runDuet(paired, plan));
    // nothing switched at all (an A/A control) runs as a per-process comparison would: two processes
    else if (design.kind === 'alternation' && (perProcess(req) || req.files.length === 0)) ({ stop, text } = await runTurns(paired, plan, seed));
    else if (design.kind === 'alternation') ({ stop, text } = await runAlternation(paired, plan, seed));
    else ({ stop, text } = await runProcesses(paired, wholePlan!, plan, design.kind));
  } finally {
    await files.restore();
  }
  const runs = [deps.store.getRun(sides[0].runId), deps.store.getRun(sides[1].runId)] as const;
  if (stop?.kind === 'failed') return { state: 'failed', runs: [...runs], reason: `${sides[stop.run]!.name} ('${sides[stop.run]!.side.label}'): ${stop.reason}` };
  if (runs.some((r) => r.status !== 'complete')) return { state: 'failed', runs: [...runs], reason: runs.find((r) => r.status !== 'complete')!.error ?? 'failed' };
  return { state: 'complete', runs: [...runs], warnings: final().warnings, design: design.kind, designText: text, notes };
}

/** Whole probe processes A B B A ..., unpaired; or the six runs of abbaab. */
async function runProcesses(run: PairedRun, whole: { order: SideName[]; shares: number[]; processesPerRun: number }, plan: CpuPlan, kind: DesignKind): Promise<{ stop: DriveStop | null; text: string }> {
  const { order, shares } = whole;
  const { req, deps, sides } = run;
  const { stop } = await drive({
    store: deps.store,
    abort: deps.abort ?? new AbortController().signal,
    runs: sides.map((s): DrivenRun => ({ open: () => s, createdBefore: true, finalEnvironment: run.ending })),
    segments: processSegments(sides, order, shares, req, deps, plan, run.files),
    stopOnFailure: true,
    together: true,
    interruptedBefore: () => interruptedBetween(deps.abort),
    stoppedReason: partnerReason(sides, deps.abort),
  });
  const clock = req.clock ?? 'wall';
  if (kind === 'abbaab') return { stop, text: designLine('abbaab', { processes: whole.processesPerRun, rounds: req.rounds, clock }) };
  return { stop, text: designLine('processes', { order: order.join(' '), clock }) };
}
