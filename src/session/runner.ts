/**
 * A session on a box (`hintlab session`): for each step of the boot order,
 * boot the step's kernel on the box (checked: token and release), run the
 * bench plan there through the one bench runner, and store the step as a
 * run of its own (kind bench, environment remote, one boot = one unit of
 * replication), so that `compare P-A-1,P-A-2 P-B-1,P-B-2` compares boots
 * as units. At the end, and after a failure or Ctrl-C, the box goes back to
 * the kernel it started on ("home", recorded once per session).
 *
 * The session is state in the database (src/store/sessions.ts): every step
 * records what it is doing as it does it, so a session stopped anywhere
 * resumes from its next step; a step caught in the middle (its process
 * killed) has its run marked failed, and is done again.
 *
 * Invariant: when runSession returns, the box is home (checked), or the
 * user asked to keep it where it is (--keep-on-failure), or hintlab could
 * not reach it and says so; in each case the session records where it
 * left the box.
 */
import { randomBytes } from 'node:crypto';
import type { ProbeBuild } from '../launch/probe-build.ts';
import { selectProfiles } from '../bench/profiles.ts';
import { BenchRequestError, runBench, type BenchRequest } from '../bench/runner.ts';
import type { SysReader } from '../environment/reader.ts';
import { UserError } from '../errors.ts';
import type { RunInvocation } from '../run-record.ts';
import type { SessionRecord, StepRecord } from '../store/sessions.ts';
import type { Store } from '../store/store.ts';
import { bootToken, type BoxFacts } from '../targets/box-facts.ts';
import type { HomeKernel } from '../targets/ssh-box.ts';
import type { BootReport, KernelImage, Target } from '../targets/target.ts';
import { readHome, readPlan, type SessionKernel, type SessionPlan } from './plan.ts';

/** What a session needs of its box; SshBox is one, tests script one. */
export interface SessionBox extends Target {
  readonly home: HomeKernel;
  readonly facts: BoxFacts;
  readonly isHome: boolean;
  reader(): Promise<SysReader>;
  boot(kernel: KernelImage, abort: AbortSignal): Promise<BootReport>;
  returnHome(abort: AbortSignal): Promise<BootReport | null>;
  /** Cancel the box's watchdog: it stays on the kernel it runs. */
  disarm(): Promise<void>;
  /** Log in again if the connection dropped (bounded). */
  ensureConnected(boundSeconds: number, abort: AbortSignal): Promise<void>;
}

export type StepEnd =
  /** `warnings`: what the environment read on the box says about its figures (virtualized, loaded, governor...). */
  | { state: 'complete'; runId: number; seconds: number; warnings: string[] }
  | { state: 'failed'; runId: number | null; reason: string };

/** Where the session left the box. */
export type Returned =
  | { state: 'home'; report: BootReport | null }
  | { state: 'kept'; release: string }
  | { state: 'failed'; reason: string };

export interface SessionEvents {
  onBox?(box: SessionBox, resumed: boolean): void;
  onStepStart?(step: StepRecord, kernel: SessionKernel, total: number): void;
  onBooted?(step: StepRecord, report: BootReport): void;
  onRound?(step: StepRecord, done: number, total: number, profile: string): void;
  onStepEnd?(step: StepRecord, end: StepEnd): void;
  onReturnStart?(box: SessionBox): void;
  onReturned?(returned: Returned): void;
}

export interface SessionDeps extends SessionEvents {
  store: Store;
  probe: ProbeBuild;
  abort: AbortSignal;
  /** Log into the box: `home` is the kernel the box started on (a resumed session's), null for a new session. */
  connect(plan: SessionPlan, home: HomeKernel | null): Promise<SessionBox>;
  command: string;
  invocation?: RunInvocation;
  hintlabVersion: string;
}

export interface SessionResult {
  id: number;
  state: 'complete' | 'failed' | 'interrupted';
  failure: string | null;
  returned: Returned;
  session: SessionRecord;
}

/** Why a resumed session's step caught in the middle is done again; its run keeps this reason. */
export const INTERRUPTED_STEP = 'interrupted: hintlab stopped during this step (killed, or the laptop closed); the step is done again on --resume';

function record(store: Store, id: number): SessionRecord {
  const rec = store.sessions.get(id);
  if (!rec) throw new UserError(`no session #${id} in ${store.path}; list sessions with 'hintlab session --list'`);
  return rec;
}

/** Steps caught in the middle by a hintlab that died: their runs failed (if left running), the steps failed, to be done again. */
function settleInterrupted(store: Store, rec: SessionRecord): void {
  for (const s of rec.steps.filter((x) => x.status === 'booting' || x.status === 'measuring')) {
    if (s.runId !== null) {
      const run = store.getRun(s.runId);
      if (run.status === 'running' || run.status === 'incomplete') store.finishRun(s.runId, 'failed', INTERRUPTED_STEP);
    }
    store.sessions.stepFinished(rec.id, s.index, 'failed', INTERRUPTED_STEP);
  }
}

/** The bench request of a step: the plan's, labelled, one boot as its unit. */
function stepRequest(plan: SessionPlan, rec: SessionRecord, step: StepRecord, token: string, deps: SessionDeps): BenchRequest {
  let profiles;
  try {
    profiles = selectProfiles(plan.bench.profiles);
  } catch (err) {
    throw new UserError((err as Error).message, 2);
  }
  const extra = { session: rec.id, step: step.index + 1, kernelLabel: step.kernelLabel, bootIndex: step.bootIndex, order: plan.order.join(','), bootToken: token };
  return { profiles, ops: plan.bench.ops, warmups: plan.bench.warmups, rounds: plan.bench.rounds, processes: plan.bench.processes, cpu: plan.bench.cpu, label: step.runLabel, injectSeccomp: null, command: deps.command, invocation: deps.invocation, hintlabVersion: deps.hintlabVersion, boot: { extra } };
}

/** One step: boot, verify, measure, store. A failure says what failed and what was kept. */
async function runStep(plan: SessionPlan, rec: SessionRecord, step: StepRecord, box: SessionBox, deps: SessionDeps): Promise<StepEnd> {
  const { store, abort } = deps;
  const kernel = plan.kernels.find((k) => k.label === step.kernelLabel)!;
  const token = `s${rec.id}-${step.index + 1}-${randomBytes(2).toString('hex')}`;
  store.sessions.stepStarted(rec.id, step.index, token);
  deps.onStepStart?.(step, kernel, rec.steps.length);
  let report: BootReport;
  try {
    report = await box.boot({ label: kernel.label, image: kernel.image, release: kernel.release, initrd: kernel.initrd ?? undefined, append: plan.append ?? undefined, token }, abort);
  } catch (err) {
    return failStep(store, rec, step, null, `booting kernel ${kernel.label} failed: ${(err as Error).message}`);
  }
  store.sessions.stepBooted(rec.id, step.index, report);
  deps.onBooted?.(step, report);
  let runId: number | null = null;
  try {
    const started = Date.now();
    const result = await runBench(stepRequest(plan, rec, step, token, deps), {
      store,
      target: box,
      probe: deps.probe,
      reader: await box.reader(),
      abort,
      onProgress: (d, t, p) => deps.onRound?.(step, d, t, p),
      onRunCreated: (id) => {
        runId = id;
        store.sessions.stepRun(rec.id, step.index, id);
      },
    });
    store.updateEnvironment(result.run.id, { session: { id: rec.id, step: step.index + 1, steps: rec.steps.length, kernelLabel: kernel.label, bootIndex: step.bootIndex, boot: report } });
    if (result.state === 'failed') {
      const kept = result.run.rounds.filter((r) => !r.warmup).length;
      return failStep(store, rec, step, result.run.id, `${result.reason}\nrun #${result.run.id} (${step.runLabel}) is marked failed; its ${kept} measured rounds are kept for inspection but never used as valid data`);
    }
    store.sessions.stepFinished(rec.id, step.index, 'complete', null);
    return { state: 'complete', runId: result.run.id, seconds: (Date.now() - started) / 1000, warnings: result.warnings.map((w) => w.message) };
  } catch (err) {
    if (!(err instanceof BenchRequestError) && !(err instanceof UserError)) throw err;
    return failStep(store, rec, step, runId, `${step.runLabel}: ${err.message}`);
  }
}

function failStep(store: Store, rec: SessionRecord, step: StepRecord, runId: number | null, reason: string): StepEnd {
  store.sessions.stepFinished(rec.id, step.index, 'failed', reason);
  return { state: 'failed', runId, reason };
}

/** A box an earlier session left on one of its test kernels is not a box to start a new session on. */
function refuseForeignBoot(box: SessionBox): void {
  const token = bootToken(box.facts.cmdline);
  if (token !== null && !token.startsWith('home-')) {
    throw new UserError(
      `${box.name} runs a kernel an earlier hintlab session booted (hintlab.boot=${token} on its command line: ${box.facts.release}), not its own: ` +
        "return it first ('hintlab session --resume' of that session, or reboot it), then start the session",
    );
  }
}

/** The box back home, or kept where it is when asked after a failure; where it was left is recorded. */
async function giveBack(box: SessionBox, plan: SessionPlan, store: Store, id: number, stopped: boolean, deps: SessionDeps): Promise<Returned> {
  // a Ctrl-C has fired by now, maybe: the way back must not stop at it
  const never = new AbortController().signal;
  let returned: Returned;
  try {
    await box.ensureConnected(plan.bootTimeoutSeconds, never);
    if (stopped && plan.keepOnFailure) {
      await box.disarm();
      returned = { state: 'kept', release: box.facts.release };
    } else {
      deps.onReturnStart?.(box);
      returned = { state: 'home', report: await box.returnHome(never) };
    }
  } catch (err) {
    returned = { state: 'failed', reason: (err as Error).message };
  }
  store.sessions.setBox(id, returned.state === 'home' ? 'home' : returned.state === 'kept' ? 'away' : 'unknown');
  deps.onReturned?.(returned);
  return returned;
}

/** Run (or resume) session `id` to its end; the box is given back whatever happens. */
export async function runSession(id: number, deps: SessionDeps): Promise<SessionResult> {
  const { store } = deps;
  const rec = record(store, id);
  const plan = readPlan(rec.plan, id);
  const storedHome = readHome(rec.home);
  settleInterrupted(store, rec);
  let box: SessionBox;
  try {
    box = await deps.connect(plan, storedHome);
  } catch (err) {
    store.sessions.finish(id, 'failed', (err as Error).message);
    throw err;
  }
  if (!storedHome) {
    try {
      refuseForeignBoot(box);
    } catch (err) {
      await box.close();
      store.sessions.finish(id, 'failed', (err as Error).message);
      throw err;
    }
    store.sessions.setHome(id, box.home);
  }
  let failure: string | null = null;
  let returned: Returned;
  try {
    store.sessions.setBox(id, box.isHome ? 'home' : 'away');
    deps.onBox?.(box, storedHome !== null);
    for (const step of record(store, id).steps.filter((s) => s.status !== 'complete')) {
      if (deps.abort.aborted) break;
      const end = await runStep(plan, rec, step, box, deps);
      deps.onStepEnd?.(step, end);
      if (end.state === 'failed') {
        failure = end.reason;
        break;
      }
    }
  } catch (err) {
    failure = (err as Error).message;
    if (!(err instanceof UserError)) failure = `internal error: ${(err as Error).stack ?? failure}`;
  } finally {
    returned = await giveBack(box, plan, store, id, failure !== null || deps.abort.aborted, deps);
    await box.close();
  }
  const interrupted = deps.abort.aborted;
  const notBack = returned.state === 'failed' ? `the box was not given back: ${returned.reason}` : null;
  const error = [failure, notBack].filter((x) => x !== null).join('\n') || (interrupted ? 'interrupted (Ctrl-C)' : null);
  const state = interrupted ? 'interrupted' : error ? 'failed' : 'complete';
  store.sessions.finish(id, state, error);
  return { id, state, failure: error, returned, session: record(store, id) };
}
