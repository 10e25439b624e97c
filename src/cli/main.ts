/**
 * hintlab's command line: parse arguments, dispatch to a command, map errors
 * to exit codes. Nothing runs at import time; `run(argv, io)` is what tests
 * call in-process.
 */
import { Command, CommanderError } from 'commander';
import { OutputClosed, printableMessage, UserError } from '../errors.ts';
import { databaseTripped } from '../store/watch.ts';
import { VERSION } from '../version.ts';
import { type CliIO, processIO } from './io.ts';

type Register = (program: Command, io: CliIO) => void;

/**
 * Each command module adds itself to the program. A module is imported only
 * when its command runs (or the command list is shown): loading every
 * command's code would cost each start-up, `hintlab --version` included.
 * Keys are the top-level command names each module registers, in help order.
 */
const COMMANDS: [names: string[], load: () => Promise<Register>][] = [
  [['bench'], async () => (await import('./bench.ts')).registerBench],
  [['runs', 'export'], async () => (await import('./runs.ts')).registerRuns],
  [['macro'], async () => (await import('./macro.ts')).registerMacro],
  [['compare'], async () => (await import('./compare.ts')).registerCompare],
  [['report'], async () => (await import('./report.ts')).registerReport],
  [['codegen'], async () => (await import('./codegen.ts')).registerCodegen],
  [['hints'], async () => (await import('./hints.ts')).registerHints],
  [['vm'], async () => (await import('./vm.ts')).registerVm],
  [['session'], async () => (await import('./session.ts')).registerSession],
  [['kernel'], async () => (await import('./kernel.ts')).registerKernel],
  [['behave'], async () => (await import('./behave.ts')).registerBehave],
  [['trial'], async () => (await import('./trial.ts')).registerTrial],
  [['bisect'], async () => (await import('./bisect.ts')).registerBisect],
];

/**
 * The command modules `argv` needs: the one named by its first word, none
 * for a bare --version, and all of them otherwise (the command list in
 * --help, suggestions for a mistyped command).
 */
export function commandsFor(argv: readonly string[]): (() => Promise<Register>)[] {
  const first = argv[0];
  if (argv.length === 1 && (first === '--version' || first === '-V')) return [];
  const named = COMMANDS.find(([names]) => first !== undefined && names.includes(first));
  return named ? [named[1]] : COMMANDS.map(([, load]) => load);
}

/** The program with the commands `argv` needs registered (all of them by default). */
export async function buildProgram(io: CliIO, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('hintlab')
    .description('From a kernel micro-optimization idea to evidence a maintainer accepts.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run with --help for usage)')
    .option('-q, --quiet', 'for scripts: stderr carries only warnings and errors (no progress, notes or status lines); results still go to stdout');
  const registers = await Promise.all(commandsFor(argv).map((load) => load()));
  for (const register of registers) register(program, io);
  return program;
}

/** `argv` from its first word that is not -q/--quiet: the command and what follows. */
function withoutLeadingQuiet(argv: readonly string[]): string[] {
  const first = argv.findIndex((a) => a !== '-q' && a !== '--quiet');
  return first < 0 ? [] : argv.slice(first);
}

/**
 * The IO the commands get. Under --quiet (read once the arguments are
 * parsed, before the command's action) stderr passes only warnings, no
 * progress bar is drawn, and the error `run` prints still goes out.
 */
function commandIO(baseIO: CliIO, argv: string[]): { io: CliIO; quietFrom: (program: Command) => void } {
  let quiet = false;
  // the command line a run records (its reproduce line) starts at the command: a leading --quiet says nothing about the run
  const io: CliIO = { ...baseIO, argv: withoutLeadingQuiet(argv), stderr: (text) => (!quiet || text.startsWith('warning: ') ? baseIO.stderr(text) : undefined) };
  const quietFrom = (program: Command) => {
    quiet = program.opts<{ quiet?: boolean }>().quiet === true;
    if (quiet) io.isTTY = false;
  };
  return { io, quietFrom };
}

/** Run the CLI on `argv` (without node and script), returning the exit code. */
export async function run(argv: string[], baseIO: CliIO = processIO()): Promise<number> {
  const { io, quietFrom } = commandIO(baseIO, argv);
  try {
    const program = await buildProgram(io, io.argv);
    program.hook('preAction', () => quietFrom(program));
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : 2;
    }
    // -o into a pipe whose reader is gone: quiet, like plain stdout into `head`
    if (err instanceof OutputClosed) return 0;
    if (err instanceof UserError) {
      // a message quotes input (names, paths, lines of files): never a raw ESC or NUL to the terminal
      baseIO.stderr(`hintlab: ${printableMessage(err.message)}\n`);
      return err.exitCode;
    }
    const e = err as Error;
    baseIO.stderr(`hintlab: internal error: ${printableMessage(e.stack ?? e.message)}\n`);
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
  // a results database found immutable: end before better-sqlite3's closing checkpoint faults (src/store/watch.ts)
  if (databaseTripped()) process.exit(process.exitCode);
}
