/**
 * The one way hintlab starts a long-lived command (qemu, stress-ng, make):
 * under probes/supervise/supervise.c, so that nothing it starts outlives
 * hintlab, even after `kill -9` of hintlab.
 *
 * Why a native supervisor and not Node alone: `process.on('exit')` hooks
 * never run after SIGKILL, and a detached process group is left to init.
 * Only the kernel can notice hintlab's death. The supervisor is the
 * command's parent; hintlab holds one end of a channel on the supervisor's
 * fd 3, which the kernel closes however hintlab ends. On that EOF (or on
 * PR_SET_PDEATHSIG) the supervisor kills the command's process group and,
 * as a child subreaper, every descendant that left the group or was
 * orphaned, reaps them, and exits. Otherwise it is invisible: the command
 * gets the stdio given here, and its exit status or signal comes back as
 * the supervisor's own.
 *
 * The supervisor runs in its own session (as the commands did before), so a
 * Ctrl-C at the terminal reaches hintlab only, and hintlab decides: signal()
 * forwards a signal to the command's process group, and SIGKILL closes the
 * channel, which ends the command and everything it started.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { compileCached, defaultCacheDir } from './native.ts';

export const SUPERVISOR_SOURCE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../probes/supervise');

export interface SuperviseOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** 'pipe' to read the command's output from `stdout`/`stderr`; 'ignore' to drop it. stdin is always /dev/null. */
  stdout?: 'pipe' | 'ignore';
  stderr?: 'pipe' | 'ignore';
}

/** How the command ended: an exit status, or the signal that killed it. */
export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Supervised {
  /** The supervisor's pid (the command runs as its child), or undefined if it could not be started. */
  readonly pid: number | undefined;
  /** The command's output; an empty stream when it was set to 'ignore'. */
  readonly stdout: Readable;
  readonly stderr: Readable;
  /**
   * Settles once the command and everything it started are gone and its
   * output is read to the end. Rejects when the command could not be
   * started, with Node's error shape (`code` 'ENOENT', message `spawn make ENOENT`).
   */
  readonly exit: Promise<CommandExit>;
  /** Send `sig` to the command's process group; SIGKILL also ends every process it started, wherever they went. */
  signal(sig: NodeJS.Signals): void;
}

/** Built binaries by compiler and cache directory, so the sources are hashed once per process. */
const built = new Map<string, string>();

/** The supervisor binary, compiled on first use and cached like the probe (again if the cache was emptied since). */
export function supervisorBinary(env: NodeJS.ProcessEnv = process.env): string {
  const cc = env.CC ?? 'cc';
  const cacheDir = defaultCacheDir(env);
  const key = `${cc}\0${cacheDir}`;
  const known = built.get(key);
  if (known !== undefined && existsSync(known)) return known;
  const path = compileCached({
    what: 'the process supervisor',
    sourceDir: SUPERVISOR_SOURCE_DIR,
    binary: 'hintlab-supervise',
    cc,
    flags: ['-O2', '-Wall', '-Wextra', '-Werror'],
    cacheDir,
  }).path;
  built.set(key, path);
  return path;
}

/** Node's error for a program that could not be started, from the errno the supervisor saw. */
function startError(program: string, errno: number): NodeJS.ErrnoException {
  const name = Object.entries(constants.errno).find(([, n]) => n === errno)?.[0] ?? `errno ${errno}`;
  const err: NodeJS.ErrnoException = new Error(`spawn ${program} ${name}`);
  Object.assign(err, { code: name, errno: -errno, syscall: `spawn ${program}`, path: program });
  return err;
}

/** Start `argv` (program first, looked up on PATH) under the supervisor. */
export function spawnSupervised(argv: readonly string[], opts: SuperviseOptions = {}): Supervised {
  const [program, ...args] = argv;
  if (!program) throw new Error('spawnSupervised: empty command line');
  const child = spawn(supervisorBinary(opts.env), [program, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', opts.stdout ?? 'pipe', opts.stderr ?? 'pipe', 'pipe'],
    detached: true,
  });
  const control = child.stdio[3] as Readable;
  let execErrno: number | null = null;
  createInterface({ input: control }).on('line', (line) => {
    const m = /^exec-failed (\d+)$/.exec(line);
    if (m?.[1]) execErrno = Number(m[1]);
  });
  const exit = new Promise<CommandExit>((resolveExit, rejectExit) => {
    child.on('error', rejectExit);
    child.on('close', (code, signal) => {
      if (execErrno !== null) rejectExit(startError(program, execErrno));
      else resolveExit({ code, signal });
    });
  });
  return {
    pid: child.pid,
    stdout: child.stdout ?? Readable.from([]),
    stderr: child.stderr ?? Readable.from([]),
    exit,
    signal(sig) {
      // closing hintlab's end is what the supervisor treats as hintlab's death: everything goes
      if (sig === 'SIGKILL') control.destroy();
      else if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    },
  };
}
