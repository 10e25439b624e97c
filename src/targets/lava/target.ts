/**
 * A LAVA lab as a target: every run is one LAVA job that boots the kernel
 * with hintlab's initramfs (the static probe as /init, src/targets/guest.ts's
 * image) on a device of the address's type. hintlab writes the job, submits
 * it, follows it (queued, running on DEVICE, finished) and streams the
 * guest's console from the job's log to the session as it grows; LAVA owns
 * the queue, the choice of device, power and boot.
 *
 * How a job ended, in LAVA's words: Complete is the guest's end (the probe's
 * own lines say whether it measured everything); Incomplete and Canceled are
 * a target gone away with the job's URL and LAVA's error; a Ctrl-C cancels
 * the job in LAVA and waits (bounded) until LAVA says it is over, so nothing
 * hintlab submitted keeps a device busy after it.
 */
import { pathToFileURL } from 'node:url';
import type { ProbeBuild } from '../../launch/probe-build.ts';
import { initramfsFile, jobEntries, readableTail } from '../guest.ts';
import type { Target, TargetEnd, TargetExit, TargetJob } from '../target.ts';
import { type LavaClient, type LavaJobStatus, type LavaLogEntry, LavaRequestAborted } from './client.ts';
import type { JobGuard } from './guard.ts';
import { fileSha256, lavaJobDefinition } from './job.ts';
import { printable, UserError } from '../../errors.ts';
import type { LavaJobFacts } from '../../environment/record.ts';

/** What a LAVA boot runs. */
export interface LavaGuestSpec {
  /** The kernel's label (A, B). */
  label: string;
  /** bzImage or vmlinuz on this machine. */
  image: string;
  icount: boolean;
  cpus: number;
  memoryMiB: number;
}

/** A job the lab ran for hintlab: where, which, and how LAVA says it ended (stored in the run's environment). */
export interface LabJob extends LavaJobFacts {
  /** The lab's address as stored, without a token (`lava://server:port/qemu`). */
  server: string;
  deviceType: string;
}

/** How a LAVA boot ended: a target's exit, with the job it was (null when none was submitted). */
export interface LavaExit extends TargetExit {
  labJob: LabJob | null;
}

/** A LAVA lab's boots of one kernel: a Target whose exits name their job. */
export interface LavaTarget extends Target {
  run(job: TargetJob, onLine: (line: string) => void, abort: AbortSignal): Promise<LavaExit>;
}

/** Where a job stands, for progress lines. */
export type LavaProgress =
  | { kind: 'submitted'; jobId: number; url: string }
  | { kind: 'running'; jobId: number; url: string; device: string }
  | { kind: 'finished'; jobId: number; url: string; device: string | null; health: string };

/** A job's progress in one line: `LAVA job 12 running on qemu01`. */
export function describeLavaProgress(p: LavaProgress): string {
  if (p.kind === 'submitted') return `LAVA job ${p.jobId} queued: ${p.url}`;
  if (p.kind === 'running') return `LAVA job ${p.jobId} running on ${p.device}`;
  return `LAVA job ${p.jobId} finished: ${p.health}${p.device ? ` on ${p.device}` : ''}`;
}

export interface LavaTargetOptions {
  client: LavaClient;
  probe: Pick<ProbeBuild, 'path'>;
  cacheDir?: string;
  /** The URL the worker downloads a local file from (default file://, for a worker on this machine). */
  urlOf?: (path: string) => string;
  /** Between two looks at the job (default 2 s). */
  pollMs?: number;
  /** After a cancel, how long to wait for LAVA to say the job is over (default 120 s). */
  cancelWaitMs?: number;
  /** While a job is queued, how often to check that a device can still take it (default 30 s). */
  queueCheckMs?: number;
  jobName?: (spec: LavaGuestSpec) => string;
  /** Told each job submitted and each finished with, to cancel the rest should hintlab be killed (./guard.ts). */
  guard?: JobGuard;
  onProgress?: (p: LavaProgress) => void;
}

const TAIL_LINES = 25;

/** LAVA's result of the whole job, when it names an error. */
function jobErrorOf(msg: unknown): string | null {
  const r = msg as { case?: unknown; definition?: unknown; error_msg?: unknown; error_type?: unknown } | null;
  if (!r || r.case !== 'job' || r.definition !== 'lava' || typeof r.error_msg !== 'string') return null;
  return typeof r.error_type === 'string' ? `${r.error_type}: ${r.error_msg}` : r.error_msg;
}

/** The job's log, read as it grows: console lines to the session, LAVA's errors and qemu's command kept. */
class LogReader {
  next = 0;
  readonly consoleTail: string[] = [];
  readonly errors: string[] = [];
  /** LAVA's own verdict on the job (its `job` result): `Infrastructure: Connection closed`. */
  jobError: string | null = null;
  qemu: string | null = null;
  constructor(private readonly onLine: (line: string) => void) {}

  takeResult(msg: unknown): void {
    const said = jobErrorOf(msg);
    this.jobError = said === null ? this.jobError : printable(said);
  }

  /** Entries as LAVA sent them: every string kept or passed on is made printable here, where the log enters hintlab. */
  take(entries: LavaLogEntry[]): void {
    this.next += entries.length;
    for (const e of entries) {
      if (e.lvl === 'results') this.takeResult(e.msg);
      if (typeof e.msg !== 'string') continue;
      if (e.lvl === 'target') {
        // LAVA's ShellLogger writes every `"` of the console as `\"` (and drops ESC and CR); undo the quotes,
        // drop colour sequences, and escape what is left (an OSC title, a bell) rather than pass it to a terminal
        const line = printable(e.msg.replace(/\\"/g, '"').replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1bc/g, '').replace(/\r/g, ''));
        this.consoleTail.push(line.trimEnd());
        if (this.consoleTail.length > TAIL_LINES) this.consoleTail.shift();
        this.onLine(line);
      } else if (e.lvl === 'error') {
        this.errors.push(printable(e.msg));
      } else if (this.qemu === null) {
        // LAVA 2023.01 says `Boot command: /usr/bin/qemu-system-x86_64 ...`
        const command = /^Boot command: (\S*qemu-system-\S+ .*)$/.exec(e.msg.trim())?.[1];
        this.qemu = command === undefined ? null : printable(command);
      }
    }
  }
}

const sleep = (ms: number, abort?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      abort?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    abort?.addEventListener('abort', done, { once: true });
  });

/** LAVA's reason for a job that did not complete, in its words. */
function lavaReason(client: LavaClient, status: LavaJobStatus, log: LogReader): string {
  const url = client.jobUrl(status.id);
  const said = log.jobError ?? status.failureComment ?? log.errors.at(-1) ?? 'LAVA gave no reason';
  const where = status.device ? ` on ${status.device}` : '';
  if (status.health === 'Canceled') return `LAVA job ${url}${where} was cancelled in LAVA${status.failureComment ? `: ${status.failureComment}` : ''}`;
  return `LAVA job ${url}${where} ended ${status.health}: ${said}`;
}

/** The device type's LAVA boots of `spec`: each run is one job. */
export function lavaTarget(spec: LavaGuestSpec, opts: LavaTargetOptions): LavaTarget {
  const { client } = opts;
  const address = client.address;
  return {
    kind: 'guest',
    name: `${address.name} (kernel ${spec.label}${spec.icount ? ', icount' : ''})`,
    async run(job, onLine, abort): Promise<LavaExit> {
      if (job.program !== 'probe') throw new Error(`a LAVA boot runs the probe as /init, not ${job.program.path}`);
      const started = Date.now();
      const initrd = initramfsFile(opts.probe, job.args, opts.cacheDir, jobEntries(job));
      const urlOf = opts.urlOf ?? ((p: string) => pathToFileURL(p).href);
      const timeoutSeconds = job.timeoutSeconds ?? 600;
      // the content the worker is given, before it is named: a bzImage rebuilt later is another kernel
      const kernelSha256 = fileSha256(spec.image);
      const definition = lavaJobDefinition({
        name: opts.jobName?.(spec) ?? `hintlab kernel ${spec.label}`,
        deviceType: address.deviceType,
        tags: address.tags,
        kernelUrl: urlOf(spec.image),
        initrdUrl: urlOf(initrd),
        icount: spec.icount,
        cpus: spec.cpus,
        memoryMiB: spec.memoryMiB,
        timeoutSeconds,
      });
      if (abort.aborted) return exitOf({ kind: 'aborted' }, new LogReader(onLine), null, started, client, spec);
      const id = await client.submit(definition);
      opts.guard?.submitted(id);
      const url = client.jobUrl(id);
      opts.onProgress?.({ kind: 'submitted', jobId: id, url });
      const log = new LogReader(onLine);
      let followed: Followed;
      try {
        followed = await follow(opts, id, log, abort, timeoutSeconds);
      } catch (err) {
        // the server stopped answering: the job must not keep a device busy once hintlab gives up on it
        // (a cancel that fails stays the guard's: it tries again as hintlab ends)
        const cancelled = await client.cancel(id, AbortSignal.timeout(CANCEL_ANSWER_MS)).then(() => true, () => false);
        if (cancelled) opts.guard?.settled(id);
        throw new Error(`${(err as Error).message} (LAVA job ${url} ${cancelled ? 'was asked to cancel' : `could not be cancelled${opts.guard ? '; hintlab tries again as it ends' : ': cancel it in LAVA'}`})`);
      }
      // finished in LAVA, or its cancel accepted; a cancel LAVA did not take stays the guard's
      if (followed.settled) opts.guard?.settled(id);
      const { status, end } = followed;
      const facts: LabJob = { server: address.name, deviceType: address.deviceType, jobId: id, url, device: status?.device ?? null, health: status?.health ?? 'Unknown', qemu: log.qemu, kernelSha256 };
      opts.onProgress?.({ kind: 'finished', jobId: id, url, device: facts.device, health: facts.health });
      return exitOf(end ?? endOf(client, status!, log), log, facts, started, client, spec);
    },
    async close() {},
  };
}

/** How long a cancel may take to be answered before it is left to the guard (bounded by the cancel wait). */
const CANCEL_ANSWER_MS = 10_000;
/** After a cancel, how long one look at the job may take: LAVA answers in a fraction of a second, and the user is waiting. */
const LOOK_AFTER_CANCEL_MS = 5_000;

/** How following a job ended: LAVA's last word on it (none when Ctrl-C came before the first), and whether hintlab is done with it. */
interface Followed {
  status: LavaJobStatus | null;
  end: TargetEnd | null;
  /** Finished in LAVA, or its cancel accepted; false leaves the job to the guard. */
  settled: boolean;
}

/**
 * Look at the job until LAVA says it is finished; on abort or timeout, cancel it and wait for that.
 * A Ctrl-C ends a look under way at once; after the cancel, each look is bounded (5 s, and what is left
 * of the wait) and the first that fails ends the wait, so neither a slow server nor one that drips its
 * answers holds hintlab.
 */
async function follow(opts: LavaTargetOptions, id: number, log: LogReader, abort: AbortSignal, timeoutSeconds: number): Promise<Followed> {
  const { client } = opts;
  const pollMs = opts.pollMs ?? 2000;
  const cancelWaitMs = opts.cancelWaitMs ?? 120_000;
  const watch = new QueueWatch(opts, timeoutSeconds);
  let forced = null as TargetEnd | null;
  let cancelledAt = 0;
  let last: LavaJobStatus | null = null;
  const force = async (end: TargetEnd): Promise<boolean> => {
    forced = end;
    cancelledAt = Date.now();
    return client.cancel(id, AbortSignal.timeout(Math.min(CANCEL_ANSWER_MS, cancelWaitMs))).then(() => true, () => false);
  };
  for (;;) {
    const signal = forced ? AbortSignal.timeout(Math.max(1, Math.min(LOOK_AFTER_CANCEL_MS, cancelWaitMs - (Date.now() - cancelledAt)))) : abort;
    try {
      last = await look(client, id, log, signal);
    } catch (err) {
      // after an accepted cancel, a look that fails or takes too long ends the wait: the job is LAVA's to end
      if (forced) return { status: last, end: forced, settled: true };
      // Ctrl-C came mid-look
      if (!(err instanceof LavaRequestAborted)) throw err;
      if (!(await force({ kind: 'aborted' }))) return { status: last, end: forced, settled: false };
      continue;
    }
    watch.saw(client, id, last);
    if (last.state === 'Finished') return { status: last, end: forced, settled: true };
    if (forced && Date.now() - cancelledAt > cancelWaitMs) return { status: last, end: forced, settled: true };
    const why = forced ? null : abort.aborted ? ({ kind: 'aborted' } as const) : await watch.reason(client, id);
    if (why && !(await force(why))) return { status: last, end: forced, settled: false };
    await sleep(pollMs, forced ? undefined : abort);
  }
}

/** One look at the job: its status and the log since the last look (the last lines can land between the two, so a finished job's log is read again). */
async function look(client: LavaClient, id: number, log: LogReader, signal: AbortSignal): Promise<LavaJobStatus> {
  const status = await client.status(id, signal);
  log.take(await client.logFrom(id, log.next, signal));
  if (status.state === 'Finished') log.take(await client.logFrom(id, log.next, signal));
  return status;
}

/** When a job that is not finished must be cancelled: it ran past its time, or it waits in a queue no device serves. */
class QueueWatch {
  private runningSince = 0;
  private device: string | null = null;
  private queueChecked = Date.now();
  constructor(
    private readonly opts: LavaTargetOptions,
    private readonly timeoutSeconds: number,
  ) {}

  /** The first look that finds the job running on a device starts its clock and says so. */
  saw(client: LavaClient, id: number, status: LavaJobStatus): void {
    if (status.state !== 'Running' || !status.device || this.device !== null) return;
    this.device = status.device;
    this.runningSince = Date.now();
    this.opts.onProgress?.({ kind: 'running', jobId: id, url: client.jobUrl(id), device: this.device });
  }

  async reason(client: LavaClient, id: number): Promise<TargetEnd | null> {
    // LAVA times the job itself; hintlab's bound starts when a device has it, plus a grace for LAVA's own ending
    if (this.runningSince && Date.now() - this.runningSince > (this.timeoutSeconds + 120) * 1000) return { kind: 'timeout', seconds: this.timeoutSeconds };
    // a queued job waits for ever once no device of its type can run it (offline, retired, its worker gone)
    if (this.device || Date.now() - this.queueChecked <= (this.opts.queueCheckMs ?? 30_000)) return null;
    this.queueChecked = Date.now();
    const stranded = await noDevice(client);
    return stranded ? { kind: 'lost', reason: `LAVA job ${client.jobUrl(id)} was cancelled while queued: ${stranded}` } : null;
  }
}

/** Why no device of the address's type can take a job now, or null when one can. */
async function noDevice(client: LavaClient): Promise<string | null> {
  try {
    await client.checkDeviceType(client.address.deviceType, client.address.tags);
    return null;
  } catch (err) {
    if (err instanceof UserError && /has no usable device/.test(err.message)) return err.message;
    throw err;
  }
}

function endOf(client: LavaClient, status: LavaJobStatus, log: LogReader): TargetEnd {
  if (status.health === 'Complete') return { kind: 'exited', code: 0, signal: null };
  if (status.state !== 'Finished') return { kind: 'lost', reason: `LAVA job ${client.jobUrl(status.id)} is still ${status.state}` };
  return { kind: 'lost', reason: lavaReason(client, status, log) };
}

function exitOf(end: TargetEnd, log: LogReader, lava: LabJob | null, started: number, client: LavaClient, spec: LavaGuestSpec): LavaExit {
  const console = readableTail(log.consoleTail.filter(Boolean));
  return {
    end,
    outputTail: console,
    stderrTail: log.errors.slice(-5),
    elapsedMs: Date.now() - started,
    collected: new Map(),
    labJob: lava,
    describe: (what) => {
      const lines = [what];
      if (lava) lines.push(`LAVA job: ${lava.url} (device ${lava.device ?? 'none'}, ${lava.health})`);
      lines.push('last console lines:', ...(console.length ? console.slice(-12).map((l) => `  | ${l}`) : ['  (the guest printed nothing)']));
      if (log.errors.length) lines.push('LAVA said:', ...log.errors.slice(-5).map((l) => `  | ${l}`));
      if (!lava) lines.push(`(kernel ${spec.label} on ${client.address.name}: no job was submitted)`);
      return lines.join('\n');
    },
  };
}
