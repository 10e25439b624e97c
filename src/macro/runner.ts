/**
 * `hintlab macro`: check the request against the installed stress-ng,
 * record the environment, then run the interleaved plan one stress-ng
 * invocation at a time, committing each round as soon as its YAML is read.
 *
 * A failing invocation ends the run: the round is not stored, the run is
 * marked failed with stress-ng's own message, and the rounds committed
 * before it stay as they are.
 */
import type { RunParams, RunWithRounds } from '../model.ts';
import { invocationExtra, type RunInvocation } from '../run-record.ts';
import type { Store } from '../store/store.ts';
import type { ProbeBuild } from '../launch/probe-build.ts';
import { collectEnvironment, finishEnvironment } from '../environment/host.ts';
import type { EnvWarning, HostEnvironment, RemoteEnvironment } from '../environment/record.ts';
import type { SysReader } from '../environment/reader.ts';
import { drive, type DriverSegment } from '../targets/driver.ts';
import { placedEnvironment } from '../targets/target.ts';
import { stressNgArgs, stressNgJob, type Invocation, type StressNgExecutor } from './executor.ts';
import { buildPlan, parseInstances, resolveInstances, usableCpus, type PlanItem } from './plan.ts';
import { MacroHostSession } from './session.ts';
import { parseStressNgVersion, parseStressorList, selectStressors, type UnavailableStressor } from './stressors.ts';

export interface MacroRequest {
  /** Stressors named with --stressor. */
  stressors: string[];
  /** Sets named with --set. */
  sets: string[];
  /** --instances text, e.g. `1,all`. */
  instances: string;
  seconds: number;
  cooldownSeconds: number;
  repeats: number;
  /** --cpu LIST, or null for every allowed CPU. */
  cpuList: string | null;
  label: string | null;
  command: string;
  /** The arguments as typed and the working directory, stored as params.extra.invocation. */
  invocation?: RunInvocation;
  hintlabVersion: string;
}

/** A request checked against this machine and its stress-ng, ready to run. */
export interface MacroPlan {
  req: MacroRequest;
  stressNgVersion: string;
  stressors: string[];
  unavailable: UnavailableStressor[];
  instances: number[];
  items: PlanItem[];
  /** This machine's, or the box's when stress-ng runs over ssh. */
  environment: HostEnvironment | RemoteEnvironment;
  /** Planned duration of the whole run, cool-downs included. */
  plannedSeconds: number;
}

/** Where the run is, for a progress display. */
export interface MacroProgress {
  item: PlanItem;
  done: number;
  total: number;
  repeats: number;
  phase: 'running' | 'cooldown';
  /** Seconds the plan still needs after the current phase ends. */
  secondsAfterPhase: number;
  phaseSeconds: number;
}

export interface MacroDeps {
  store: Store;
  executor: StressNgExecutor;
  reader?: SysReader;
  abort?: AbortSignal;
  /** Cool-down wait; resolves early when `abort` fires. */
  sleep?: (ms: number, abort: AbortSignal) => Promise<void>;
  onProgress?: (p: MacroProgress) => void;
}

export type MacroResult =
  | { state: 'complete'; run: RunWithRounds; warnings: EnvWarning[]; unclassifiedMetrics: string[] }
  | { state: 'failed'; run: RunWithRounds; reason: string }
  | { state: 'interrupted'; run: RunWithRounds; reason: string };

/** A request that cannot run here (bad flag value, stressor missing, stress-ng not understood). */
export class MacroRequestError extends Error {}

/** stress-ng's environment record has no probe; collectEnvironment wants one, and it is dropped again. */
const NO_PROBE: ProbeBuild = { path: '', static: false, buildId: '', compiler: '', compilerVersion: '', flags: [] };

/** Check the request and build the plan; nothing is stored yet. */
export async function prepareMacro(req: MacroRequest, executor: StressNgExecutor, reader?: SysReader): Promise<MacroPlan> {
  if (!Number.isInteger(req.seconds) || req.seconds < 1) throw new MacroRequestError(`--seconds ${req.seconds}: give a whole number of seconds, at least 1`);
  if (!Number.isInteger(req.repeats) || req.repeats < 1) throw new MacroRequestError(`--repeats ${req.repeats}: give a whole number, at least 1`);
  if (!(req.cooldownSeconds >= 0)) throw new MacroRequestError(`--cooldown ${req.cooldownSeconds}: give a number of seconds, 0 or more`);
  const version = parseStressNgVersion(await executor.version());
  const selection = selectStressors(req, { version, stressors: parseStressorList(await executor.stressors()) });
  const env0 = collectEnvironment({ probe: NO_PROBE, pinnedCpu: null, injectSeccomp: null, reader });
  if (!env0.cpu.allowed.known) throw new MacroRequestError(`cannot read the allowed CPUs: ${env0.cpu.allowed.reason}`);
  const cpus = usableCpus(env0.cpu.allowed.value, req.cpuList);
  const instances = resolveInstances(parseInstances(req.instances), cpus.length);
  const items = buildPlan(selection.available, instances, req.repeats);
  const environment = placedEnvironment({ ...env0, pinnedCpu: cpus.length === 1 ? cpus[0]! : null }, executor.target);
  const plannedSeconds = items.length * (req.seconds + req.cooldownSeconds) - req.cooldownSeconds;
  return {
    req,
    stressNgVersion: version,
    stressors: selection.available,
    unavailable: selection.unavailable,
    instances,
    items,
    environment,
    plannedSeconds,
  };
}

function runParams(plan: MacroPlan): RunParams {
  const { req } = plan;
  const subjectParams: RunParams['subjectParams'] = {};
  for (const item of plan.items.filter((i) => i.repeat === 0)) {
    const args = stressNgArgs(invocation(plan, item, 'FILE')).join(' ');
    // The version is part of what a subject measures: stress-ng's bogo-op definitions change between releases.
    subjectParams[item.subject] = {
      stressor: item.stressor,
      instances: item.instances,
      seconds: req.seconds,
      cpuList: req.cpuList,
      stressNgVersion: plan.stressNgVersion,
      args,
    };
  }
  return {
    subjects: Object.keys(subjectParams),
    ops: null,
    warmups: 0,
    rounds: req.repeats,
    cpu: plan.environment.pinnedCpu,
    subjectParams,
    extra: {
      seconds: req.seconds,
      cooldownSeconds: req.cooldownSeconds,
      instances: req.instances,
      cpuList: req.cpuList,
      sets: req.sets,
      unavailable: plan.unavailable,
      ...invocationExtra(req),
    },
  };
}

function invocation(plan: MacroPlan, item: PlanItem, yamlPath: string): Invocation {
  return { stressor: item.stressor, instances: item.instances, seconds: plan.req.seconds, cpuList: plan.req.cpuList, yamlPath };
}

/** The YAML file of an invocation, in the target's private working directory. */
const yamlName = (item: PlanItem): string => `round-${item.seq}.yaml`;

/** The environment as stored: the host record without the (absent) probe, plus stress-ng's version. */
function storedEnvironment(env: HostEnvironment | RemoteEnvironment, version: string, unclassified: string[]): HostEnvironment | RemoteEnvironment {
  const { probe: _probe, ...rest } = env;
  const stressNg = unclassified.length > 0 ? { version, unclassifiedMetrics: unclassified } : { version };
  return { ...rest, stressNg };
}

function defaultSleep(ms: number, abort: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      abort.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    abort.addEventListener('abort', done, { once: true });
  });
}

/** Progress of `item`'s phase: how long it lasts and what the plan needs after it. */
function progressOf(plan: MacroPlan, index: number, phase: MacroProgress['phase']): MacroProgress {
  const { items, req } = plan;
  const left = (items.length - index - 1) * (req.seconds + req.cooldownSeconds);
  const base = { item: items[index]!, total: items.length, repeats: req.repeats };
  return phase === 'running'
    ? { ...base, done: index, phase, phaseSeconds: req.seconds, secondsAfterPhase: left }
    : { ...base, done: index + 1, phase, phaseSeconds: req.cooldownSeconds, secondsAfterPhase: left - req.cooldownSeconds };
}

/** One segment per invocation, a cool-down before each but the first. */
function segments(plan: MacroPlan, deps: MacroDeps, session: MacroHostSession, abort: AbortSignal, sleep: NonNullable<MacroDeps['sleep']>): DriverSegment[] {
  const cooldownMs = plan.req.cooldownSeconds * 1000;
  return plan.items.map((item, i) => ({
    run: 0,
    target: deps.executor.target,
    what: 'stress-ng',
    job: stressNgJob(deps.executor.program, invocation(plan, item, yamlName(item))),
    pause:
      i > 0 && cooldownMs > 0
        ? () => {
            deps.onProgress?.(progressOf(plan, i - 1, 'cooldown'));
            return sleep(cooldownMs, abort);
          }
        : undefined,
    begin: () => session.start(item),
  }));
}

/** Run the plan; every round is committed as soon as it is measured. */
export async function runMacro(plan: MacroPlan, deps: MacroDeps): Promise<MacroResult> {
  const { store } = deps;
  const abort = deps.abort ?? new AbortController().signal;
  const runId = store.createRun({
    label: plan.req.label,
    kind: 'macro',
    unit: 'bogo-ops/s',
    replicateUnit: 'invocation',
    command: plan.req.command,
    hintlabVersion: plan.req.hintlabVersion,
    params: runParams(plan),
    environment: storedEnvironment(plan.environment, plan.stressNgVersion, []),
  });
  const session = new MacroHostSession({ store, runId, items: plan.items, repeats: plan.req.repeats, seconds: plan.req.seconds, abort, yamlPath: yamlName });
  let finalEnv = plan.environment;
  const result = await drive({
    store,
    abort,
    runs: [{ open: () => ({ runId, session }), finalEnvironment: () => storedEnvironment((finalEnv = finishEnvironment(plan.environment, deps.reader)), plan.stressNgVersion, [...session.unclassified]) }],
    segments: segments(plan, deps, session, abort, deps.sleep ?? defaultSleep),
    stopOnFailure: true,
    together: true,
    interruptedBefore: (i) => session.interrupted(plan.items[i]!),
    onSegmentStart: (i) => deps.onProgress?.(progressOf(plan, i, 'running')),
  });
  const run = store.getRun(runId);
  if (result.stop?.kind === 'failed') return { state: result.interrupted ? 'interrupted' : 'failed', run, reason: result.stop.reason };
  return { state: 'complete', run, warnings: finalEnv.warnings, unclassifiedMetrics: [...session.unclassified] };
}
