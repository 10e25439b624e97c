import type { BisectLab } from '../bisect/run.ts';
import type { KernelLabServices } from '../bisect/lab.ts';
import type { RunInvocation } from '../run-record.ts';
import { shellLine } from '../shell.ts';

import type { ProbeBuild } from '../launch/probe-build.ts';
import type { StressNgExecutor } from '../macro/executor.ts';
import type { Target } from '../targets/target.ts';
import type { SessionBox } from '../session/runner.ts';
import type { SessionPlan } from '../session/plan.ts';
import type { HomeKernel } from '../targets/ssh-box.ts';
import type { TrialDeps, TrialServices } from '../trial/request.ts';
import type { VmLauncher } from '../launch/qemu.ts';

/**
 * Where the CLI's text goes. Commands never touch process.stdout directly,
 * so the whole CLI can run in-process under test with captured output.
 */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stderr is a terminal: progress bars are drawn only then. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The arguments hintlab was started with (set by `run`), for recording how to reproduce a run. */
  argv?: string[];
  /** Replacements for the parts that touch the machine (tests). */
  services?: Services;
}

/** The measuring parts the CLI would otherwise build itself. */
export interface Services {
  probeBuild?: ProbeBuild;
  /** Where `hintlab bench` runs the probe (tests use a scripted one, src/targets/fake.ts); default this machine. */
  target?: Target;
  /** stress-ng for `hintlab macro` (tests use a scripted one, src/macro/fake.ts). */
  stressNgExecutor?: StressNgExecutor;
  /** The box of `hintlab session` (tests script one); default an SshBox over OpenSSH. */
  sessionBox?: (plan: SessionPlan, home: HomeKernel | null) => Promise<SessionBox>;
  /** The parts of `hintlab trial` (tests script the builds, behave and the guests); default the real ones. */
  trial?: {
    services?: Partial<TrialServices>;
    launcher?: VmLauncher;
    probe?: ProbeBuild;
    chooseAccel?: TrialDeps['chooseAccel'];
    cacheDir?: string;
    stressNg?: TrialDeps['stressNg'];
    stressNgEntries?: TrialDeps['stressNgEntries'];
    /** The cost plugin the boots are given (the scripted guest writes its output); default: built here. */
    costPlugin?: TrialDeps['costPlugin'];
  };
  /**
   * The lab of `hintlab bisect` (tests script the builds and boots of each
   * commit); default src/bisect/lab.ts's, whose builder, probe, image cache
   * and look at a LAVA job's interval tests may set instead.
   */
  bisect?: { lab?: BisectLab; stressNg?: StressNgExecutor; services?: Partial<KernelLabServices>; probe?: ProbeBuild; cacheDir?: string; pollMs?: number };
}

export function processIO(): CliIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    // undefined, not false, when stderr is a file or a pipe
    isTTY: process.stderr.isTTY,
    env: process.env,
    cwd: process.cwd(),
  };
}


/** The arguments as typed and the working directory, recorded with a run for its reproduce line. */
export function invocationOf(io: CliIO): RunInvocation {
  return { argv: [...(io.argv ?? [])], cwd: io.cwd };
}

/** The command line that reproduces this invocation, shell-quoted. */
export function commandLine(io: CliIO): string {
  return shellLine(['hintlab', ...(io.argv ?? [])]);
}
