/**
 * `hintlab bench` with a B side: one invocation measures A and B where they
 * differ by something switchable at run time (a seccomp filter in the probe,
 * values written to files), alternating probe processes A, B, B, A, A, B, ...
 * so that linear drift of the machine hits both sides alike. It stores two
 * runs that `compare` and `report` read like any other; each probe process
 * is one unit of its run.
 *
 * Invariant: every switched file holds its original value again when this
 * returns or throws (and a watchdog restores it if the process dies).
 */
import { invocationExtra, type RunWithRounds } from '../model.ts';
import { drive, type DriverSegment, type DrivenRun, type DriveStop, type OpenedRun } from '../target/driver.ts';
import { finishEnvironment } from '../environment/host.ts';
import type { EnvWarning, HostEnvironment, RemoteEnvironment } from '../environment/record.ts';
import { probeArgs, probeRunShape, runParams, splitRounds, type CpuPlan } from './probe-run.ts';
import { BenchRequestError, benchStart, checkOps, interruptedBetween, type BenchDeps, type BenchRequest } from './runner.ts';
import { startProbeRun, type ProbeSession } from './session.ts';
import { FileSwitches, type FileSwitchSpec, type PreparedSwitch, type SwitchOptions } from './switch-file.ts';

export type SideName = 'A' | 'B';

/** What one side runs with. */
export interface Side {
  label: string;
  /** Instructions of the calibration seccomp filter; null = none. */
  injectSeccomp: number | null;
}

export interface InterleavedRequest extends Omit<BenchRequest, 'label' | 'injectSeccomp'> {
  a: Side;
  b: Side;
  /** Files written with B's value before each B process and A's before each A process. */
  files: FileSwitchSpec[];
  /** --force, --wait and where notes about other runs' locks go. */
  switchOptions?: Omit<SwitchOptions, 'signal'>;
}

export type InterleavedResult =
  | { state: 'complete'; runs: [RunWithRounds, RunWithRounds]; warnings: EnvWarning[] }
  | { state: 'failed'; runs: [RunWithRounds, RunWithRounds]; reason: string };

/**
 * The side of each probe process: A B B A repeated, `perSide` processes per
 * side. Under a linear drift, every ABBA block gives both sides the same
 * mean position.
 */
export function abbaOrder(perSide: number): SideName[] {
  return Array.from({ length: 2 * perSide }, (_, i) => ('ABBA'[i % 4] as SideName));
}

/** One side's run, created before the first probe process. */
interface SideRun extends OpenedRun {
  name: SideName;
  side: Side;
  session: ProbeSession;
}

/** What the stored run records about the switch: its own side and the other. */
function switchRecord(name: SideName, req: InterleavedRequest, files: PreparedSwitch[], order: SideName[]) {
  return {
    side: name,
    order: order.join(''),
    labels: { A: req.a.label, B: req.b.label },
    injectSeccomp: { A: req.a.injectSeccomp, B: req.b.injectSeccomp },
    files: files.map((f) => ({ path: f.path, original: f.original.trim(), A: f.valueA.trim(), B: f.valueB.trim(), wrote: (name === 'A' ? f.valueA : f.valueB).trim() })),
  };
}

function startSide(name: SideName, req: InterleavedRequest, deps: BenchDeps, env: HostEnvironment | RemoteEnvironment, plan: CpuPlan, files: PreparedSwitch[], order: SideName[], progress: () => void): SideRun {
  const side = name === 'A' ? req.a : req.b;
  const interleave = switchRecord(name, req, files, order);
  const { runId, session } = startProbeRun(
    deps.store,
    {
      label: side.label,
      kind: 'bench',
      unit: 'ns/call',
      replicateUnit: 'process',
      command: req.command,
      hintlabVersion: req.hintlabVersion,
      params: runParams(req, plan, { processes: splitRounds(req.rounds, req.processes).length, interleave, ...invocationExtra(req) }),
      environment: { ...env, injectSeccomp: side.injectSeccomp, switchFiles: interleave.files.map((f) => `${f.path}=${f.wrote}`).join(' ') || null } as unknown as Record<string, unknown>,
    },
    probeRunShape(req),
    progress,
  );
  return { name, side, runId, session };
}

/** The probe processes in ABBA order: each switches the files to its side, then runs its share of rounds. */
function segments(sides: SideRun[], order: SideName[], req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan, files: FileSwitches): DriverSegment[] {
  const shares = splitRounds(req.rounds, req.processes);
  const next = { A: 0, B: 0 };
  return order.map((name) => {
    const s = sides[name === 'A' ? 0 : 1]!;
    const rounds = shares[next[name]++]!;
    return {
      run: name === 'A' ? 0 : 1,
      target: deps.target,
      what: 'the probe',
      job: { program: 'probe', args: probeArgs({ ...req, rounds, injectSeccomp: s.side.injectSeccomp }, plan) },
      begin: () => {
        files.set(name);
        s.session.startSegment(rounds);
      },
    };
  });
}

/** Run A and B interleaved; both runs are stored, and both fail together. */
export async function runInterleaved(req: InterleavedRequest, deps: BenchDeps): Promise<InterleavedResult> {
  if (req.a.label === req.b.label) throw new BenchRequestError(`A and B need different labels (both are '${req.a.label}'); pass --label and --label-b`);
  const { env, plan } = benchStart(req, deps, null);
  await checkOps({ ...req, injectSeccomp: null }, plan, deps);
  const order = abbaOrder(splitRounds(req.rounds, req.processes).length);
  const files = await FileSwitches.prepare(req.files, { ...req.switchOptions, signal: deps.abort });
  let total = 0;
  const sideTotal = req.profiles.length * (req.warmups * splitRounds(req.rounds, req.processes).length + req.rounds);
  const progress = (): void => deps.onProgress?.(++total, 2 * sideTotal, 'A and B');
  let finalEnv: HostEnvironment | RemoteEnvironment | null = null;
  // one reading of the load at the end, for both sides
  const ending = (): Record<string, unknown> => {
    finalEnv ??= finishEnvironment(env, deps.reader);
    return { load: finalEnv.load, warnings: finalEnv.warnings };
  };
  let sides: SideRun[] = [];
  let stop: DriveStop | null;
  try {
    sides = [startSide('A', req, deps, env, plan, files.switches, order, progress), startSide('B', req, deps, env, plan, files.switches, order, progress)];
    const runs: DrivenRun[] = sides.map((s) => ({ open: () => s, createdBefore: true, finalEnvironment: ending }));
    const partner = (st: DriveStop): string =>
      st.kind === 'failed' ? `stopped with its interleaved partner ${sides[st.run]!.name} (run #${st.runId}): ${st.reason}` : interruptedBetween(deps.abort);
    ({ stop } = await drive({
      store: deps.store,
      abort: deps.abort ?? new AbortController().signal,
      runs,
      segments: segments(sides, order, req, deps, plan, files),
      stopOnFailure: true,
      together: true,
      interruptedBefore: () => interruptedBetween(deps.abort),
      stoppedReason: partner,
    }));
  } finally {
    await files.restore();
  }
  const runs: [RunWithRounds, RunWithRounds] = [deps.store.getRun(sides[0]!.runId), deps.store.getRun(sides[1]!.runId)];
  if (stop?.kind === 'failed') return { state: 'failed', runs, reason: `${sides[stop.run]!.name} ('${sides[stop.run]!.side.label}'): ${stop.reason}` };
  return { state: 'complete', runs, warnings: (finalEnv ?? finishEnvironment(env, deps.reader)).warnings };
}
