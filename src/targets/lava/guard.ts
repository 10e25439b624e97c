/**
 * "Nothing hintlab starts outlives hintlab" for LAVA jobs: a job hintlab
 * submitted holds a device until LAVA's own job timeout unless someone
 * cancels it. hintlab cancels on Ctrl-C, on a timeout and when the server
 * stops answering; for a hintlab that cannot (kill -9, a crash) the guard
 * (./guard-entry.mjs) does. It runs detached, in a session of its own,
 * started once per design before the first submission; hintlab tells it
 * over its stdin pipe each job it submitted and each it has finished with.
 * The pipe closes however hintlab ends: after a `done` the guard just
 * exits, without one it cancels every job still outstanding and exits.
 * The token goes over the pipe, never on a command line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LavaAddress } from './address.ts';

/** What the LAVA target tells the guard. */
export interface JobGuard {
  /** A job LAVA accepted: cancelled if hintlab dies before `settled`. */
  submitted(id: number): void;
  /** hintlab is done with the job (finished in LAVA, or its cancel accepted). */
  settled(id: number): void;
}

/** The running guard. */
export interface LavaGuard extends JobGuard {
  readonly pid: number;
  /**
   * End the guard and wait for it: with no job outstanding it exits at
   * once; with some (hintlab gave up on a job it could not cancel) it
   * cancels them first.
   */
  release(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./guard-entry.mjs', import.meta.url));
const ARM_TIMEOUT_MS = 10_000;

/** Start the guard for jobs on `address`'s server; resolves once it holds the server and token. */
export function startLavaGuard(address: Pick<LavaAddress, 'base' | 'token'>): Promise<LavaGuard> {
  // the token reaches it over the pipe only: not on its command line, not in its environment
  const { HINTLAB_LAVA_TOKEN: _token, ...env } = process.env;
  const child = spawn(process.execPath, [ENTRY], { detached: true, stdio: ['pipe', 'pipe', 'inherit'], env });
  return new Promise((resolve, reject) => {
    let answered = false;
    const fail = (why: string): void => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`cannot start the LAVA job guard (it cancels hintlab's jobs should hintlab be killed): ${why}; no job was submitted`));
    };
    const timer = setTimeout(() => fail(`no answer within ${ARM_TIMEOUT_MS / 1000} s`), ARM_TIMEOUT_MS);
    child.on('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`it exited (${signal ?? `status ${code}`}) before it was armed`));
    // its death is reported by 'exit'; a write into its closed pipe must not crash hintlab
    child.stdin.on('error', () => {});
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (answered) return;
      if (line !== 'armed') { fail(`it said '${line}'`); return; }
      answered = true;
      clearTimeout(timer);
      lines.close();
      child.stdout.destroy();
      resolve(guard(child));
    });
    child.stdin.write(`${JSON.stringify({ base: address.base, token: address.token ?? null })}\n`);
  });
}

function guard(child: ChildProcess): LavaGuard {
  const outstanding = new Set<number>();
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const say = (line: string): void => {
    if (child.stdin!.writable) child.stdin!.write(`${line}\n`);
  };
  return {
    pid: child.pid!,
    submitted(id) {
      outstanding.add(id);
      say(`+${id}`);
    },
    settled(id) {
      outstanding.delete(id);
      say(`-${id}`);
    },
    async release() {
      if (child.stdin!.writable) child.stdin!.end(outstanding.size ? '' : 'done\n');
      await exited;
    },
  };
}
