/**
 * `hintlab macro`: check the request against the installed stress-ng,
 * record the environment, then run the interleaved plan one stress-ng
 * invocation at a time, committing each round as soon as its YAML is read.
 *
 * A failing invocation ends the run: the round is not stored, the run is
 * marked failed with stress-ng's own message, and the rounds committed
 * before it stay as they are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invocationExtra, type RunInvocation, type RunParams, type RunWithRounds } from '../model.ts';
import { type Store, StoreError } from '../store/store.ts';
import type { ProbeBuild } from '../bench/build.ts';
import { collectEnvironment, finishEnvironment } from '../environment/host.ts';
import type { SysReader } from '../environment/reader.ts';
import type { EnvWarning, HostEnvironment } from '../environment/record.ts';
import { stressNgArgs, type Invocation, type StressNgExecutor } from './executor.ts';
import { invocationFailure, withStderr } from './failure.ts';
import { macroRound } from './metrics.ts';
import { buildPlan, parseInstances, resolveInstances, usableCpus, type PlanItem } from './plan.ts';
import { parseStressNgVersion, parseStressorList, selectStressors, type UnavailableStressor } from './stressors.ts';
import { readStressNgYaml, StressNgYamlError } from './yaml.ts';

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
  environment: HostEnvironment;
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
  const environment: HostEnvironment = { ...env0, pinnedCpu: cpus.length === 1 ? cpus[0]! : null };
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
    const args = stressNgArgs(invocation(plan, item, 'FILE', '.')).join(' ');
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

function invocation(plan: MacroPlan, item: PlanItem, yamlPath: string, cwd: string): Invocation {
  return { stressor: item.stressor, instances: item.instances, seconds: plan.req.seconds, cpuList: plan.req.cpuList, yamlPath, cwd };
}

/** The environment as stored: the host record without the (absent) probe, plus stress-ng's version. */
function storedEnvironment(env: HostEnvironment, version: string, unclassified: string[]): Record<string, unknown> {
  const { probe: _probe, ...rest } = env;
  const stressNg = unclassified.length > 0 ? { version, unclassifiedMetrics: unclassified } : { version };
  return { ...rest, stressNg };
}

type Step = { kind: 'stored'; unclassified: string[] } | { kind: 'failed'; reason: string } | { kind: 'aborted' };

/** What every invocation of one run shares. */
interface RunContext {
  plan: MacroPlan;
  deps: MacroDeps;
  runId: number;
  abort: AbortSignal;
  sleep: (ms: number, abort: AbortSignal) => Promise<void>;
  workDir: string;
}

async function runItem(ctx: RunContext, item: PlanItem): Promise<Step> {
  const { plan, deps, abort, workDir } = ctx;
  const yamlPath = join(workDir, `round-${item.seq}.yaml`);
  const where = `${item.subject} repeat ${item.repeat + 1}/${plan.req.repeats}`;
  const result = await deps.executor.run(invocation(plan, item, yamlPath, workDir), abort);
  if (result.kind === 'aborted' || abort.aborted) return { kind: 'aborted' };
  const failure = invocationFailure(result);
  if (failure !== null) return { kind: 'failed', reason: `${where}: ${failure}` };
  try {
    const metrics = readStressNgYaml(yamlPath, item.stressor);
    if (metrics.bogoOps === 0 || metrics.bogoOpsPerSecRealTime === 0) {
      return { kind: 'failed', reason: withStderr(`${where}: ${yamlPath}: stress-ng reported 0 bogo ops (the stressor did no work)`, result.stderr) };
    }
    const { round, unclassified } = macroRound(metrics, { seq: item.seq, subject: item.subject, repeat: item.repeat });
    deps.store.addRound(ctx.runId, round);
    return { kind: 'stored', unclassified };
  } catch (err) {
    if (err instanceof StressNgYamlError) return { kind: 'failed', reason: withStderr(`${where}: ${err.message}`, result.stderr) };
    throw err;
  } finally {
    rmSync(yamlPath, { force: true });
  }
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

/** Run the plan; every round is committed as soon as it is measured. */
export async function runMacro(plan: MacroPlan, deps: MacroDeps): Promise<MacroResult> {
  const { store } = deps;
  const abort = deps.abort ?? new AbortController().signal;
  const sleep = deps.sleep ?? defaultSleep;
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
  const workDir = mkdtempSync(join(tmpdir(), 'hintlab-macro-'));
  const unclassified = new Set<string>();
  let outcome: { state: 'complete' } | { state: 'failed' | 'interrupted'; reason: string } = { state: 'complete' };
  let storeFailure: StoreError | null = null;
  try {
    outcome = await runItems({ plan, deps, runId, abort, sleep, workDir }, unclassified);
  } catch (err) {
    if (err instanceof StoreError) storeFailure = err;
    else outcome = { state: 'failed', reason: `cannot run stress-ng: ${(err as Error).message}` };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  // disk full (or an I/O error) while storing a round: stop here, keep what was committed
  if (storeFailure) store.abandonRun(runId, storeFailure);
  const finalEnv = finishEnvironment(plan.environment, deps.reader);
  store.updateEnvironment(runId, storedEnvironment(finalEnv, plan.stressNgVersion, [...unclassified]));
  if (outcome.state !== 'complete') {
    store.finishRun(runId, 'failed', outcome.reason);
    return { state: outcome.state, run: store.getRun(runId), reason: outcome.reason };
  }
  store.finishRun(runId, 'complete');
  return { state: 'complete', run: store.getRun(runId), warnings: finalEnv.warnings, unclassifiedMetrics: [...unclassified] };
}

async function runItems(
  ctx: RunContext,
  unclassified: Set<string>,
): Promise<{ state: 'complete' } | { state: 'failed' | 'interrupted'; reason: string }> {
  const { plan, deps, abort } = ctx;
  const { items, req } = plan;
  const perItem = req.seconds + req.cooldownSeconds;
  const interrupted = (item: PlanItem, done: number) => ({
    state: 'interrupted' as const,
    reason: `interrupted during ${item.subject} repeat ${item.repeat + 1}/${req.repeats}; ${done} of ${items.length} rounds stored, the run is incomplete`,
  });
  for (const [done, item] of items.entries()) {
    if (abort.aborted) return interrupted(item, done);
    const left = items.length - done - 1;
    const progress = { item, done, total: items.length, repeats: req.repeats };
    deps.onProgress?.({ ...progress, phase: 'running', phaseSeconds: req.seconds, secondsAfterPhase: left * perItem });
    const step = await runItem(ctx, item);
    if (step.kind === 'aborted') return interrupted(item, done);
    if (step.kind === 'failed') return { state: 'failed', reason: step.reason };
    for (const name of step.unclassified) unclassified.add(name);
    if (left > 0 && req.cooldownSeconds > 0) {
      deps.onProgress?.({ ...progress, done: done + 1, phase: 'cooldown', phaseSeconds: req.cooldownSeconds, secondsAfterPhase: left * perItem - req.cooldownSeconds });
      await ctx.sleep(req.cooldownSeconds * 1000, abort);
    }
  }
  return { state: 'complete' };
}
