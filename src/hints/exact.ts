/**
 * An `if`'s compiled jumps and which way its condition went, from a branch
 * set of the kernel as built (exact-set.ts).
 *
 * The jumps of an `if` are those whose source line, in some frame of their
 * inline chain, is one of the condition's lines: one condition
 * (`!param || pid < 0`) compiles to several jumps, and an `if` inlined into
 * several callers or duplicated by the compiler has several copies. Each
 * copy (one inline context) is read on its own. Each way of a jump is
 * placed by the line its destination has in the same inline context:
 *
 * - `cond`: another test of the same condition;
 * - `then`: the then-branch's lines;
 * - `else`: the else-branch, or (no else) the head of the next statement;
 * - anywhere else, which only a then-branch that always leaves can explain
 *   (`return`, `goto`, `break` land outside the `if`; gcc often jumps
 *   straight to a shared return block), and only when another way of the
 *   copy was placed in `else` for certain.
 *
 * A copy whose ways do not fit that pattern gives no direction, and the
 * `if` is reported as direction-unknown: a wrong hint costs more than a
 * missing one.
 */
import type { Destination, ExactJump } from './exact-set.ts';
import type { InlineFrame as Frame } from '../vm/dwarf-lines.ts';
import type { IfRegions, IfSite, LineRange } from './types.ts';

/** Where one way of a jump leads, relative to its `if`. `leaves`: outside the `if`, the exit of a then-branch that always leaves. */
export type Way = 'cond' | 'then' | 'else' | 'leaves';

/** A jump of an `if` with where each of its ways leads. */
export interface PlacedJump {
  jump: ExactJump;
  /** The jump's line in the `if`'s frame. */
  line: number;
  taken: Way;
  fell: Way;
}

export type ExactResult =
  | { kind: 'counted'; executions: number; thenCount: number; jumps: PlacedJump[]; copies: number }
  | { kind: 'unknown'; executions: number; reason: string }
  | { kind: 'none' };

/** Jumps by `file:line` of any frame of their chain, with that frame's depth. */
export type JumpIndex = Map<string, { jump: ExactJump; depth: number }[]>;

/** Index a set's jumps by every source line of their inline chains. */
export function indexJumps(jumps: readonly ExactJump[]): JumpIndex {
  const index: JumpIndex = new Map();
  for (const jump of jumps) {
    jump.at.forEach((f, depth) => {
      const key = `${f.file}:${f.line}`;
      const list = index.get(key);
      if (list) list.push({ jump, depth });
      else index.set(key, [{ jump, depth }]);
    });
  }
  return index;
}

const within = (line: number, r: LineRange | null): boolean => r !== null && r.first <= line && line <= r.last;

const sameFrame = (a: Frame, b: Frame): boolean => a.function === b.function && a.file === b.file && a.line === b.line;

/** One copy of an `if`: the frames around it (its callers, outermost last) and the function it is in. */
interface Copy {
  outer: Frame[];
  fn: string;
  jumps: { jump: ExactJump; line: number }[];
}

function copyKey(outer: readonly Frame[], fn: string): string {
  return [fn, ...outer.map((f) => `${f.function}@${f.file}:${f.line}`)].join('<');
}

/** The jumps on the condition's lines, grouped by inline context. */
function copiesOf(site: IfSite, index: JumpIndex): Copy[] {
  const copies = new Map<string, Copy>();
  for (let line = site.line; line <= site.endLine; line++) {
    for (const { jump, depth } of index.get(`${site.file}:${line}`) ?? []) {
      const frame = jump.at[depth]!;
      if (frame.file !== site.file) continue;
      const outer = jump.at.slice(depth + 1);
      const key = copyKey(outer, frame.function);
      let copy = copies.get(key);
      if (!copy) copies.set(key, (copy = { outer, fn: frame.function, jumps: [] }));
      if (!copy.jumps.some((j) => j.jump === jump)) copy.jumps.push({ jump, line });
    }
  }
  return [...copies.values()];
}

/** The line a destination has in the copy's frame, or null when it lies outside that inline context. */
function lineInCopy(dest: Destination, copy: Copy, file: string): number | null {
  const at = dest.at;
  const idx = at.length - 1 - copy.outer.length;
  if (idx < 0) return null;
  for (let k = 0; k < copy.outer.length; k++) if (!sameFrame(at[idx + 1 + k]!, copy.outer[k]!)) return null;
  const f = at[idx]!;
  return f.function === copy.fn && f.file === file ? f.line : null;
}

/**
 * Where a destination lies relative to the `if`, before the jump's other
 * way is known. `exit`: on the condition's lines, but past every jump of
 * the copy, so no further test follows: the code the condition falls into.
 */
type Place = 'cond' | 'exit' | 'then' | 'else' | 'outside';

function placeOf(dest: Destination, copy: Copy, site: IfSite, r: IfRegions): Place {
  const line = lineInCopy(dest, copy, site.file);
  if (line === null) return 'outside';
  if (line >= site.line && line <= site.endLine) return copy.jumps.some((j) => j.jump.addr >= dest.addr) ? 'cond' : 'exit';
  if (within(line, r.then)) return 'then';
  if (within(line, r.else) || within(line, r.next)) return 'else';
  return 'outside';
}

/**
 * The ways of one jump from where its destinations lie, or null when they
 * do not fit a test of the condition. A way outside the `if` is the other
 * side of a way into the then-branch (an inlined helper's return folded
 * into its caller), or, for a then-branch that always leaves, the then
 * side of a way into the else side or on to the next test.
 */
function waysOf(a: Place, b: Place, thenLeaves: boolean): [Way, Way] | null {
  if (a === b) return a === 'cond' ? ['cond', 'cond'] : null;
  if (a === 'exit' || b === 'exit') {
    // the condition's own code runs on into one side: the one the other way does not take
    const other = a === 'exit' ? b : a;
    if (other !== 'then' && other !== 'else') return null;
    const exit: Way = other === 'then' ? 'else' : 'then';
    return a === 'exit' ? [exit, other] : [other, exit];
  }
  if (a !== 'outside' && b !== 'outside') return [a, b];
  const other = a === 'outside' ? b : a;
  if (other === 'outside') return null;
  const outside: Way | null = other === 'then' ? 'else' : thenLeaves ? 'leaves' : null;
  if (outside === null) return null;
  return a === 'outside' ? [outside, other] : [other, outside];
}

/**
 * Every execution of the `if` enters its condition once, at its first
 * test, and every other test is reached by a way into the condition: the
 * copy's jumps ran in all as often as that. A deduced way that was really
 * a further test (or a loop inside the condition) breaks the sum.
 */
function addsUp(copy: Copy, placed: readonly PlacedJump[]): boolean {
  const ran = copy.jumps.reduce((n, j) => n + j.jump.taken + j.jump.fell, 0);
  const inner = copy.jumps.reduce((n, j) => {
    const p = placed.find((x) => x.jump === j.jump);
    const taken = p ? p.taken === 'cond' : true;
    const fell = p ? p.fell === 'cond' : true;
    return n + (taken ? j.jump.taken : 0) + (fell ? j.jump.fell : 0);
  }, 0);
  const entries = ran - inner;
  return copy.jumps.some((j) => j.jump.taken + j.jump.fell === entries);
}

const hex = (a: bigint): string => a.toString(16);

/** Place one copy's jumps, or say why its ways do not fit the `if`. */
function placeCopy(copy: Copy, site: IfSite): PlacedJump[] | string {
  const r = site.layout.regions;
  if (!r) return 'the `if` has no branch on lines of its own';
  const placed: PlacedJump[] = [];
  for (const { jump, line } of copy.jumps) {
    const a = placeOf(jump.target, copy, site, r);
    const b = placeOf(jump.next, copy, site, r);
    const ways = waysOf(a, b, r.thenLeaves);
    const where = `the jump at ${jump.function}+0x${jump.offset.toString(16)} (line ${line})`;
    if (ways === null) {
      return a === b ? `${where} leads to ${a} both ways (${hex(jump.target.addr)}, ${hex(jump.next.addr)})` : `${where} leads to ${a} and ${b}, which no test of the condition does`;
    }
    if (ways[0] === 'cond' && ways[1] === 'cond') continue;
    placed.push({ jump, line, taken: ways[0], fell: ways[1] });
  }
  if (placed.length === 0) return 'no jump of the condition leaves it';
  const definite = (w: Way): boolean => w === 'then' || w === 'else';
  if (!placed.some((p) => definite(p.taken) || definite(p.fell))) return 'no jump leads into either branch';
  const guessed = placed.some((p) => (p.taken === 'leaves' && p.fell === 'cond') || (p.fell === 'leaves' && p.taken === 'cond'));
  if (guessed && !placed.some((p) => p.taken === 'else' || p.fell === 'else')) return 'no jump leads past the `if` where its next statement starts';
  if (!addsUp(copy, placed)) return 'its jumps did not run once per entry into the condition (a loop inside it, or a second way in)';
  return sidesAgree(placed, copy, site) ?? placed;
}

/**
 * Two ways that land on the same line (or, outside the copy, the same
 * address) must be on the same side: a deduction that puts one on the
 * then side and the other on the else side was wrong for one of them.
 */
function sidesAgree(placed: readonly PlacedJump[], copy: Copy, site: IfSite): string | null {
  const sides = new Map<string, 'then' | 'else'>();
  for (const p of placed) {
    for (const [way, dest] of [[p.taken, p.jump.target], [p.fell, p.jump.next]] as const) {
      if (way === 'cond') continue;
      const line = lineInCopy(dest, copy, site.file);
      const key = line === null ? `address ${hex(dest.addr)}` : `line ${line}`;
      const side = toThen(way) ? 'then' : 'else';
      const seen = sides.get(key);
      if (seen && seen !== side) return `${key} is reached both as the then side and as the else side`;
      sides.set(key, side);
    }
  }
  return null;
}

const toThen = (w: Way): boolean => w === 'then' || w === 'leaves';

/** Which way an `if` went in the kernel as built, summed over its compiled copies. */
export function exactEvidence(site: IfSite, index: JumpIndex): ExactResult {
  const copies = copiesOf(site, index);
  if (copies.length === 0) return { kind: 'none' };
  const jumps: PlacedJump[] = [];
  for (const copy of copies) {
    const placed = placeCopy(copy, site);
    if (typeof placed === 'string') {
      const ran = copies.reduce((n, c) => n + Math.max(...c.jumps.map((j) => j.jump.taken + j.jump.fell)), 0);
      return ran === 0 ? { kind: 'none' } : { kind: 'unknown', executions: ran, reason: `compiled jumps: ${placed}` };
    }
    jumps.push(...placed);
  }
  let thenCount = 0;
  let elseCount = 0;
  for (const p of jumps) {
    if (toThen(p.taken)) thenCount += p.jump.taken;
    if (toThen(p.fell)) thenCount += p.jump.fell;
    if (p.taken === 'else') elseCount += p.jump.taken;
    if (p.fell === 'else') elseCount += p.jump.fell;
  }
  const executions = thenCount + elseCount;
  return executions === 0 ? { kind: 'none' } : { kind: 'counted', executions, thenCount, jumps, copies: copies.length };
}

/** Whether the compiled common path of an `if` falls through: `already` (a hint would most likely change nothing) or `changes`. */
export type LayoutVerdict = 'already' | 'changes';

/** How the compiled code lays out an `if` against the side that runs most. */
export interface ExactLayout {
  verdict: LayoutVerdict;
  /** The side the counts (or the hint) make common. */
  common: 'then' | 'else';
  /** Taken jumps on the common path, per execution of the common side. */
  takenPerCommon: number;
  jumps: PlacedJump[];
}

/**
 * The layout verdict for `common`: the common path is every way of the
 * condition's jumps that does not lead straight to the other side; it
 * "jumps" when those ways are taken at least half as often as the common
 * side runs.
 */
export function layoutFor(jumps: readonly PlacedJump[], common: 'then' | 'else'): ExactLayout {
  const rare = (w: Way): boolean => (common === 'then' ? w === 'else' : toThen(w));
  let taken = 0;
  let commonRuns = 0;
  for (const p of jumps) {
    if (!rare(p.taken)) taken += p.jump.taken;
    const lands = (w: Way): boolean => (common === 'then' ? toThen(w) : w === 'else');
    if (lands(p.taken)) commonRuns += p.jump.taken;
    if (lands(p.fell)) commonRuns += p.jump.fell;
  }
  const takenPerCommon = commonRuns === 0 ? 0 : taken / commonRuns;
  return { verdict: takenPerCommon >= 0.5 ? 'changes' : 'already', common, takenPerCommon, jumps: [...jumps] };
}
