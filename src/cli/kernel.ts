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
import { formatSeconds } from '../format/durations.ts';

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

function how(result: KernelBuildResult, started: number): string {
  if (result.state === 'reused') return 'up to date (nothing changed since the last build; reused)';
  const m = result.manifest;
  const from = m.incremental ? `, incremental from ${m.incremental.label} (${m.incremental.dir})` : '';
  return `built in ${formatSeconds((Date.now() - started) / 1000, 0)}${from}, ${m.objectsCompiled ?? '?'} objects compiled`;
}

function printResult(result: KernelBuildResult, started: number, io: CliIO): void {
  const m = result.manifest;
  io.stdout(`kernel ${m.label}: Linux ${m.source.version}, ${m.patches.length} patch(es), ${m.box ? m.box.url : m.base.split(' ')[0]} -${m.opt}: ${how(result, started)}\n`);
  io.stdout(`  image:    ${result.dir}/${m.image}\n  manifest: ${result.dir}/hintlab-kernel.json\n`);
  if (m.release) io.stdout(`  release:  ${m.release}\n`);
  if (m.box) io.stdout(`  base:     ${m.box.url}:${m.box.path} (box kernel ${m.box.release}) sha256:${m.box.sha256.slice(0, 16)}\n`);
  if (m.modules) io.stdout(`  modules:  ${m.modules === 'local-builtin' ? "built in: those the box had loaded (localyesconfig); the others dropped" : 'all built in (mod2yesconfig)'}\n`);
  io.stdout(`  config:   sha256:${m.configSha256.slice(0, 16)}\n  compiler: ${m.compiler}\n`);
  for (const p of m.patches) io.stdout(`  patch:    ${p.path} sha256:${p.sha256.slice(0, 16)} (${p.files.join(', ')})\n`);
  for (const d of m.droppedOptions) io.stderr(`warning: olddefconfig dropped ${d}: its dependencies are not met in this configuration\n`);
  if (result.state === 'built' && result.modulesNotBuilt.length > 0) {
    const list = result.modulesNotBuilt;
    io.stderr(`warning: ${list.length} option(s) can only be modules and were not built (${list.slice(0, 8).join(', ')}${list.length > 8 ? ', ...' : ''}); see ${result.dir}/config\n`);
  }
  io.stdout(`boot it with: hintlab vm --kernel ${m.label}=${result.dir} ...\n`);
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
