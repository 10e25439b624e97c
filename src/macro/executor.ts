/**
 * How the macro runner reaches stress-ng. The real executor runs the
 * installed program; tests use a fake (src/macro/fake.ts) that writes
 * YAML files with exact numbers.
 */
import { spawnSupervised } from '../proc/supervise.ts';

/** One stress-ng invocation: one stressor at one instance count. */
export interface Invocation {
  stressor: string;
  instances: number;
  seconds: number;
  /** Passed as `--taskset`, or null for no pinning. */
  cpuList: string | null;
  /** Where stress-ng writes its YAML (`--yaml`). */
  yamlPath: string;
  /** Working directory: stress-ng puts its temporary files here. */
  cwd: string;
}

export type InvocationResult =
  | { kind: 'exited'; code: number; stderr: string }
  | { kind: 'signalled'; signal: string; stderr: string }
  /** Stopped on the caller's abort (Ctrl-C); whatever it wrote is discarded. */
  | { kind: 'aborted'; stderr: string }
  /** Still running long after its timeout, so it was killed. */
  | { kind: 'hung'; afterSeconds: number; stderr: string };

export interface StressNgExecutor {
  /** Output of `stress-ng --version`. */
  version(): Promise<string>;
  /** Output of `stress-ng --stressors`. */
  stressors(): Promise<string>;
  run(inv: Invocation, abort: AbortSignal): Promise<InvocationResult>;
}

/** The command line of an invocation (without the program name). */
export function stressNgArgs(inv: Invocation): string[] {
  const args = [`--${inv.stressor}`, String(inv.instances), '--timeout', `${inv.seconds}s`, '--metrics', '--yaml', inv.yamlPath];
  if (inv.cpuList !== null) args.push('--taskset', inv.cpuList);
  return args;
}

/** stress-ng could not be started at all (not installed, not executable). */
export class StressNgMissingError extends Error {}

/** Seconds past `--timeout` after which a stress-ng still running is killed. */
const HANG_GRACE_SECONDS = 60;
/** After SIGINT, how long stress-ng gets to stop its stressors before SIGKILL. */
const KILL_GRACE_MS = 5000;

/** Runs the real stress-ng found as `program` (default: on PATH). */
export function processExecutor(program = 'stress-ng'): StressNgExecutor {
  const capture = (args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawnSupervised([program, ...args]);
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.exit.then(
        () => resolve(out),
        (err: Error) => reject(missing(program, err)),
      );
    });
  return {
    version: () => capture(['--version']),
    stressors: () => capture(['--stressors']),
    run: (inv, abort) => runStressNg(program, inv, abort),
  };
}

function missing(program: string, err: Error): StressNgMissingError {
  return new StressNgMissingError(
    `cannot run ${program}: ${err.message}; install Debian's stress-ng package (apt-get install -y stress-ng)`,
  );
}

/**
 * Run one invocation under the process supervisor, in its own process group,
 * so Ctrl-C (forwarded as the abort), the hang guard and the death of
 * hintlab stop stress-ng and every stressor it forked.
 */
function runStressNg(program: string, inv: Invocation, abort: AbortSignal): Promise<InvocationResult> {
  return new Promise((resolve, reject) => {
    const child = spawnSupervised([program, ...stressNgArgs(inv)], { cwd: inv.cwd, stdout: 'ignore' });
    let stderr = '';
    let stop: 'aborted' | 'hung' | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    const halt = (why: 'aborted' | 'hung'): void => {
      if (stop) return;
      stop = why;
      // SIGINT lets stress-ng stop its stressors and remove its temporary files.
      child.signal('SIGINT');
      killTimer = setTimeout(() => child.signal('SIGKILL'), KILL_GRACE_MS);
    };
    const onAbort = (): void => halt('aborted');
    if (abort.aborted) onAbort();
    else abort.addEventListener('abort', onAbort, { once: true });
    const hangTimer = setTimeout(() => halt('hung'), (inv.seconds + HANG_GRACE_SECONDS) * 1000);
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const cleanup = (): void => {
      abort.removeEventListener('abort', onAbort);
      clearTimeout(hangTimer);
      clearTimeout(killTimer);
    };
    child.exit.then(
      ({ code, signal }) => {
        cleanup();
        if (stop === 'aborted') resolve({ kind: 'aborted', stderr });
        else if (stop === 'hung') resolve({ kind: 'hung', afterSeconds: inv.seconds + HANG_GRACE_SECONDS, stderr });
        else if (signal !== null) resolve({ kind: 'signalled', signal, stderr });
        else resolve({ kind: 'exited', code: code ?? 0, stderr });
      },
      (err: Error) => {
        cleanup();
        reject(missing(program, err));
      },
    );
  });
}
