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
import type { IfSite } from './types.ts';

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
  for (const [i, t] of flow.terms.entries()) {
    // A line without a count passes its entries on to the statements that follow it straight.
    const at = [t.line, ...(t.then ?? [])].find((l) => lines.has(l));
    if (at === undefined) return unknown(`line ${t.line} of the flow past the if has no count`);
    past += t.sign * (lines.get(at)?.count ?? 0);
    used.push(`${t.sign < 0 ? ' - ' : i ? ' + ' : ''}line ${at}`);
  }
  const equation = used.join('');
  if (past < 0 || past > ran.executions) return unknown(`the flow past the if (${equation} = ${past}) does not fit ${ran.executions} executions`);
  // With one test, control leaves each copy of the if line (gcc inlines a
  // function into several callers) along one arc of its pair or the other:
  // the flow must be one arc of each pair (which one is not read from them).
  const arcs = ifLine.arcs.filter((a) => !a.throw).map((a) => a.count);
  const checkable = site.layout.singleTest && arcs.length > 0 && arcs.length % 2 === 0 && arcs.length <= 24;
  if (checkable && !onePerPair(arcs, past)) {
    return unknown(`the flow past the if (${equation} = ${past}) is not one arc of each of line ${site.line}'s ${arcs.length / 2} arc pair(s), so a line count holds re-entries or merged code`);
  }
  if (flow.needsArcs && !checkable) {
    return unknown(`the flow past the if (${equation}) counts a return line, which gcc may share with other returns, and line ${site.line}'s arcs cannot confirm it`);
  }
  return {
    kind: 'counted',
    executions: ran.executions,
    thenCount: ran.executions - past,
    confidence: 'flow',
    method: `then = ${ran.how} - flow past the if (${equation} = ${past})`,
  };
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

