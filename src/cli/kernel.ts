/** `hintlab kernel build`: argument parsing and output for building a bootable test kernel. */
import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { buildKernel, type KernelBuildResult } from '../kernel/build.ts';
import type { ConfigBase } from '../kernel/inputs.ts';
import type { OptLevel } from '../kernel/manifest.ts';
import { parseSshUrl } from '../targets/ssh-address.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import { interruptible } from './interrupt.ts';
import { collect, intOption, labelOption } from './options.ts';
import { kernelBuildText } from '../report/kernel.ts';

interface KernelBuildOptions {
  src: string;
  patch: string[];
  configFragment?: string;
  base: string;
  opt: string;
  out: string;
  label: string;
  jobs?: number;
  from?: string;
  localmodconfig?: boolean;
  lsmod?: string;
  behave?: boolean;
  debugChecks?: boolean;
}

export function optLevel(value: string): OptLevel {
  if (value === 'O2' || value === 'Os') return value;
  throw new UserError(`--opt must be O2 or Os, got '${value}'`, 2);
}

export function configBase(value: string, cwd: string): ConfigBase {
  if (value === 'tinyconfig' || value === 'defconfig') return value;
  if (value.startsWith('ssh://')) return { box: parseSshUrl(value, '--base') };
  return { file: resolve(cwd, value) };
}

/** A one-line counter on a terminal; nothing on a pipe (the phases still print). */
export function compileProgress(io: CliIO): { update: (n: number, obj: string) => void; clear: () => void } {
  let drawn = false;
  let last = 0;
  return {
    update(n, obj) {
      if (!io.isTTY || Date.now() - last < 100) return;
      last = Date.now();
      io.stderr(`\r\x1b[K  ${n} objects compiled: ${obj}`);
      drawn = true;
    },
    clear() {
      if (drawn) io.stderr('\r\x1b[K');
      drawn = false;
    },
  };
}

/** The build's summary: what was built and where on stdout, the options dropped on stderr, then how to boot it. */
function printResult(result: KernelBuildResult, started: number, io: CliIO): void {
  const text = kernelBuildText(result, (Date.now() - started) / 1000);
  io.stdout(text.head);
  for (const w of text.warnings) io.stderr(w);
  io.stdout(text.next);
}

async function buildAction(opts: KernelBuildOptions, io: CliIO): Promise<void> {
  const progress = compileProgress(io);
  const started = Date.now();
  try {
    await interruptible(async (abort) => {
      const result = await buildKernel(
        {
          src: resolve(io.cwd, opts.src),
          patches: opts.patch.map((p) => resolve(io.cwd, p)),
          fragment: opts.configFragment ? resolve(io.cwd, opts.configFragment) : null,
          base: configBase(opts.base, io.cwd),
          opt: optLevel(opts.opt),
          fragments: [...(opts.behave ? (['behave'] as const) : []), ...(opts.debugChecks ? (['debug-checks'] as const) : [])],
          out: resolve(io.cwd, opts.out),
          label: opts.label,
          jobs: opts.jobs ?? availableParallelism(),
          from: opts.from ? resolve(io.cwd, opts.from) : null,
          localmodconfig: opts.localmodconfig ?? false,
          lsmod: opts.lsmod ? resolve(io.cwd, opts.lsmod) : null,
          ssh: { configFile: io.env.HINTLAB_SSH_CONFIG || undefined, env: io.env },
        },
        {
          abort,
          onPhase: (m) => {
            progress.clear();
            io.stderr(`${m}\n`);
          },
          onCompiled: (n, obj) => progress.update(n, obj),
        },
      );
      progress.clear();
      printResult(result, started, io);
    });
  } finally {
    progress.clear();
  }
}

export function registerKernel(program: Command, io: CliIO): void {
  const kernel = program.command('kernel').description('build kernels to boot with hintlab vm');
  kernel
    .command('build')
    .description("build a bzImage from a kernel tree plus patches in its own directory; the tree itself is never written")
    .requiredOption('--src <dir>', 'kernel source tree (left exactly as it is)')
    .option('--patch <file>', 'unified diff to apply with -p1 (repeatable, applied in order)', collect, [])
    .option('--config-fragment <file>', 'CONFIG_ lines merged on top of the base and the built-in hintlab fragment')
    .option('--behave', 'add what `hintlab behave` observes: DEBUG_FS, SCHED_DEBUG, UCLAMP_TASK (and what they need)')
    .option('--debug-checks', 'add debug checks for behaviour boots: lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_OBJECTS, UBSAN bounds')
    .option('--base <config>', "base configuration: tinyconfig, defconfig, a .config file, or ssh://[user@]host[:port] (the box's own; its modules built in)", 'tinyconfig')
    .option('--localmodconfig', "with a box's configuration: build in only the modules the box has loaded (make localyesconfig)")
    .option('--lsmod <file>', "the module list for --localmodconfig (lsmod output) instead of the box's /proc/modules")
    .option('--opt <level>', 'O2 (what distributions ship) or Os', 'O2')
    .option('--from <dir>', 'start from a copy of this finished build\'s objects (same tree, base, fragment, -O, compiler): only what the patches touch recompiles; the directory is only read')
    .requiredOption('--out <dir>', 'output directory: bzImage, manifest, config, build.log, work/')
    .requiredOption('--label <name>', 'name of this kernel (e.g. A, B, base, patched)', labelOption('--label'))
    .option('-j, --jobs <n>', 'parallel make jobs (default: CPUs available)', intOption('--jobs', 1))
    .action(async (opts: KernelBuildOptions) => buildAction(opts, io));
}
