/**
 * The two sides of `hintlab bench --label-b`, whatever the design: what
 * each side runs with, the two runs created before the first probe process,
 * and what each run records about the other side and the design.
 */
import type { RunWithRounds } from '../model.ts';
import { invocationExtra, type DesignKind, type InterleaveRecord, type RoundClock } from '../run-record.ts';
import { finishEnvironment } from '../environment/host.ts';
import type { EnvironmentPatch, EnvWarning, HostEnvironment, RemoteEnvironment } from '../environment/record.ts';
import { clockFlags, probeRunShape, runParams, type CpuPlan } from './probe-run.ts';
import type { BenchDeps, BenchRequest } from './runner.ts';
import { startProbeRun, type ProbeSession } from './session.ts';
import type { FileSwitches, FileSwitchSpec, PreparedSwitch, SwitchOptions } from './switch-file.ts';
import type { OpenedRun } from '../targets/driver.ts';
import { WORK_BASE } from './known-work.ts';
import type { WorkCalibrationRecord } from '../run-record.ts';

export type SideName = 'A' | 'B';

/** What one side runs with. */
export interface Side {
  label: string;
  /** Instructions of the calibration seccomp filter; null = none. */
  injectSeccomp: number | null;
  /** Dependent additions per call by profile (--inject-work-b); empty = none. */
  injectWork?: Record<string, number>;
}

/** How long a paired design measures (duet, alternation); the processes design uses --rounds and --processes. */
export interface PairedBudget {
  /** Seconds of measuring per profile (the whole invocation gets this times the profiles). */
  secondsPerProfile: number;
  /** Stop once the confidence sequence's half-width of every profile's change is at most this (%); null = run the budget out. */
  precisionPct: number | null;
  /** Measured rounds per block (one block per side per pair). */
  blockRounds: number;
  /** Level of the confidence sequence the precision stop watches. */
  alpha: number;
  /** Pairs measured at least, whatever the time or the precision reached (`--min-pairs`; never below MIN_PAIRS). */
  minPairs?: number;
}

/** `--inject-work-b`: N additions per call, or a share of A's cost measured by a pilot. */
export type WorkRequest = { kind: 'count'; n: number } | { kind: 'percent'; pct: number };

/** What every A/B invocation asks for, whatever its design. */
export interface SidesRequest extends Omit<BenchRequest, 'label' | 'injectSeccomp'> {
  a: Side;
  b: Side;
  /** Files written with B's value before each B process (or block) and A's before each A one. */
  files: FileSwitchSpec[];
  /** --force, --wait and where notes about other runs' locks go. */
  switchOptions?: Omit<SwitchOptions, 'signal'>;
  workB?: WorkRequest | null;
  /**
   * `--inject-work-b PCT%`: the share asked and what the pilot measured.
   * Two processes taking turns recalibrate B's N at each generation from
   * A's level as the run has measured it so far (./paired.ts).
   */
  workCalibration?: WorkCalibrationRecord | null;
  /** --warmups was given: the paired designs warm up each process PAIRED_WARMUPS times otherwise. */
  warmupsAsked?: boolean;
}

/**
 * The design asked for (--design) with what it reads, and nothing it would
 * not: whole processes and the six runs of abbaab read --rounds and
 * --processes only; the paired
 * designs a budget (--time, --precision, --block-rounds, --min-pairs);
 * the alternation a seed too. `auto` is chosen when the run starts, from
 * what differs and where (./design.ts): alternation on this machine,
 * processes on any other target, where the budget and seed go unread.
 */
export type DesignRequest =
  | { design: 'processes' | 'abbaab' }
  | { design: 'duet'; budget: PairedBudget }
  | { design: 'alternation' | 'auto'; budget: PairedBudget; /** Seed of the random order (default: drawn, and recorded). */ seed?: number };

/** An A/B invocation of `hintlab bench`: both sides, and one design with what it reads. */
export type InterleavedRequest = SidesRequest & DesignRequest;

export type InterleavedResult =
  | { state: 'complete'; runs: [RunWithRounds, RunWithRounds]; warnings: EnvWarning[]; design: DesignKind; designText: string; notes: string[] }
  | { state: 'failed'; runs: [RunWithRounds, RunWithRounds]; reason: string };

/** One side's run, created before the first probe process. */
export interface SideRun extends OpenedRun {
  name: SideName;
  side: Side;
  session: ProbeSession;
}

/** What a paired design runs with. */
export interface PairedRun {
  req: InterleavedRequest;
  deps: BenchDeps;
  budget: PairedBudget;
  sides: [SideRun, SideRun];
  files: FileSwitches;
  ending: () => EnvironmentPatch;
}

/** What the design adds to each run's interleave record: its name and its facts (a duet's CPUs, an alternation's seed...). */
export type DesignRecord = Pick<InterleaveRecord, 'design' | 'cpus' | 'swapEvery' | 'blockRounds' | 'seed' | 'processes' | 'cpu' | 'pairsPerProcess' | 'processesPerRun'> & { design: DesignKind };

/** What the stored run records about the switch: its own side and the other. */
export function switchRecord(name: SideName, req: InterleavedRequest, files: PreparedSwitch[], order: string, design: DesignRecord): InterleaveRecord & { files: NonNullable<InterleaveRecord['files']> } {
  return {
    side: name,
    order,
    labels: { A: req.a.label, B: req.b.label },
    injectSeccomp: { A: req.a.injectSeccomp, B: req.b.injectSeccomp },
    ...(req.a.injectWork || req.b.injectWork ? { injectWork: { A: req.a.injectWork ?? null, B: req.b.injectWork ?? null }, workBase: WORK_BASE } : {}),
    ...(req.workCalibration ? { workCalibration: req.workCalibration } : {}),
    clock: req.clock ?? 'wall',
    files: files.map((f) => ({ path: f.path, original: f.original.trim(), A: f.valueA.trim(), B: f.valueB.trim(), wrote: (name === 'A' ? f.valueA : f.valueB).trim() })),
    ...design,
  };
}

/** `getppid:412 select-1000:9` or null, for the environment (compare shows it as an expected difference). */
export function workText(work: Record<string, number> | undefined): string | null {
  const parts = Object.entries(work ?? {}).map(([p, n]) => `${p}:${n}`);
  return parts.length ? parts.join(' ') : null;
}

export interface SidesStart {
  req: InterleavedRequest;
  deps: BenchDeps;
  env: HostEnvironment | RemoteEnvironment;
  plan: CpuPlan;
  files: PreparedSwitch[];
  order: string;
  design: DesignRecord;
  /** Probe processes per side, as recorded in params (the processes design's count; paired designs: blocks, updated at the end). */
  processes: number;
  progress: () => void;
}

/** Create one side's run and its line session. */
export function startSide(name: SideName, s: SidesStart): SideRun {
  const side = name === 'A' ? s.req.a : s.req.b;
  const interleave = switchRecord(name, s.req, s.files, s.order, s.design);
  const environment = { ...s.env, injectSeccomp: side.injectSeccomp, switchFiles: interleave.files.map((f) => `${f.path}=${f.wrote}`).join(' ') || null, injectWork: workText(side.injectWork) };
  const { runId, session } = startProbeRun(
    s.deps.store,
    {
      label: side.label,
      kind: 'bench',
      unit: 'ns/call',
      replicateUnit: 'process',
      command: s.req.command,
      hintlabVersion: s.req.hintlabVersion,
      params: runParams(s.req, s.plan, { processes: s.processes, clock: interleave.clock, interleave, ...invocationExtra(s.req) }),
      environment,
    },
    { ...probeRunShape(s.req), processes: s.processes },
    s.progress,
  );
  return { name, side, runId, session };
}

/** Both runs, A first (compare recognises partners by consecutive ids). */
export function startSides(s: SidesStart): [SideRun, SideRun] {
  const a = startSide('A', s);
  return [a, startSide('B', s)];
}

/** One reading of the load at the end, shared by both sides. */
export function sharedEnding(env: HostEnvironment | RemoteEnvironment, deps: BenchDeps): { ending: () => EnvironmentPatch; final: () => HostEnvironment | RemoteEnvironment } {
  let finalEnv: HostEnvironment | RemoteEnvironment | null = null;
  const final = () => (finalEnv ??= finishEnvironment(env, deps.reader));
  return { ending: () => ({ load: final().load, warnings: final().warnings }), final };
}

/** The probe arguments of the request's clock (runInterleaved resolves the default before any probe starts). */
export function clockArgs(req: { clock?: RoundClock | null }): string[] {
  return clockFlags(req.clock ?? 'wall');
}
