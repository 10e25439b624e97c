/**
 * The commands that reproduce a report: each distinct run command once, in
 * run order (one `hintlab vm` makes all three runs of an A/B/A), then the
 * compare command, all against the database the runs came from.
 *
 * Paths are printed so the lines paste and run where the report was
 * written: a path typed relative stays as typed; an absolute one under the
 * report's directory prints relative to it, one under the home directory
 * as `~/...`, everything else (a temporary directory too) as typed. Runs
 * record their arguments as typed and their working directory
 * (`params.extra.invocation`); older runs have only the stored command line,
 * which is split back into its words.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { DEFAULT_OPTIONS } from '../compare/compare.ts';
import type { Comparison, ComparedRun } from '../compare/types.ts';
import { shellWord } from '../shell.ts';
import { shellWords } from './wrap.ts';

/** Where the report's runs were read from, and what the reader's paths are relative to. */
export interface ReproduceContext {
  /** The database as the user named it (--db or $HINTLAB_DB); null for the default database. */
  db: string | null;
  /** The report's working directory (absolute). */
  cwd: string;
  /** The home directory: paths under it print as ~/...; null to keep them absolute. */
  home: string | null;
}

/** Flags whose value is a path even when typed relative (`--kernel LABEL=PATH`, `--db PATH`). */
const PATH_FLAGS = new Set(['--kernel', '--db']);

function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** An absolute path as the reader should see it (see the module comment). */
function absoluteText(abs: string, ctx: ReproduceContext): string {
  if (isUnder(abs, ctx.cwd)) return shellWord(relative(ctx.cwd, abs) || '.');
  // `~/` stays unquoted so the shell expands it.
  if (ctx.home !== null && ctx.home !== '/' && isUnder(abs, ctx.home)) return `~/${shellWord(relative(ctx.home, abs))}`;
  return shellWord(abs);
}

/**
 * A path as typed by a run started in `runCwd` (null when not recorded): a
 * relative path stays as typed unless the run was started elsewhere than
 * the report, where it is resolved against the run's directory.
 */
function pathText(typed: string, runCwd: string | null, ctx: ReproduceContext): string {
  if (typed === '') return shellWord(typed);
  if (!isAbsolute(typed)) {
    if (runCwd === null || resolve(runCwd) === resolve(ctx.cwd)) return shellWord(typed);
    return absoluteText(resolve(runCwd, typed), ctx);
  }
  return absoluteText(typed, ctx);
}

/** The value of a path flag: `A=PATH` for --kernel, the path for --db. */
function flagValueText(flag: string, value: string, runCwd: string | null, ctx: ReproduceContext): string {
  const kernel = flag === '--kernel' ? /^([^=/]+)=(.*)$/.exec(value) : null;
  if (kernel) return `${shellWord(`${kernel[1]}=`)}${pathText(kernel[2]!, runCwd, ctx)}`;
  return pathText(value, runCwd, ctx);
}

/** Arguments after `hintlab` as one shell line with the paths rendered for a reader. */
export function argvText(argv: readonly string[], runCwd: string | null, ctx: ReproduceContext): string {
  const words = argv.map((word, i) => {
    const prev = argv[i - 1];
    const inline = /^(--[\w-]+)=(.*)$/s.exec(word);
    if (inline && PATH_FLAGS.has(inline[1]!)) return `${inline[1]}=${flagValueText(inline[1]!, inline[2]!, runCwd, ctx)}`;
    if (prev !== undefined && PATH_FLAGS.has(prev)) return flagValueText(prev, word, runCwd, ctx);
    if (word.startsWith('/')) return pathText(word, runCwd, ctx);
    return shellWord(word);
  });
  return ['hintlab', ...words].join(' ');
}

/** Undo shell quoting of one word as shellWords left it ('a b', "a b", a\ b). */
export function unquote(word: string): string {
  let out = '';
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < word.length; i++) {
    const c = word[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else out += c;
    } else if (c === '\\' && i + 1 < word.length) {
      out += word[++i] as string;
    } else if (quote === null && (c === "'" || c === '"')) {
      quote = c;
    } else if (c === quote) {
      quote = null;
    } else {
      out += c;
    }
  }
  return out;
}

interface TypedCommand {
  argv: string[];
  cwd: string | null;
}

/** A run's arguments as typed: the recorded invocation, else the stored command line split into words. */
function typedCommand(run: ComparedRun): TypedCommand {
  const inv = run.params.extra.invocation;
  if (inv) return { argv: inv.argv, cwd: inv.cwd };
  const words = shellWords(run.command).map(unquote);
  return { argv: words[0] === 'hintlab' ? words.slice(1) : words, cwd: null };
}

/** Whether the arguments name a database (--db PATH or --db=PATH). */
function namesDb(argv: readonly string[]): boolean {
  return argv.some((w) => w === '--db' || w.startsWith('--db='));
}

/** The compare command's arguments: run references, the options that decide verdicts, the database. */
function compareArgv(c: Comparison, ctx: ReproduceContext): string[] {
  // Runs are named by label when the labels tell them apart (labels survive into a fresh database; ids do not).
  const labels = c.runs.map((r) => r.label);
  const byLabel = labels.every((l) => l !== null) && new Set(labels).size === labels.length;
  const refs = c.runs.map((r) => (byLabel ? (r.label as string) : String(r.id)));
  const o = c.options;
  // Threshold, alpha and the correction decide the verdicts, so they are always spelled out.
  const opts = ['--threshold', String(o.thresholdPct), '--alpha', String(o.alpha), '--correction', o.correction];
  if (o.detectPct !== null) opts.push('--detect', String(o.detectPct));
  if (o.bootstrapResamples !== DEFAULT_OPTIONS.bootstrapResamples) opts.push('--resamples', String(o.bootstrapResamples));
  if (o.bootstrapSeed !== DEFAULT_OPTIONS.bootstrapSeed) opts.push('--seed', String(o.bootstrapSeed));
  if (o.allowMismatch) opts.push('--allow-mismatch');
  if (o.allowIncomplete) opts.push('--allow-incomplete');
  for (const name of o.controls) opts.push('--control', name);
  return ['compare', ...refs, ...opts, ...(ctx.db === null ? [] : ['--db', ctx.db])];
}

/** What a report assumes when the caller says nothing: the runs' own directory, no home. */
function defaultContext(c: Comparison): ReproduceContext {
  const cwd = c.runs.map((r) => typedCommand(r).cwd).find((d): d is string => d !== null) ?? '/';
  return { db: null, cwd, home: null };
}

/**
 * The commands that reproduce the comparison: each distinct run command in
 * run order, then the compare command. A run command that does not name
 * the report's database gets `--db` added, so every line uses the same one.
 */
export function reproduceCommands(c: Comparison, given?: ReproduceContext): string[] {
  const ctx = given ?? defaultContext(c);
  const lines = c.runs.map((run) => {
    const { argv, cwd } = typedCommand(run);
    // The added --db is the report's path, relative to the report's directory.
    const db = ctx.db !== null && !namesDb(argv) ? ` --db ${pathText(ctx.db, null, ctx)}` : '';
    return `${argvText(argv, cwd, ctx)}${db}`;
  });
  lines.push(argvText(compareArgv(c, ctx), null, ctx));
  return [...new Set(lines)];
}
