/**
 * The data model of `hintlab hints`: `if` sites found in C sources, the
 * profile evidence attached to them, and the verdicts drawn from it.
 *
 * Everything here is plain data (no tree-sitter nodes), so sites can cross
 * worker_threads and be written to JSON as they are.
 */

/** A position in a source file: 0-based row, column in UTF-16 code units. */
export interface Point {
  row: number;
  column: number;
}

/** An existing branch annotation on an `if` condition. */
export type Annotation =
  | { kind: 'none' }
  /**
   * The whole condition is wrapped, possibly negated: `likely(x)`,
   * `!unlikely(x)`, `__builtin_expect(x, 0)`. `expectTrue` is what the
   * annotation claims about the then-branch, negation taken into account.
   */
  | { kind: 'whole'; macro: string; expectTrue: boolean; at: Point }
  /** An annotation on part of the condition (`unlikely(a) || b`): not judged. */
  | { kind: 'partial'; macro: string };

/** Why an `if` is listed but never proposed or patched. */
export type SkipReason =
  | 'parse-error' // the condition holds an ERROR/MISSING node
  | 'compile-time' // static_branch_*, IS_ENABLED(), sizeof, constant macros
  | 'partial-annotation'; // an annotation on part of the condition

/**
 * How the then-branch count can be read from line counts. Lines are 1-based;
 * `null` when the layout gives nothing usable (same line as the condition,
 * a loop or label as first statement, no statement at all).
 */
export interface BranchLayout {
  /** First line of the then-branch's first statement. */
  thenLine: number | null;
  /** First line of the else-branch's first statement (or of an `else if`). */
  elseLine: number | null;
  /**
   * When the then-branch always leaves (return/goto/break/continue) and
   * there is no else: the flow past the `if` as line counts (flow.ts), or
   * why the statement tree does not give it.
   */
  flow: FlowRecipe | null;
  /** The condition sits on one line with no `&&`, `||` or `?:`, so the line carries exactly one test. */
  singleTest: boolean;
  /**
   * The condition calls a function (not a hint, `__builtin_*` or ALL_CAPS
   * macro): an inlined callee returns into the `if` line, which gcov then
   * counts again.
   */
  callsFunction: boolean;
  /** Where the `if`'s parts lie, for placing its compiled jumps (exact.ts); absent in sites built by hand. */
  regions?: IfRegions;
}

/** Lines `first..last`, 1-based and inclusive. */
export interface LineRange {
  first: number;
  last: number;
}

/**
 * The lines a jump of an `if` can lead to, telling its directions apart:
 * the then-branch, the else-branch, and, without an else, the head of the
 * statement after the `if` (where the flow past it lands).
 */
export interface IfRegions {
  /** The then-branch's lines after the condition's last; null when it starts on that line. */
  then: LineRange | null;
  else: LineRange | null;
  /** Without an else: the next statement with code, its first line to the end of its head (an `if`'s condition, a simple statement whole); null at the end of a block. */
  next: LineRange | null;
  /** The then-branch always leaves (return, goto, break, continue), so its jump may land anywhere outside the `if`. */
  thenLeaves: boolean;
}

/**
 * One line count of a flow equation: the entries into a statement.
 * `then`: lines of the statements that follow it straight (simple
 * statements, nothing jumps in or out between): when its own line has no
 * count (its code went to another line), the first of them with a count
 * has the same entries. `calls`: those of these lines whose code calls a
 * function, which may be inlined, and gcov counts a line again each time an
 * inlined callee returns into it; a line without a call is read first.
 * `test`: the statement is an `if` with one test on its line, so the sum of
 * that line's two arcs is its entries too.
 */
export interface FlowTerm {
  line: number;
  sign: 1 | -1;
  then?: number[];
  calls?: number[];
  test?: boolean;
}

/**
 * How often control went past an `if`, as a signed sum of line counts
 * (`+` the successor's entries, `-` its other predecessors), or why that
 * cannot be read (`refused`, with `terms` empty).
 */
export interface FlowRecipe {
  terms: FlowTerm[];
  refused: string | null;
  /** A term is a `return` line, which gcc may share with other returns: usable only when the `if` line's arcs confirm it. */
  needsArcs?: boolean;
}

/** One `if` statement of a C file. */
export interface IfSite {
  /** Path relative to the source root, `/`-separated. */
  file: string;
  /** 1-based line of the `if` keyword. */
  line: number;
  /** Enclosing function (`__do_sys_select` for SYSCALL_DEFINE bodies), or `` at file scope. */
  fn: string;
  /** Condition text without the outer parentheses, line breaks kept. */
  condition: string;
  /** The condition's `(` and `)`. */
  open: Point;
  close: Point;
  /** 1-based line of the condition's `)`. */
  endLine: number;
  annotation: Annotation;
  skip: SkipReason | null;
  layout: BranchLayout;
  /** Set by the static pass: an early error exit at the start of a syscall implementation. */
  heuristic: boolean;
}

/** An `if` written inside a `#define` body: tree-sitter sees only macro text there. */
export interface MacroIf {
  file: string;
  line: number;
  macro: string;
}

/** All that parsing one file yields. */
export interface FileSites {
  file: string;
  /** sha256 of the file's bytes, recorded so `--apply` can refuse a changed file. */
  sha256: string;
  lineCount: number;
  /** 1-based lines that hold only whitespace or comments. */
  blankLines: number[];
  sites: IfSite[];
  macroIfs: MacroIf[];
}

/** How a then-branch count was obtained. */
export type Confidence =
  | 'profiler' // the kernel's branch profiler counted the condition itself
  | 'exact' // the compiled jumps of the condition, counted by direction in the kernel as built
  | 'lines' // first statement of the then- or else-branch vs the `if` line
  | 'flow' // an exiting then-branch: the `if` line less the flow past it (flow.ts)
  | 'arcs' // only in JSON documents of earlier versions: a direction guessed from gcov's arcs, never produced now
  | 'heuristic' // no profile: static pattern only
  | 'none'; // the `if` ran, but no workload's counts tell which way it went

/** A workload that ran an `if` without telling which way it went. */
export interface Uncounted {
  workload: string;
  executions: number;
  reason: string;
}

/** One workload's evidence for one site. */
export interface Evidence {
  workload: string;
  executions: number;
  thenCount: number;
  confidence: Exclude<Confidence, 'heuristic' | 'none'>;
}

/** The branch profiler's counts for an `if` whose evidence came from gcov, in one workload. */
export interface ProfilerCheckCounts {
  workload: string;
  executions: number;
  thenCount: number;
}
