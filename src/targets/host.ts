/**
 * The local host as a target: a job runs as a child process of hintlab, in
 * a private temporary directory that holds its files and is removed on
 * every path out, after the files named in `collect` are read back.
 *
 * The probe is spawned directly: it dies with hintlab by itself
 * (PR_SET_PDEATHSIG) and restores the task's state on SIGINT. Any other
 * program (stress-ng) may fork and run long, so it runs under the process
 * supervisor (src/proc/supervise.ts), which ends everything it started when
 * it ends or hintlab dies.
 *
 * Stopping: on abort or timeout the job gets SIGINT (the probe: the signal
 * that aborted hintlab, SIGINT, SIGTERM or SIGHUP), so it can stop
 * cleanly (stress-ng removes its temporary files, the probe restores the
 * task); a job still running after the grace period is killed. A job that
 * exits by itself after an abort's SIGINT reports its own exit (the probe's
 * `interrupted` line and status say what happened); only one that had to be
 * killed ends as `aborted`. A job past its timeout ends as `timeout`.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ProbeBuild } from '../launch/probe-build.ts';
import { fsReader, type SysReader } from '../environment/reader.ts';
import { makePidDir } from '../proc/pid-dirs.ts';
import { spawnSupervised } from '../proc/supervise.ts';
import { shellLine } from '../shell.ts';
import type { Target, TargetEnd, TargetExit, TargetJob } from './target.ts';

/** A job's private directory: `hintlab-job-PID-XXXXXX` in the system's temporary directory (src/proc/pid-dirs.ts). */
export const JOB_DIR_PREFIX = 'hintlab-job';

/** After SIGINT, how long a job gets to stop before it is killed. */
const KILL_GRACE_MS = 5000;
const OUTPUT_TAIL = 25;
/** stderr lines kept: the probe's last few go into a one-line reason; stress-ng's error lines are picked out of more. */
const STDERR_TAIL = { probe: 20, program: 200 };

/** A child as the host target drives it: plain (the probe) or under the supervisor. */
interface Child {
  stdout: Readable;
  stderr: Readable;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  signal(sig: NodeJS.Signals): void;
}

function plainChild(argv: string[], cwd: string): Child {
  const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { stdout: child.stdout, stderr: child.stderr, exit, signal: (sig) => void child.kill(sig) };
}

function tail(lines: string[], line: string, max: number): void {
  lines.push(line);
  if (lines.length > max) lines.shift();
}

function writeFiles(dir: string, job: TargetJob): void {
  for (const f of job.files ?? []) {
    const at = join(dir, f.path);
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, f.data);
    if (f.mode !== undefined) chmodSync(at, f.mode);
  }
}

function collectFiles(dir: string, job: TargetJob): Map<string, Buffer> {
  const got = new Map<string, Buffer>();
  for (const path of job.collect ?? []) {
    try {
      got.set(path, readFileSync(isAbsolute(path) ? path : join(dir, path)));
    } catch {
      // not written: the session says what is missing
    }
  }
  return got;
}

/**
 * The signal an abort sends: the probe gets the one hintlab received
 * (SIGTERM, SIGHUP: it handles them as SIGINT and reports which it got);
 * any other program gets SIGINT, which every one stops cleanly on.
 */
function passedOn(abort: AbortSignal, job: TargetJob): NodeJS.Signals {
  const reason: unknown = abort.reason;
  return job.program === 'probe' && (reason === 'SIGTERM' || reason === 'SIGHUP') ? reason : 'SIGINT';
}

/** Start the child, stream its lines, stop it on abort or timeout, and say how it ended. */
function runChild(child: Child, job: TargetJob, argv: string[], onLine: (l: string) => void, abort: AbortSignal, graceMs: number): Promise<Omit<TargetExit, 'collected'>> {
  const started = Date.now();
  const outputTail: string[] = [];
  const stderrTail: string[] = [];
  let forced: TargetEnd | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const halt = (why: TargetEnd): void => {
    if (forced || killTimer) return;
    // a timed-out job's output is never a complete result, however it ends; an aborted one may stop by itself
    if (why.kind === 'timeout') forced = why;
    child.signal(why.kind === 'aborted' ? passedOn(abort, job) : 'SIGINT');
    killTimer = setTimeout(() => {
      forced = why;
      child.signal('SIGKILL');
    }, graceMs);
  };
  const onAbort = (): void => halt({ kind: 'aborted' });
  if (abort.aborted) onAbort();
  else abort.addEventListener('abort', onAbort, { once: true });
  const seconds = job.timeoutSeconds;
  const timeout = seconds === undefined ? undefined : setTimeout(() => halt({ kind: 'timeout', seconds }), seconds * 1000);
  createInterface({ input: child.stdout }).on('line', (l) => {
    tail(outputTail, l, OUTPUT_TAIL);
    onLine(l);
  });
  const stderrMax = job.program === 'probe' ? STDERR_TAIL.probe : STDERR_TAIL.program;
  createInterface({ input: child.stderr }).on('line', (l) => tail(stderrTail, l, stderrMax));
  const cleanup = (): void => {
    abort.removeEventListener('abort', onAbort);
    clearTimeout(timeout);
    clearTimeout(killTimer);
  };
  return child.exit.then(
    ({ code, signal }) => {
      cleanup();
      const end: TargetEnd = forced ?? { kind: 'exited', code, signal };
      const describe = (what: string): string =>
        [what, ...(stderrTail.length ? ['stderr:', ...stderrTail.slice(-5).map((l) => `  | ${l}`)] : []), `command: ${shellLine(argv)}`].join('\n');
      return { end, outputTail, stderrTail, elapsedMs: Date.now() - started, describe, command: argv };
    },
    (err: unknown) => {
      cleanup();
      throw err;
    },
  );
}

export interface HostTargetOptions {
  /** The probe build `program: 'probe'` runs (the dynamic one); a target without one runs other programs only. */
  probe?: Pick<ProbeBuild, 'path'>;
  reader?: SysReader;
  /** After SIGINT, how long a job gets to stop before it is killed (default 5 s). */
  killGraceMs?: number;
}

/** This machine. */
export function hostTarget(opts: HostTargetOptions): Target {
  return {
    kind: 'host',
    name: 'this machine',
    async run(job, onLine, abort) {
      // named by this pid: the next hintlab removes one that a kill -9 left empty
      const dir = makePidDir(JOB_DIR_PREFIX, []);
      try {
        writeFiles(dir, job);
        const probe = job.program === 'probe';
        if (probe && !opts.probe) throw new Error('this host target was given no probe build');
        const argv = [job.program === 'probe' ? opts.probe!.path : job.program.path, ...job.args];
        const child: Child = probe ? plainChild(argv, dir) : spawnSupervised(argv, { cwd: dir });
        const exit = await runChild(child, job, argv, onLine, abort, opts.killGraceMs ?? KILL_GRACE_MS);
        return { ...exit, collected: collectFiles(dir, job) };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    reader: () => Promise.resolve(opts.reader ?? fsReader()),
    async close() {},
  };
}
