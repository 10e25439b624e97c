/**
 * `hintlab behave --kernel A=... --kernel B=... [--scenario NAME|FILE ...]
 * [--program PATH ...] [--json|--lkml] [-o FILE]`: argument parsing and
 * output only; the work is src/behave/run.ts's runBehave, the words are
 * src/report/behave.ts's.
 */
import type { Command } from 'commander';
import { buildProbe } from '../launch/probe-build.ts';
import { BUILTIN_TEXT, builtinScenarios } from '../behave/builtin.ts';
import { runBehave } from '../behave/run.ts';
import { readPrograms, selectScenarios } from '../behave/select.ts';
import { numberedLines, scenarioListText, traceBootLine } from '../report/behave.ts';
import { reporterFor } from '../report/formats.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { VERSION } from '../version.ts';
import { resolveKernel } from '../vm/kernels.ts';
import { qemuLauncher, requireQemu } from '../launch/qemu.ts';
import { interruptible } from './interrupt.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';
import { collect, intOption, DB_HELP } from './options.ts';
import { writeOutput } from './runs.ts';

interface BehaveOptions {
  kernel: string[];
  scenario: string[];
  program: string[];
  json?: boolean;
  lkml?: boolean;
  output?: string;
  timeout: number;
  db?: string;
  list?: boolean;
  fresh?: boolean;
  show?: string;
}

/** A built-in scenario's text with its line numbers (a divergence names `built-in:LINE`). */
function showScenario(name: string, io: CliIO): void {
  const all = builtinScenarios();
  const s = all.find((x) => x.name === name);
  if (!s) throw new UserError(`--show ${name}: no built-in scenario has that name (built-in: ${all.map((x) => x.name).join(', ')})`, 2);
  const next = all[all.indexOf(s) + 1]?.line ?? Infinity;
  io.stdout(numberedLines(BUILTIN_TEXT, s.line, next));
}

function listScenarios(io: CliIO): void {
  io.stdout(scenarioListText(selectScenarios([], io.cwd)));
}

async function behaveAction(opts: BehaveOptions, io: CliIO): Promise<void> {
  if (opts.list) { listScenarios(io); return; }
  if (opts.show !== undefined) { showScenario(opts.show, io); return; }
  if (opts.json && opts.lkml) throw new UserError('--json and --lkml are two formats of one result; give one of them', 2);
  if (opts.kernel.length !== 2) throw new UserError(`give exactly two kernels, --kernel A=PATH --kernel B=PATH (got ${opts.kernel.length})`, 2);
  const kernels = [resolveKernel(opts.kernel[0]!, io.cwd), resolveKernel(opts.kernel[1]!, io.cwd)] as const;
  if (kernels[0].label === kernels[1].label) throw new UserError(`--kernel label '${kernels[0].label}' is given twice; each kernel needs its own label`, 2);
  const scenarios = selectScenarios(opts.scenario, io.cwd);
  const programs = readPrograms(opts.program, io.cwd);
  const dbPath = dbPathFrom(opts.db, io.env);
  requireQemu();
  const probe = io.services?.probeBuild ?? buildProbe({ static: true, env: io.env });
  const store = Store.open(dbPath);
  try {
    const doc = await interruptible((abort) =>
      runBehave(
        { kernels, scenarios, programs, timeoutSeconds: opts.timeout, hintlabVersion: VERSION, fresh: opts.fresh === true },
        {
          store,
          launcher: qemuLauncher(),
          probe,
          abort,
          onBoot: (label, state, seconds) => io.stderr(traceBootLine(label, state, seconds, dbPath)),
        },
      ),
    );
    const text = reporterFor('behave', opts.json ? 'json' : opts.lkml ? 'lkml' : 'text')!(doc);
    writeOutput(io, text, opts.output, dbPath);
    if (opts.output !== undefined) io.stderr(`wrote the behaviour comparison to ${opts.output}\n`);
  } finally {
    store.close();
  }
}

export function registerBehave(program: Command, io: CliIO): void {
  program
    .command('behave')
    .description('run the same syscall scenarios in a qemu guest of each kernel (icount), A twice, and compare the traces step by step where A repeats itself')
    .option('--kernel <label=path>', 'a kernel: bzImage, vmlinuz or a `hintlab kernel build` directory (exactly two)', collect, [])
    .option('--scenario <name|file>', "a built-in scenario, a scenario file, or 'all' (repeatable; default all built-in)", collect, [])
    .option('--program <path>', 'a static program whose output lines are its trace (repeatable)', collect, [])
    .option('--json', 'the comparison document (versioned JSON)')
    .option('--lkml', 'the lines for a changelog or a mail (72 columns)')
    .option('-o, --output <file>', 'write to FILE (atomically) instead of stdout')
    .option('--timeout <s>', 'seconds one boot may take before qemu is killed', intOption('--timeout', 5), 600)
    .option('--fresh', 'boot A, B and A again even when stored traces match (the new traces replace them)')
    .option('--list', 'list the built-in scenarios and their steps')
    .option('--show <name>', 'print a built-in scenario with its line numbers')
    .option('--db <path>', DB_HELP)
    .action(async (opts: BehaveOptions) => behaveAction(opts, io));
}
