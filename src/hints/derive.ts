/**
 * From gcov line counts to "how often did the then-branch run".
 *
 * gcov's arcs do not say which way the source condition went: GCC may lay
 * the then-branch on either arc (a then-branch that is a bare `return` is
 * lowered to a jump to the shared return block, so its arc is the *jump*
 * one). Line counts have no such ambiguity: the first statement of the
 * then-branch runs exactly when the condition held. So lines come first,
 * and arcs only when the layout leaves nothing else.
 */
import type { LineCounts } from './gcov.ts';
import type { IfSite } from './types.ts';

/** A then-branch count, or why none could be read. */
export type Derived =
  | { kind: 'counted'; executions: number; thenCount: number; confidence: 'lines' | 'arcs'; method: string }
  | { kind: 'not-compiled' } // no line entry: the `if` was not in the object (#ifdef'd out, not built)
  | { kind: 'unknown'; executions: number; reason: string };

/**
 * Derive the then-branch count of `site` from one file's line counts.
 * Methods, in order: then-branch first line; else-branch first line; the
 * statement after a then-branch that always leaves; the two arcs of a
 * single-test line.
 */
export function deriveFromLines(site: IfSite, lines: ReadonlyMap<number, LineCounts>): Derived {
  const ifLine = lines.get(site.line);
  if (!ifLine) return { kind: 'not-compiled' };
  const { thenLine, elseLine, afterExitLine } = site.layout;
  const count = (line: number | null): number | undefined => (line === null ? undefined : lines.get(line)?.count);
  const thenRan = count(thenLine);
  const otherLine = elseLine ?? afterExitLine;
  const otherRan = count(otherLine);
  const executions = site.layout.callsFunction ? executionsOf(ifLine, thenRan, otherRan) : ifLine.count;
  // Said in the method so a reader comparing with gcov's own output sees why.
  const recount =
    executions < ifLine.count ? `; executions = line ${thenLine} + line ${otherLine}, gcov's ${ifLine.count} for line ${site.line} counts re-entries` : '';
  if (thenRan !== undefined && thenRan <= executions) {
    return { kind: 'counted', executions, thenCount: thenRan, confidence: 'lines', method: `then-branch line ${thenLine}${recount}` };
  }
  if (otherRan !== undefined && otherRan <= executions) {
    const method = elseLine !== null ? `else-branch line ${elseLine}` : `line ${afterExitLine} after an exiting then-branch`;
    return { kind: 'counted', executions, thenCount: executions - otherRan, confidence: 'lines', method: method + recount };
  }
  return fromArcs(site, ifLine);
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

function fromArcs(site: IfSite, ifLine: LineCounts): Derived {
  const executions = ifLine.count;
  const arcs = ifLine.arcs.filter((a) => !a.throw);
  if (arcs.length === 0) {
    return { kind: 'unknown', executions, reason: 'no branch line counts and no arcs (run gcov with -b)' };
  }
  if (!site.layout.singleTest || arcs.length !== 2) {
    return { kind: 'unknown', executions, reason: `${arcs.length} arcs on line ${site.line}: cannot tell the then-branch's` };
  }
  const fall = arcs.find((a) => a.fallthrough);
  const jump = arcs.find((a) => !a.fallthrough);
  if (!fall || !jump) return { kind: 'unknown', executions, reason: 'arcs without a fall-through/jump pair' };
  // GCC instruments its early CFG, where the then-block follows the test,
  // except for a bare `return`, which it lowers to a jump.
  const thenArc = site.layout.thenIsReturn ? jump : fall;
  return {
    kind: 'counted',
    executions: fall.count + jump.count,
    thenCount: thenArc.count,
    confidence: 'arcs',
    method: site.layout.thenIsReturn ? 'jump arc (then-branch is a bare return)' : 'fall-through arc',
  };
}
