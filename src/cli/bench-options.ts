import type { Command } from 'commander';
import { collect, intOption } from './options.ts';

/** The probe plan's options, shared by `hintlab bench` and `hintlab session` (which runs a bench after every boot). */
export interface ProbePlanOptions {
  profile: string[];
  ops?: number;
  warmups: number;
  rounds: number;
  processes: number;
  cpu?: number;
}

/** What each option means for the command; `warmups` and `ops` default to the plain run's words. */
interface PlanHelp {
  rounds: string;
  processes: string;
  cpu: string;
  warmups?: string;
  ops?: string;
}

/**
 * Add the probe plan's options to `cmd`. The defaults are those of a plain
 * run; a command whose modes differ says each mode's in its help texts.
 */
export function probePlanOptions(cmd: Command, help: PlanHelp): Command {
  return cmd
    .option('-p, --profile <name>', "profile to run (repeatable, comma-separated, or 'all')", collect, [])
    .option('--ops <n>', help.ops ?? 'calls per round for every profile (default: per profile, see bench --list)', intOption('--ops', 1))
    .option('--warmups <n>', help.warmups ?? 'warm-up rounds per probe process, not stored as measurements', intOption('--warmups', 0), 3)
    .option('--rounds <n>', help.rounds, intOption('--rounds', 1), 15)
    .option('--processes <n>', help.processes, intOption('--processes', 1), 3)
    .option('--cpu <n>', help.cpu, intOption('--cpu', 0));
}

/** The options of `hintlab bench` as commander parses them (shared by the plain and the interleaved path). */
export interface BenchOptions extends ProbePlanOptions {
  label?: string;
  db?: string;
  json?: boolean;
  list?: boolean;
  injectSeccomp?: number;
  labelB?: string;
  injectSeccompB?: number;
  switchFile: string[];
  switchFileA: string[];
  /** Switch files outside /proc/sys, /sys, debugfs and the user's own. */
  force?: boolean;
  /** Wait for another run switching the same file instead of refusing. */
  wait?: boolean;
  /** `--design`: processes, duet or alternation (default: chosen from what differs). */
  design?: string;
  /** `--time`: seconds of measuring per profile for the paired designs. */
  time?: number;
  /** `--precision`: stop at this half-width (%) of the paired change's confidence sequence. */
  precision?: number;
  blockRounds?: number;
  /** `--min-pairs`: pairs measured at least, whatever --time or --precision say. */
  minPairs?: number;
  /** `--inject-work-b`: N or PCT%. */
  injectWorkB?: string;
  seed?: number;
  /** `--clock wall|cpu`. */
  clock?: string;
  /** --warmups was typed (the paired designs warm up once per process otherwise). */
  warmupsGiven?: boolean;
  /** `ssh://[user@]host[:port]` boxes to measure on instead of this machine. */
  target: string[];
}
