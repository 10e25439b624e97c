/** `hintlab macro`: argument parsing and output for stress-ng workloads. */
import type { Command } from 'commander';
import { processExecutor, type StressNgExecutor } from '../macro/executor.ts';
import { progressLabel } from '../report/macro.ts';
import { runMacro, type MacroProgress, type MacroRequest } from '../macro/runner.ts';
import { dbPathFrom } from '../store/path.ts';
import { Store } from '../store/store.ts';
import { VERSION } from '../version.ts';
import { type CliIO, commandLine, invocationOf } from './io.ts';
import { UserError } from '../errors.ts';
import { interruptible } from './interrupt.ts';
import { checkedMacroPlan, macroOutcome } from './macro-output.ts';
import { planText } from '../report/macro.ts';
import { macroOnBoxes } from './macro-targets.ts';
import { collect, intOption, labelOption, DB_HELP } from './options.ts';
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
  /** `ssh://[user@]host[:port]` boxes to run on instead of this machine. */
  target: string[];
}

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

/** The request as typed; checked against stress-ng by prepareMacro. */
function macroRequest(opts: MacroOptions, io: CliIO): MacroRequest {
  return {
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
}

async function macroAction(opts: MacroOptions, io: CliIO): Promise<void> {
  const dbPath = dbPathFrom(opts.db, io.env);
  const req = macroRequest(opts, io);
  if (opts.target.length > 0) return macroOnBoxes(opts.target, req, dbPath, io);
  const executor: StressNgExecutor = io.services?.stressNgExecutor ?? processExecutor();
  const plan = await checkedMacroPlan(req, executor);
  io.stderr(planText(plan));
  const store = Store.open(dbPath);
  const ticker = progressTicker(io);
  try {
    await interruptible(async (abort) => {
      const result = await runMacro(plan, { store, executor, abort, onProgress: (p) => ticker.update(p) });
      ticker.stop();
      const failure = macroOutcome(result, plan, store, io);
      if (failure) throw new UserError(failure);
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
    .option('--target <ssh://[user@]host[:port]>', 'run stress-ng on a box over ssh instead of this machine (repeatable: the boxes run in parallel)', collect, [])
    .option('--db <path>', DB_HELP)
    .action(async (opts: MacroOptions) => macroAction(opts, io));
}
