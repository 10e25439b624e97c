/** `hintlab codegen`: argument parsing and output for the object-code comparison. */
import type { Command } from 'commander';
import { FilesSource } from '../codegen/files.ts';
import { KernelSource } from '../codegen/kernel-source.ts';
import { runMatrix, type ObjectSource } from '../codegen/matrix.ts';
import { reporterFor } from '../report/formats.ts';
import { OPT_LEVELS, type OptLevel } from '../codegen/types.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';

interface CodegenOptions {
  before?: string;
  after?: string;
  cflags?: string;
  src?: string;
  patch?: string;
  obj?: string;
  config?: string;
  workDir?: string;
  cc: string;
  opt: string;
  objdump: string;
  json?: boolean;
}

/** `O2,Os` or `-O2,-Os` -> ['O2', 'Os']. */
export function parseOptLevels(value: string): OptLevel[] {
  return value.split(',').map((raw) => {
    const level = raw.trim().replace(/^-/, '');
    const known = OPT_LEVELS.find((l) => l === level);
    if (!known) throw new UserError(`--opt: unknown level '${raw}'; use a comma-separated list of ${OPT_LEVELS.join(', ')}`, 2);
    return known;
  });
}

/** Split a flags string the way a shell would for simple quoting: `-DX="a b" -Wall`. */
export function splitFlags(value: string): string[] {
  return [...value.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)].map((m) => m[0].replace(/"([^"]*)"|'([^']*)'/g, '$1$2'));
}

function chooseSource(opts: CodegenOptions, io: CliIO): ObjectSource {
  const files = opts.before !== undefined || opts.after !== undefined;
  const kernel = opts.src !== undefined || opts.patch !== undefined || opts.obj !== undefined;
  if (files && kernel) throw new UserError('use either --before/--after (plain C files) or --src/--patch/--obj (kernel tree), not both', 2);
  if (files) {
    if (!opts.before || !opts.after) throw new UserError('--before and --after go together: the C file before and after the change', 2);
    return new FilesSource(opts.before, opts.after, splitFlags(opts.cflags ?? ''));
  }
  if (!opts.src || !opts.patch || !opts.obj) {
    throw new UserError('give --src DIR --patch FILE --obj path/file.o for a kernel tree, or --before a.c --after b.c for plain C files', 2);
  }
  if (opts.cflags !== undefined) throw new UserError('--cflags applies to --before/--after only; a kernel object uses the tree\'s own flags', 2);
  return new KernelSource({ tree: opts.src, patch: opts.patch, object: opts.obj, config: opts.config, workDir: opts.workDir, env: io.env });
}

async function codegenAction(opts: CodegenOptions, io: CliIO): Promise<void> {
  const compilers = opts.cc.split(',').map((c) => c.trim()).filter((c) => c !== '');
  if (compilers.length === 0) throw new UserError('--cc: name at least one compiler, e.g. --cc gcc,clang-14', 2);
  const opt = parseOptLevels(opts.opt);
  const source = chooseSource(opts, io);
  const progress = io.isTTY && !opts.json ? (line: string) => io.stderr(`${line}\n`) : undefined;
  const result = await runMatrix(source, { compilers, opts: opt, objdump: opts.objdump, progress });
  io.stdout(reporterFor('codegen', opts.json ? 'json' : 'text')!(result));
  if (result.cells.every((c) => c.state === 'skipped')) throw new UserError(`none of the compilers (${compilers.join(', ')}) is installed`);
  const failed = result.cells.filter((c) => c.state === 'failed').length;
  if (failed > 0) throw new UserError(`${failed} of ${result.cells.length} cells did not build (the compiler's errors are above)`);
}

export function registerCodegen(program: Command, io: CliIO): void {
  program
    .command('codegen')
    .description('Does a patch change the object code? Compare an object before and after, function by function, per compiler and -O level.')
    .option('--before <file>', 'plain C file before the change')
    .option('--after <file>', 'plain C file after the change')
    .option('--cflags <flags>', 'extra compiler flags for --before/--after, e.g. "-DNDEBUG -fno-pic"')
    .option('--src <dir>', 'kernel source tree (left untouched: builds happen in a scratch copy)')
    .option('--patch <file>', 'unified diff to apply to the kernel tree (-p1, as git format-patch writes it)')
    .option('--obj <path>', 'kernel object to compare, relative to the tree, e.g. mm/mincore.o')
    .option('--config <file>', 'kernel .config to use instead of the tree\'s own (default: the tree\'s .config, else x86_64 defconfig)')
    .option('--work-dir <dir>', 'scratch directory for tree copies and build output (default: $XDG_CACHE_HOME/hintlab/codegen)')
    .option('--cc <list>', 'comma-separated compilers', 'gcc')
    .option('--opt <list>', `comma-separated optimization levels (${OPT_LEVELS.join(', ')})`, 'O2')
    .option('--objdump <command>', 'objdump to disassemble with', 'objdump')
    .option('--json', 'print the result as JSON')
    .action((opts: CodegenOptions) => codegenAction(opts, io));
}
