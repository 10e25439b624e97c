/**
 * How the macro runner reaches stress-ng: its version and stressor list,
 * and the target its invocations run on (this machine, under the process
 * supervisor). Tests use a scripted one (src/macro/fake.ts) whose target
 * hands back YAML files with exact numbers.
 */
import { spawnSupervised } from '../proc/supervise.ts';
import { shellWord } from '../shell.ts';
import { hostTarget } from '../targets/host.ts';
import type { SshTarget } from '../targets/ssh.ts';
import type { Target, TargetJob } from '../targets/target.ts';

/** One stress-ng invocation: one stressor at one instance count. */
export interface Invocation {
  stressor: string;
  instances: number;
  seconds: number;
  /** Passed as `--taskset`, or null for no pinning. */
  cpuList: string | null;
  /** Where stress-ng writes its YAML (`--yaml`), relative to its working directory or absolute. */
  yamlPath: string;
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
  /** Where invocations run. */
  readonly target: Target;
  /** The program the target runs. */
  readonly program: string;
}

/** The command line of an invocation (without the program name). */
export function stressNgArgs(inv: Invocation): string[] {
  const args = [`--${inv.stressor}`, String(inv.instances), '--timeout', `${inv.seconds}s`, '--metrics', '--yaml', inv.yamlPath];
  if (inv.cpuList !== null) args.push('--taskset', inv.cpuList);
  return args;
}

/** Seconds past `--timeout` after which a stress-ng still running is stopped as hung. */
export const HANG_GRACE_SECONDS = 60;

/**
 * The target job of an invocation: stress-ng in the target's private
 * directory (its temporary files go there), its YAML collected back, and
 * stopped when it runs well past its own timeout.
 */
export function stressNgJob(program: string, inv: Invocation): TargetJob {
  return { program: { path: program }, args: stressNgArgs(inv), collect: [inv.yamlPath], timeoutSeconds: inv.seconds + HANG_GRACE_SECONDS };
}

/** stress-ng could not be started at all (not installed, not executable). */
export class StressNgMissingError extends Error {}

/** The real stress-ng found as `program` (default: on PATH), run on this machine. */
export function processExecutor(program = 'stress-ng'): StressNgExecutor {
  const capture = (args: string[]): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawnSupervised([program, ...args]);
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.exit.then(
        () => resolve(out),
        (err: unknown) => reject(missing(program, err as Error)),
      );
    });
  return {
    version: () => capture(['--version']),
    stressors: () => capture(['--stressors']),
    target: hostTarget({}),
    program,
  };
}

function missing(program: string, err: Error): StressNgMissingError {
  return new StressNgMissingError(
    `cannot run ${program}: ${err.message}; install Debian's stress-ng package (apt-get install -y stress-ng)`,
  );
}

/**
 * stress-ng on a box over ssh: found on the PATH of a non-interactive
 * session there, its version and stressors read there, its invocations run
 * there (the ssh target stops a program when its session ends).
 */
export async function sshExecutor(target: SshTarget): Promise<StressNgExecutor> {
  const found = await target.connection.exec('command -v stress-ng');
  const program = found.stdout.toString().trim();
  if (found.code !== 0 || !program.startsWith('/')) {
    throw new StressNgMissingError(
      `stress-ng is not installed on ${target.name} (or not on the PATH of a non-interactive ssh session there): install it on the box (apt-get install -y stress-ng)`,
    );
  }
  const capture = async (arg: string): Promise<string> => (await target.connection.exec(`${shellWord(program)} ${arg} 2>&1`)).stdout.toString();
  return { version: () => capture('--version'), stressors: () => capture('--stressors'), target, program };
}
