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
}

export function processIO(): CliIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    isTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * A failure the user can fix: printed as `hintlab: <message>` without a stack
 * trace, exit status 2 for usage errors and 1 otherwise.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
