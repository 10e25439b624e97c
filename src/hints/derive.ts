/**
 * From gcov line counts to "how often did the then-branch run".
 *
 * gcov's arcs do not say which way the source condition went: the compiler
 * inverts and splits conditions, and which arc falls through is a layout
 * fact, not a truth value. Line counts have no such ambiguity: the first
 * statement of the then-branch runs exactly when the condition held. So
 * lines come first, then flow conservation (flow.ts) for a then-branch that
 * leaves without a line count of its own; arcs never give a direction.
 */
import type { LineCounts } from './gcov.ts';
import type { FlowTerm, IfSite } from './types.ts';

/** A then-branch count, or why none could be read. */
export type Derived =
  | { kind: 'counted'; executions: number; thenCount: number; confidence: 'lines' | 'flow'; method: string }
  | { kind: 'not-compiled' } // no line entry: the `if` was not in the object (#ifdef'd out, not built)
  | { kind: 'unknown'; executions: number; reason: string };

/**
 * Derive the then-branch count of `site` from one file's line counts.
 * Methods, in order: then-branch first line; else-branch first line; flow
 * conservation past an `if` whose then-branch always leaves. Arcs never
 * give a direction: they are only quoted when nothing else does.
 */
export function deriveFromLines(site: IfSite, lines: ReadonlyMap<number, LineCounts>): Derived {
  const ifLine = lines.get(site.line);
  if (!ifLine) return { kind: 'not-compiled' };
  const { thenLine, elseLine } = site.layout;
  const count = (line: number | null): number | undefined => (line === null ? undefined : lines.get(line)?.count);
  const thenRan = count(thenLine);
  const elseRan = count(elseLine);
  // The statement right after an exiting then-branch runs exactly when the condition was false.
  const flow = site.layout.flow;
  const afterLine = flow?.terms.length === 1 && flow.terms[0]?.sign === 1 ? flow.terms[0].line : null;
  const otherLine = elseLine ?? afterLine;
  const executions = site.layout.callsFunction ? executionsOf(ifLine, thenRan, count(otherLine)) : ifLine.count;
  // Said in the method so a reader comparing with gcov's own output sees why.
  const recount =
    executions < ifLine.count ? `; executions = line ${thenLine} + line ${otherLine}, gcov's ${ifLine.count} for line ${site.line} counts re-entries` : '';
  if (thenRan !== undefined && thenRan <= executions) {
    return { kind: 'counted', executions, thenCount: thenRan, confidence: 'lines', method: `then-branch line ${thenLine}${recount}` };
  }
  if (elseRan !== undefined && elseRan <= executions) {
    return { kind: 'counted', executions, thenCount: executions - elseRan, confidence: 'lines', method: `else-branch line ${elseLine}${recount}` };
  }
  return fromFlow(site, ifLine, lines);
}

/** How often the `if` ran, for a flow equation: gcov's count, or its two arcs when the condition may be re-entered. */
function flowExecutions(site: IfSite, ifLine: LineCounts): { executions: number; how: string } | string {
  if (!site.layout.callsFunction) return { executions: ifLine.count, how: `line ${site.line}` };
  const arcs = ifLine.arcs.filter((a) => !a.throw);
  if (site.layout.singleTest && arcs.length === 2) {
    return { executions: arcs.reduce((n, a) => n + a.count, 0), how: `line ${site.line}'s two arcs (gcov's ${ifLine.count} may count re-entries)` };
  }
  return `the condition calls a function, so gcov's ${ifLine.count} for line ${site.line} may count re-entries, and ${arcs.length} arcs do not give the executions`;
}

function fromFlow(site: IfSite, ifLine: LineCounts, lines: ReadonlyMap<number, LineCounts>): Derived {
  const flow = site.layout.flow;
  const unknown = (why: string): Derived => ({ kind: 'unknown', executions: ifLine.count, reason: `${why}${arcsInfo(ifLine)}` });
  if (!flow) return unknown('no branch line has a count');
  if (flow.refused) return unknown(`no flow past the exiting then-branch: ${flow.refused}`);
  const ran = flowExecutions(site, ifLine);
  if (typeof ran === 'string') return unknown(ran);
  let past = 0;
  const used: string[] = [];
  const inflatable: number[] = [];
  for (const [i, t] of flow.terms.entries()) {
    const c = termCount(t, lines);
    if (c === null) return unknown(`line ${t.line} of the flow past the if has no count`);
    if (c.inflatable) inflatable.push(c.line);
    past += t.sign * c.count;
    used.push(`${t.sign < 0 ? ' - ' : i ? ' + ' : ''}${c.how}`);
  }
  const equation = used.join('');
  if (past < 0 || past > ran.executions) return unknown(`the flow past the if (${equation} = ${past}) does not fit ${ran.executions} executions`);
  const check = checkArcs(site, lines, past, ran.executions - past);
  if (check.kind === 'failed') return unknown(`the flow past the if (${equation} = ${past}) ${check.why}, so a line count holds re-entries or merged code`);
  if (check.kind === 'unchecked' && flow.needsArcs) {
    return unknown(`the flow past the if (${equation}) counts a return line, which gcc may share with other returns, and line ${site.line}'s arcs cannot confirm it`);
  }
  if (check.kind === 'unchecked' && inflatable.length > 0) {
    const at = inflatable.map((l) => `line ${l}`).join(', ');
    return unknown(`the flow past the if (${equation}) counts ${at}, which calls a function (gcov counts it again each time an inlined callee returns into it), and line ${site.line}'s arcs cannot confirm it`);
  }
  return {
    kind: 'counted',
    executions: ran.executions,
    thenCount: ran.executions - past,
    confidence: 'flow',
    method: `then = ${ran.how} - flow past the if (${equation} = ${past})`,
  };
}

/**
 * The entries into a flow term's statement: the first of its line and the
 * lines that follow it straight that has a count and calls no function;
 * else the sum of its two arcs (an `if` with one test: each entry leaves
 * along one of them); else a line whose count may hold re-entries of an
 * inlined callee (`inflatable`: only the arcs check can clear it).
 */
function termCount(t: FlowTerm, lines: ReadonlyMap<number, LineCounts>): { count: number; line: number; how: string; inflatable: boolean } | null {
  const counted = [t.line, ...(t.then ?? [])].filter((l) => lines.has(l));
  const calls = new Set(t.calls ?? []);
  const clean = counted.find((l) => !calls.has(l));
  if (clean !== undefined) return { count: lines.get(clean)?.count ?? 0, line: clean, how: `line ${clean}`, inflatable: false };
  const arcs = (lines.get(t.line)?.arcs ?? []).filter((a) => !a.throw);
  if (t.test && arcs.length === 2) {
    return { count: arcs.reduce((n, a) => n + a.count, 0), line: t.line, how: `line ${t.line}'s two arcs`, inflatable: false };
  }
  const first = counted[0];
  return first === undefined ? null : { count: lines.get(first)?.count ?? 0, line: first, how: `line ${first}`, inflatable: true };
}

/** The arcs of the `if`'s condition lines as a check of a flow equation: passed, failed (why), or nothing to check. */
type ArcCheck = { kind: 'passed' } | { kind: 'failed'; why: string } | { kind: 'unchecked' };

/** Largest number of arcs the separate-sums check enumerates (3^n assignments at worst). */
const MAX_SUM_ARCS = 12;

/**
 * Control leaves an `if`'s condition along its arcs: the false runs along
 * some of them to the statement after it, the true runs along others to
 * the then-branch. With one test per line, each copy of the line (gcc
 * inlines a function into several callers) has one arc pair, and the flow
 * is one arc of each pair. With several tests (`a || b`, a condition over
 * several lines), the flow and the then-count must be sums of separate
 * arcs of the condition's lines. Either is a necessary condition only: it
 * catches a line count inflated by re-entries or merged code, it never
 * gives a direction.
 */
function checkArcs(site: IfSite, lines: ReadonlyMap<number, LineCounts>, past: number, then: number): ArcCheck {
  const arcsOf = (l: number): number[] => (lines.get(l)?.arcs ?? []).filter((a) => !a.throw).map((a) => a.count);
  if (site.layout.singleTest) {
    const arcs = arcsOf(site.line);
    if (arcs.length === 0 || arcs.length % 2 !== 0 || arcs.length > 24) return { kind: 'unchecked' };
    return onePerPair(arcs, past) ? { kind: 'passed' } : { kind: 'failed', why: `is not one arc of each of line ${site.line}'s ${arcs.length / 2} arc pair(s)` };
  }
  const arcs: number[] = [];
  for (let l = site.line; l <= site.endLine; l++) arcs.push(...arcsOf(l));
  if (arcs.length === 0 || arcs.length > MAX_SUM_ARCS) return { kind: 'unchecked' };
  const where = site.endLine > site.line ? `lines ${site.line}-${site.endLine}` : `line ${site.line}`;
  return separateSums(arcs, past, then) ? { kind: 'passed' } : { kind: 'failed', why: `and the then-branch's ${then} are not sums of separate arcs of ${where}` };
}

/** Whether two disjoint subsets of `arcs` sum to `a` and `b`. */
function separateSums(arcs: number[], a: number, b: number): boolean {
  let pairs = new Set(['0,0']);
  for (const c of arcs) {
    const next = new Set(pairs);
    for (const p of pairs) {
      const [x = 0, y = 0] = p.split(',').map(Number);
      if (x + c <= a) next.add(`${x + c},${y}`);
      if (y + c <= b) next.add(`${x},${y + c}`);
    }
    pairs = next;
  }
  return pairs.has(`${a},${b}`);
}

/** Whether `total` is the sum of one arc out of each consecutive pair. */
function onePerPair(arcs: number[], total: number): boolean {
  let sums = new Set([0]);
  for (let i = 0; i < arcs.length; i += 2) {
    const next = new Set<number>();
    for (const s of sums) for (const a of [arcs[i] ?? 0, arcs[i + 1] ?? 0]) if (s + a <= total) next.add(s + a);
    sums = next;
  }
  return sums.has(total);
}

/** The arcs as information only: they do not say which way the condition went. */
function arcsInfo(ifLine: LineCounts): string {
  const arcs = ifLine.arcs.filter((a) => !a.throw);
  if (arcs.length === 0) return '';
  return ` (arcs, not a direction: ${arcs.map((a) => `${a.fallthrough ? 'fall-through' : 'jump'} ${a.count}`).join(', ')})`;
}

/**
 * How often an `if` whose condition calls a function ran. gcov's count for
 * a line is the number of times control entered the line's blocks from
 * another line, so a condition that calls an inlined function (whose blocks
 * carry the callee's lines) is counted again each time the callee returns
 * into it. Every execution goes
 * to exactly one of the then-branch and the else (or after-exit) statement,
 * so their sum is the count, unless one of them lost its code to the
 * optimizer (a constant-folded `if (IS_ENABLED(...))` after the `if` has no
 * block and counts 0). Every arc of the `if` line leaves a block that runs
 * at most once per execution, so the largest arc is a lower bound: the sum
 * is used only when it lies between that and gcov's count.
 */
function executionsOf(ifLine: LineCounts, thenRan: number | undefined, otherRan: number | undefined): number {
  const arcs = ifLine.arcs.filter((a) => !a.throw).map((a) => a.count);
  if (thenRan === undefined || otherRan === undefined || arcs.length === 0) return ifLine.count;
  const sum = thenRan + otherRan;
  return sum < ifLine.count && sum >= Math.max(...arcs) ? sum : ifLine.count;
}

