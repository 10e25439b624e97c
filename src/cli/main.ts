/**
 * hintlab's command line: parse arguments, dispatch to a command, map errors
 * to exit codes. Nothing runs at import time; `run(argv, io)` is what tests
 * call in-process.
 */
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.ts';
import { type CliIO, processIO, UserError } from './io.ts';
import { registerBench } from './bench.ts';
import { registerRuns } from './runs.ts';
import { registerMacro } from './macro.ts';
import { registerCompare } from './compare.ts';
import { registerReport } from './report.ts';
import { registerCodegen } from './codegen.ts';
import { registerHints } from './hints.ts';
import { registerVm } from './vm.ts';
import { registerKernel } from './kernel.ts';

/** Each command module adds itself to the program. */
const COMMANDS: ((program: Command, io: CliIO) => void)[] = [registerBench, registerRuns, registerMacro, registerCompare, registerReport, registerCodegen, registerHints, registerVm, registerKernel];

export function buildProgram(io: CliIO): Command {
  const program = new Command('hintlab')
    .description('From a kernel micro-optimization idea to evidence a maintainer accepts.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run with --help for usage)');
  for (const register of COMMANDS) register(program, io);
  return program;
}

/** Run the CLI on `argv` (without node and script), returning the exit code. */
export async function run(argv: string[], baseIO: CliIO = processIO()): Promise<number> {
  const io: CliIO = { ...baseIO, argv };
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UserError) {
      io.stderr(`hintlab: ${err.message}\n`);
      return err.exitCode;
    }
    const e = err as Error;
    io.stderr(`hintlab: internal error: ${e.stack ?? e.message}\n`);
    return 70;
  }
}

export async function main(argv: string[]): Promise<void> {
  // Piped into `head`: stop quietly instead of dying on EPIPE.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  process.exitCode = await run(argv);
}
