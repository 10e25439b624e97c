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
import { collectEnvironment, finishEnvironment } from '../environment/host.ts';
import type { EnvWarning, HostEnvironment } from '../environment/record.ts';
import { BenchRequestError, planCpus, probeArgs, probeRunShape, runParams, splitRounds, type BenchDeps, type BenchRequest, type CpuPlan } from './runner.ts';
import { startProbeRun, type ProbeSession, type SessionOutcome } from './session.ts';
import { FileSwitches, type FileSwitchSpec, type PreparedSwitch } from './switch-file.ts';

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

interface SideRun {
  name: SideName;
  side: Side;
  runId: number;
  session: ProbeSession;
  /** Measured rounds of each of this side's processes, in order. */
  shares: number[];
  next: number;
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

function startSide(name: SideName, req: InterleavedRequest, deps: BenchDeps, env: HostEnvironment, plan: CpuPlan, files: PreparedSwitch[], order: SideName[], progress: () => void): SideRun {
  const side = name === 'A' ? req.a : req.b;
  const shares = splitRounds(req.rounds, req.processes);
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
      params: runParams(req, plan, { processes: shares.length, interleave, ...invocationExtra(req) }),
      environment: { ...env, injectSeccomp: side.injectSeccomp, switchFiles: interleave.files.map((f) => `${f.path}=${f.wrote}`).join(' ') || null } as unknown as Record<string, unknown>,
    },
    probeRunShape(req),
    progress,
  );
  return { name, side, runId, session, shares, next: 0 };
}

async function runProcess(s: SideRun, req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan): Promise<SessionOutcome> {
  const rounds = s.shares[s.next++]!;
  s.session.startSegment(rounds);
  try {
    const args = probeArgs({ ...req, rounds, label: s.side.label, injectSeccomp: s.side.injectSeccomp }, plan);
    // a round that cannot be stored (disk full) stops the probe too, as in a plain bench
    const abort = deps.abort ? AbortSignal.any([deps.abort, s.session.stopped]) : s.session.stopped;
    const exit = await deps.executor.run(args, (l) => s.session.feed(l), abort);
    return s.session.outcome(exit);
  } catch (err) {
    return { state: 'failed', reason: `cannot run the probe: ${(err as Error).message}` };
  }
}

/** Alternate the sides' probe processes in ABBA order; the first failure stops both. */
async function alternate(sides: Record<SideName, SideRun>, order: SideName[], req: InterleavedRequest, deps: BenchDeps, plan: CpuPlan, files: FileSwitches): Promise<{ side: SideName; reason: string } | null> {
  for (const name of order) {
    const s = sides[name];
    // a signal between two processes would reach no probe: stop here
    if (deps.abort?.aborted) return { side: name, reason: 'interrupted before its next probe process' };
    try {
      files.set(name);
    } catch (err) {
      return { side: name, reason: (err as Error).message };
    }
    const out = await runProcess(s, req, deps, plan);
    if (out.state === 'failed') return { side: name, reason: out.reason };
  }
  return null;
}

/**
 * A round of one side could not be stored (disk full): mark the partner
 * failed if the database still takes it, then end the side's run the way a
 * plain bench does (Store.abandonRun throws the StoreError naming the round).
 */
function abandonOnStoreFailure(sides: Record<SideName, SideRun>, deps: BenchDeps): void {
  const broken = [sides.A, sides.B].find((s) => s.session.storeFailure);
  if (!broken?.session.storeFailure) return;
  const partner = broken === sides.A ? sides.B : sides.A;
  try {
    deps.store.finishRun(partner.runId, 'failed', `stopped with its interleaved partner ${broken.name} (run #${broken.runId}): a round could not be stored`);
  } catch {
    // no space for that either: the partner reads back incomplete, its rounds intact
  }
  deps.store.abandonRun(broken.runId, broken.session.storeFailure);
}

/** Run A and B interleaved; both runs are stored, and both fail together. */
export async function runInterleaved(req: InterleavedRequest, deps: BenchDeps): Promise<InterleavedResult> {
  if (req.a.label === req.b.label) throw new BenchRequestError(`A and B need different labels (both are '${req.a.label}'); pass --label and --label-b`);
  const env0 = collectEnvironment({ probe: deps.probe, pinnedCpu: req.cpu, injectSeccomp: null, reader: deps.reader });
  if (!env0.cpu.allowed.known) throw new BenchRequestError(`cannot read the allowed CPUs: ${env0.cpu.allowed.reason}`);
  const plan = planCpus(env0.cpu.allowed.value, req.cpu, req.profiles);
  const env: HostEnvironment = { ...env0, pinnedCpu: plan.cpu };
  const order = abbaOrder(splitRounds(req.rounds, req.processes).length);
  const files = await FileSwitches.prepare(req.files);
  let total = 0;
  const sideTotal = req.profiles.length * (req.warmups * splitRounds(req.rounds, req.processes).length + req.rounds);
  const progress = (): void => deps.onProgress?.(++total, 2 * sideTotal, 'A and B');
  let failure: { side: SideName; reason: string } | null;
  let sides: Record<SideName, SideRun>;
  try {
    sides = {
      A: startSide('A', req, deps, env, plan, files.switches, order, progress),
      B: startSide('B', req, deps, env, plan, files.switches, order, progress),
    };
    failure = await alternate(sides, order, req, deps, plan, files);
  } finally {
    await files.restore();
  }
  abandonOnStoreFailure(sides, deps);
  const finalEnv = finishEnvironment(env, deps.reader);
  for (const s of [sides.A, sides.B]) {
    deps.store.updateEnvironment(s.runId, { load: finalEnv.load, warnings: finalEnv.warnings });
    if (!failure) deps.store.finishRun(s.runId, 'complete');
    else if (failure.side === s.name) deps.store.finishRun(s.runId, 'failed', failure.reason);
    else deps.store.finishRun(s.runId, 'failed', `stopped with its interleaved partner ${failure.side} (run #${sides[failure.side].runId}): ${failure.reason}`);
  }
  const runs: [RunWithRounds, RunWithRounds] = [deps.store.getRun(sides.A.runId), deps.store.getRun(sides.B.runId)];
  if (failure) return { state: 'failed', runs, reason: `${failure.side} ('${sides[failure.side].side.label}'): ${failure.reason}` };
  return { state: 'complete', runs, warnings: finalEnv.warnings };
}
