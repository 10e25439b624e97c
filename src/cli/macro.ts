/** `hintlab macro`: argument parsing and output for stress-ng workloads. */
import type { Command } from 'commander';
import { processExecutor, StressNgMissingError, type StressNgExecutor } from '../macro/executor.ts';
import { PlanError } from '../macro/plan.ts';
import { formatDuration, progressLabel } from '../macro/progress.ts';
import { MacroRequestError, prepareMacro, runMacro, type MacroProgress } from '../macro/runner.ts';
import { StressNgOutputError, StressorSelectionError } from '../macro/stressors.ts';
import { macroTable, unavailableText } from '../macro/table.ts';
import { macroWarnings } from '../macro/warnings.ts';
import { runHeadline } from '../report/run-table.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { VERSION } from '../version.ts';
import { type CliIO, commandLine, invocationOf, UserError } from './io.ts';
import { interruptible } from './interrupt.ts';
import { collect, intOption, labelOption } from './options.ts';
import { progressBar } from './progress.ts';

interface MacroOptions {
  stressor: string[];
  set: string[];
  instances: string;
  seconds: number;
  cooldown: number;
  repeats: number;
  cpu?: string;
  label?: string;
  db?: string;
}

/** Errors of the request itself: exit status 2, printed without a stack. */
const REQUEST_ERRORS = [MacroRequestError, PlanError, StressorSelectionError, StressNgOutputError];

/** Redraws the bar every second so the time left counts down during a round. */
function progressTicker(io: CliIO): { update: (p: MacroProgress) => void; stop: () => void } {
  const bar = progressBar(io);
  let current: { p: MacroProgress; sinceMs: number } | null = null;
  const draw = (): void => {
    if (current) bar.update(current.p.done, current.p.total, progressLabel(current.p, (Date.now() - current.sinceMs) / 1000));
  };
  const timer = io.isTTY ? setInterval(draw, 1000) : null;
  timer?.unref();
  return {
    update(p) {
      current = { p, sinceMs: Date.now() };
      draw();
    },
    stop() {
      if (timer) clearInterval(timer);
      bar.clear();
    },
  };
}

async function macroAction(opts: MacroOptions, io: CliIO): Promise<void> {
  const dbPath = dbPathFrom(opts.db, io.env);
  const executor: StressNgExecutor = io.services?.stressNgExecutor ?? processExecutor();
  const req = {
    stressors: opts.stressor.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean),
    sets: opts.set,
    instances: opts.instances,
    seconds: opts.seconds,
    cooldownSeconds: opts.cooldown,
    repeats: opts.repeats,
    cpuList: opts.cpu ?? null,
    label: opts.label ?? null,
    command: commandLine(io),
    invocation: invocationOf(io),
    hintlabVersion: VERSION,
  };
  let plan;
  try {
    plan = await prepareMacro(req, executor);
  } catch (err) {
    if (REQUEST_ERRORS.some((E) => err instanceof E)) throw new UserError((err as Error).message, 2);
    if (err instanceof StressNgMissingError) throw new UserError(err.message);
    throw err;
  }
  io.stderr(unavailableText(plan.unavailable));
  io.stderr(
    `stress-ng ${plan.stressNgVersion}: ${plan.stressors.length} stressor${plan.stressors.length === 1 ? '' : 's'} x instances ${plan.instances.join(',')} x ${req.repeats} repeats ` +
      `of ${req.seconds} s, ${req.cooldownSeconds} s cool-down: about ${formatDuration(plan.plannedSeconds)}\n`,
  );
  const store = Store.open(dbPath);
  const ticker = progressTicker(io);
  try {
    await interruptible(async (abort) => {
      const result = await runMacro(plan, { store, executor, abort, onProgress: (p) => ticker.update(p) });
      ticker.stop();
      if (result.state !== 'complete') {
        throw new UserError(
          `${result.reason}\nrun #${result.run.id} is marked failed in ${store.path}; its ${result.run.rounds.length} rounds ` +
            'are kept for inspection but never used as valid data',
        );
      }
      io.stdout(`${runHeadline(result.run)}\n${macroTable(result.run)}${unavailableText(plan.unavailable)}`);
      for (const w of [...result.warnings, ...macroWarnings(result.run)]) io.stderr(`warning: ${w.message}\n`);
      if (result.unclassifiedMetrics.length > 0) {
        io.stderr(`warning: stress-ng metrics not stored (their name gives no unit or direction): ${result.unclassifiedMetrics.join(', ')}\n`);
      }
    });
  } finally {
    ticker.stop();
    store.close();
  }
}

export function registerMacro(program: Command, io: CliIO): void {
  program
    .command('macro')
    .description('run stress-ng stressors one at a time, interleaved across repeats, and store bogo-ops/s per round')
    .option('--stressor <name>', 'stressor to run (repeatable or comma-separated)', collect, [])
    .option('--set <name>', "named stressor set: 'sched' (the sched/core hints thread's 17)", collect, [])
    .option('--instances <list>', "instance counts, comma-separated; 'all' = one per usable CPU", '1,all')
    .option('--seconds <s>', 'seconds per stress-ng invocation', intOption('--seconds', 1), 20)
    .option('--cooldown <s>', 'seconds of idle between invocations', intOption('--cooldown', 0), 20)
    .option('--repeats <n>', 'repeats of every stressor and instance count', intOption('--repeats', 1), 10)
    .option('--cpu <list>', 'CPUs stress-ng may use (stress-ng --taskset), e.g. 0-3 (default: every allowed CPU)')
    .option('--label <name>', 'label for the run, used by compare (e.g. A, B, A2)', labelOption('--label'))
    .option('--db <path>', 'results database (default: $HINTLAB_DB or ~/.local/share/hintlab/hintlab.db)')
    .action(async (opts: MacroOptions) => macroAction(opts, io));
}
