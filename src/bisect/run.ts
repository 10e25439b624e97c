/**
 * `hintlab bisect` as a library call: from a git tree and two refs to the
 * first bad commit, in the order `git bisect run` would go, with a kernel
 * build and a boot under -icount as the test of each commit:
 *
 *   1. the first-parent line from good to bad (./git-log.ts), refused when
 *      good is not on it;
 *   2. the determinism check: good and bad booted twice each; both repeat
 *      exactly: one boot per step decides, else STATISTICAL_BOOTS per step
 *      (./mode.ts); endpoints that do not differ are refused before any
 *      commit between them is built;
 *   3. the search (./search.ts), each step built and booted by the lab
 *      (./lab.ts behind the BisectLab interface), a commit that does not
 *      build or boot skipped;
 *   4. with --cost, the culprit's per-function counts against its parent's.
 *
 * Every commit's boots are stored as a step of a trial record (the trials
 * table), keyed by the commit and what a step measures, so a rerun reuses
 * them and only boots what is missing; a stored skip is tried again unless
 * `resume` is set. The user's checkout is never touched: the lab exports
 * commits with `git archive` into its own build area.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { DEFAULT_OPTIONS } from '../compare/compare.ts';
import { UserError } from '../errors.ts';
import { formatNumber } from '../format/numbers.ts';
import { refuseNested } from '../kernel/owned-dir.ts';
import { takePidLock } from '../store/owner.ts';
import type { Store } from '../store/store.ts';
import { culpritFunctions } from './cost.ts';
import type { BisectDocument, BisectMetric, BisectStep, BootValue, BuildState } from './document.ts';
import { BISECT_FORMAT, BISECT_SCHEMA } from './document.ts';
import { firstParentLine } from './git-log.ts';
import { isMerge } from '../kernel/git.ts';
import { CHECK_BOOTS, checkEndpoints, chooseMode, stepValue, type BisectMode } from './mode.ts';
import { bisectCommits, sideOf, type Commit, type Endpoints, type TestOutcome } from './search.ts';

/** What the lab gave for one commit: each boot's value, or why the commit is skipped. */
export type LabMeasurement = { state: 'measured'; boots: BootValue[]; build: BuildState } | { state: 'skip'; reason: string };

/** Build and boot behind one interface: the real one builds kernels and boots qemu (./lab.ts), tests script it. */
export interface BisectLab {
  /** Build `commit` (from a built neighbour in `history` where it can) and boot it `boots` times. */
  measure(commit: Commit, boots: number, history: readonly Commit[]): Promise<LabMeasurement>;
  /** Remove what the lab exported for the builds (the builds themselves stay for a rerun), and close the boot site it opened. */
  close(): void | Promise<void>;
}

export interface BisectRequest {
  /** The user's git tree (absolute); only ever read. */
  src: string;
  good: string;
  bad: string;
  /** hintlab's build area for this tree: the lock and the builds live there. */
  out: string;
  metric: BisectMetric;
  /** What else decides a step's value (config, -O, probe build, cost model): part of every step's key. */
  keyInputs: Record<string, unknown>;
  /** Reuse stored skips too instead of trying those commits again. */
  resume: boolean;
  /**
   * Where the boots run: `--target`'s address without its token
   * (`lava://lab/qemu`), null for qemu on this machine. Part of every step's
   * key and stored with the step: a lab's qemu device boots with its own CPU
   * model and kernel command line, so its counts are not this machine's.
   */
  target: string | null;
  command: string;
}

/** A line of progress, said as it happens. */
export type BisectEvent =
  | { kind: 'range'; commits: number; good: Commit; bad: Commit }
  | { kind: 'mode'; mode: BisectMode }
  | { kind: 'step'; step: BisectStep };

export interface BisectDeps {
  store: Store;
  lab: BisectLab;
  onEvent?(event: BisectEvent): void;
}

/** A step as stored; `target` says where it booted (absent or null: qemu here). */
type Stored = ({ state: 'measured'; boots: BootValue[] } | { state: 'skip'; reason: string }) & { target?: string | null };

function isStored(v: unknown): v is Stored {
  const s = v as { state?: unknown; boots?: unknown; reason?: unknown } | null;
  return s !== null && typeof s === 'object' && ((s.state === 'measured' && Array.isArray(s.boots)) || (s.state === 'skip' && typeof s.reason === 'string'));
}

/** Measures commits through the lab, storing each and reusing what is stored. */
class Steps {
  private index = 0;
  readonly tested = new Map<string, BisectStep>();
  constructor(
    private readonly req: BisectRequest,
    private readonly deps: BisectDeps,
    private readonly trialId: number,
    private readonly history: readonly Commit[],
  ) {}

  private key(commit: Commit): string {
    // a step booted on a lab has its own key; qemu here adds nothing, so steps stored without a target still match
    const target = this.req.target === null ? {} : { target: this.req.target };
    return createHash('sha256').update(JSON.stringify({ schema: 1, commit: commit.hash, metric: this.req.metric, ...this.req.keyInputs, ...target })).digest('hex');
  }

  /** At least `boots` boots of `commit`, stored ones first; a skip says why. */
  async measure(commit: Commit, boots: number): Promise<{ m: LabMeasurement; reused: boolean; seconds: number }> {
    const name = `bisect ${commit.hash}`;
    const key = this.key(commit);
    const found = this.deps.store.trials.findResult(name, key);
    const stored = found && isStored(found.result) ? found.result : null;
    const have = stored?.state === 'measured' ? stored.boots : [];
    if (stored?.state === 'measured' && have.length >= boots) return { m: { state: 'measured', boots: have, build: 'reused' }, reused: true, seconds: 0 };
    if (stored?.state === 'skip' && this.req.resume) return { m: stored, reused: true, seconds: 0 };
    const { store } = this.deps;
    store.trials.stepStarted(this.trialId, name, this.index++);
    const started = Date.now();
    const seconds = (): number => Math.round((Date.now() - started) / 100) / 10;
    let m: LabMeasurement;
    try {
      m = await this.deps.lab.measure(commit, boots - have.length, this.history);
    } catch (err) {
      store.trials.stepFinished(this.trialId, name, { key, state: 'failed', result: undefined, seconds: seconds(), error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
    const all: LabMeasurement = m.state === 'measured' ? { ...m, boots: [...have, ...m.boots] } : m;
    const target = this.req.target;
    const result: Stored = all.state === 'measured' ? { state: 'measured', boots: all.boots, target } : { state: 'skip', reason: all.reason, target };
    store.trials.stepFinished(this.trialId, name, { key, state: 'done', result, seconds: seconds(), error: null });
    return { m: all, reused: false, seconds: seconds() };
  }

  /** Record a tested commit and say it. */
  note(step: BisectStep): BisectStep {
    this.tested.set(step.commit.hash, step);
    this.deps.onEvent?.({ kind: 'step', step });
    return step;
  }
}

interface Measured {
  boots: BootValue[];
  build: BuildState;
  reused: boolean;
  seconds: number;
}

/** Boots of an endpoint; one that does not build or boot ends the bisect, naming the flag. */
async function endpoint(steps: Steps, commit: Commit, role: 'good' | 'bad', ref: string, boots: number, before?: Measured): Promise<Measured> {
  const r = await steps.measure(commit, boots);
  if (r.m.state === 'skip') throw new UserError(`--${role} ${ref} (${commit.hash.slice(0, 12)} ${commit.subject}) cannot be measured: ${r.m.reason}; give a ${role} commit that builds and boots`, 2);
  // topped up: the build is the one the check boots had
  if (before) return { boots: r.m.boots, build: before.build, reused: before.reused && r.reused, seconds: before.seconds + r.seconds };
  return { boots: r.m.boots, build: r.m.build, reused: r.reused, seconds: r.seconds };
}

function endpointStep(commit: Commit, role: 'good' | 'bad', m: Measured): BisectStep {
  return { commit, role, state: 'measured', boots: m.boots, value: stepValue(m.boots.map((b) => b.value)), side: role, reused: m.reused, build: m.build, seconds: m.seconds };
}

/** Determinism check, endpoints' boots topped up for the mode, and the refusal when they do not differ. */
async function checkRange(steps: Steps, req: BisectRequest, good: Commit, bad: Commit): Promise<{ mode: BisectMode; ends: Endpoints; endSteps: BisectStep[] }> {
  let g = await endpoint(steps, good, 'good', req.good, CHECK_BOOTS);
  let b = await endpoint(steps, bad, 'bad', req.bad, CHECK_BOOTS);
  const mode = chooseMode(g.boots.slice(0, CHECK_BOOTS).map((x) => x.value), b.boots.slice(0, CHECK_BOOTS).map((x) => x.value));
  if (mode.kind === 'statistical') {
    g = await endpoint(steps, good, 'good', req.good, mode.bootsPerStep, g);
    b = await endpoint(steps, bad, 'bad', req.bad, mode.bootsPerStep, b);
  }
  // a stressor's rate needs a change beyond compare's default noise threshold (DEFAULT_OPTIONS.thresholdPct)
  const minPct = req.metric.name === 'icount-bogo-ops/s' ? DEFAULT_OPTIONS.thresholdPct : 0;
  const check = checkEndpoints(mode, g.boots.map((x) => x.value), b.boots.map((x) => x.value), minPct);
  if (!check.differ) {
    throw new UserError(
      `nothing to bisect: --good ${req.good} (${formatNumber(check.good)}) and --bad ${req.bad} (${formatNumber(check.bad)}) do not differ in ${req.metric.name} of ${req.metric.subject} (${mode.kind} mode: ${check.why}); ` +
        'pick a bad commit that shows the change, or another --profile, --stressor or --metric',
      1,
    );
  }
  return { mode, ends: { good: check.good, bad: check.bad }, endSteps: [endpointStep(good, 'good', g), endpointStep(bad, 'bad', b)] };
}

/** The test callback of the search: a step's value, or its skip, each stored and said. */
function stepTest(steps: Steps, mode: BisectMode, ends: Endpoints): (c: Commit) => Promise<TestOutcome> {
  return async (commit) => {
    const r = await steps.measure(commit, mode.bootsPerStep);
    if (r.m.state === 'skip') {
      steps.note({ commit, role: 'step', state: 'skip', reason: r.m.reason, reused: r.reused, seconds: r.seconds });
      return { state: 'skip', reason: r.m.reason };
    }
    const boots = r.m.boots.slice(0, mode.bootsPerStep);
    const value = stepValue(boots.map((b) => b.value));
    steps.note({ commit, role: 'step', state: 'measured', boots, value, side: sideOf(value, ends), reused: r.reused, build: r.m.build, seconds: r.seconds });
    return { state: 'measured', value };
  };
}

function lock(out: string): () => void {
  mkdirSync(out, { recursive: true });
  const taken = takePidLock(join(out, 'lock'));
  if ('heldBy' in taken) throw new UserError(`${out} is in use by hintlab process ${taken.heldBy} (another bisect or trial of this tree); wait for it`, 2);
  return taken.release;
}

async function search(req: BisectRequest, deps: BisectDeps, trialId: number, started: number): Promise<BisectDocument> {
  const history = firstParentLine(req.src, req.good, req.bad);
  const good = history[0]!;
  const bad = history[history.length - 1]!;
  deps.onEvent?.({ kind: 'range', commits: history.length, good, bad });
  const steps = new Steps(req, deps, trialId, history);
  const { mode, ends, endSteps } = await checkRange(steps, req, good, bad);
  deps.onEvent?.({ kind: 'mode', mode });
  for (const s of endSteps) steps.note(s);
  const result = await bisectCommits(history, ends, stepTest(steps, mode, ends));
  const all = [...steps.tested.values()];
  const firstBad = result.outcome.state === 'found' ? result.outcome.firstBad : null;
  const parentStep = steps.tested.get(result.outcome.lastGood.hash);
  const culpritStep = firstBad ? steps.tested.get(firstBad.hash) : undefined;
  return {
    format: BISECT_FORMAT,
    schema: BISECT_SCHEMA,
    src: req.src,
    target: req.target,
    refs: { good: req.good, bad: req.bad },
    good,
    bad,
    metric: req.metric,
    mode,
    commits: history.length,
    steps: all,
    outcome: result.outcome,
    culpritIsMerge: firstBad ? isMerge(req.src, firstBad.hash) : false,
    builds: all.filter((s) => s.state === 'measured' && !s.reused && s.build !== 'reused').length,
    functions: req.metric.costModel && parentStep && culpritStep ? culpritFunctions(deps.store, parentStep, culpritStep) : null,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

/** Run a bisect: every commit tested is stored; returns the document. */
export async function runBisect(req: BisectRequest, deps: BisectDeps): Promise<BisectDocument> {
  const started = Date.now();
  firstParentLine(req.src, req.good, req.bad); // a bad ref or range is said before anything is created
  // the build area inside the user's tree would be untracked files in their checkout
  refuseNested({ flag: '--src', path: req.src }, { flag: '--out', path: req.out }, 'put the build area outside the git tree (its checkout is never written to)');
  const unlock = lock(req.out);
  const trialId = deps.store.trials.create({ outDir: req.out, request: { kind: 'bisect', ...req }, command: req.command });
  try {
    const doc = await search(req, deps, trialId, started);
    deps.store.trials.finish(trialId, 'complete', null);
    return doc;
  } catch (err) {
    deps.store.trials.finish(trialId, 'failed', err instanceof Error ? err.message : String(err));
    throw err;
  } finally {
    try {
      await deps.lab.close();
    } finally {
      unlock();
    }
  }
}
