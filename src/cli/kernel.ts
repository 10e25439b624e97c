/** `hintlab kernel build`: argument parsing and output for building a bootable test kernel. */
import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { buildKernel, type ConfigBase } from '../kernel/build.ts';
import type { OptLevel } from '../kernel/manifest.ts';
import { type CliIO, UserError } from './io.ts';
import { interruptible } from './interrupt.ts';
import { collect, intOption, labelOption } from './options.ts';

interface KernelBuildOptions {
  src: string;
  patch: string[];
  configFragment?: string;
  base: string;
  opt: string;
  out: string;
  label: string;
  jobs?: number;
  behave?: boolean;
  debugChecks?: boolean;
}

function optLevel(value: string): OptLevel {
  if (value === 'O2' || value === 'Os') return value;
  throw new UserError(`--opt must be O2 or Os, got '${value}'`, 2);
}

function configBase(value: string, cwd: string): ConfigBase {
  return value === 'tinyconfig' || value === 'defconfig' ? value : { file: resolve(cwd, value) };
}

/** A one-line counter on a terminal; nothing on a pipe (the phases still print). */
function compileProgress(io: CliIO): { update: (n: number, obj: string) => void; clear: () => void } {
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
      const m = result.manifest;
      const how = result.state === 'reused' ? 'up to date (nothing changed since the last build; reused)' : `built in ${((Date.now() - started) / 1000).toFixed(0)} s`;
      io.stdout(`kernel ${m.label}: Linux ${m.source.version}, ${m.patches.length} patch(es), ${m.base.split(' ')[0]} -${m.opt}: ${how}\n`);
      io.stdout(`  image:    ${result.dir}/${m.image}\n  manifest: ${result.dir}/hintlab-kernel.json\n  config:   sha256:${m.configSha256.slice(0, 16)}\n  compiler: ${m.compiler}\n`);
      for (const p of m.patches) io.stdout(`  patch:    ${p.path} sha256:${p.sha256.slice(0, 16)} (${p.files.join(', ')})\n`);
      for (const d of m.droppedOptions) io.stderr(`warning: olddefconfig dropped ${d}: its dependencies are not met in this configuration\n`);
      io.stdout(`boot it with: hintlab vm --kernel ${m.label}=${result.dir} ...\n`);
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
    .option('--base <config>', 'base configuration: tinyconfig, defconfig or a .config file', 'tinyconfig')
    .option('--opt <level>', 'O2 (what distributions ship) or Os', 'O2')
    .requiredOption('--out <dir>', 'output directory: bzImage, manifest, config, build.log, work/')
    .requiredOption('--label <name>', 'name of this kernel (e.g. A, B, base, patched)', labelOption('--label'))
    .option('-j, --jobs <n>', 'parallel make jobs (default: CPUs available)', intOption('--jobs', 1))
    .action(async (opts: KernelBuildOptions) => buildAction(opts, io));
}
