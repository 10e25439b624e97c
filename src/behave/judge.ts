/**
 * The A-repeats rule, one scenario (and the consoles) at a time: a step of
 * B is judged against A only where A's two boots agree on it.
 *
 *   A = A again = B       identical
 *   A = A again != B      a divergence (A repeated itself, B did not)
 *   A != A again          not judged, whatever B did (both A values kept)
 *
 * Invariant: no divergence is ever drawn from a step, an end status or a
 * kernel warning that A did not repeat; such a thing is listed as not
 * judged instead, so the report can name it.
 */
import type { ScenarioTrace, TraceStep } from './trace.ts';

export interface StepOutcome {
  ret: string;
  errno: string;
  out: string;
}

/** One field that differs: `ret`, `errno`, `out`, or `<who>.<field>` of the state (self.runtime). */
export interface FieldDifference {
  field: string;
  a: string | null;
  b: string | null;
}

export interface PriorStep {
  step: number;
  call: string;
  outcome: StepOutcome;
}

/** Where a step is: its scenario, its number, its line of the scenario source, its call. */
export interface StepPlace {
  scenario: string;
  step: number;
  line: number;
  call: string;
}

export type Divergence =
  | (StepPlace & {
      kind: 'step';
      a: StepOutcome;
      b: StepOutcome;
      differences: FieldDifference[];
      /** The steps just before it (from A's trace), oldest first. */
      before: PriorStep[];
    })
  /** One trace has steps the other has not (or different calls at a step: the scenarios are not the same). */
  | { kind: 'missing'; scenario: string; step: number; presentIn: 'A' | 'B'; call: string }
  /** The scenario's process (or program) ended differently: its exit status on each side. */
  | { kind: 'end'; scenario: string; a: number | null; b: number | null }
  | { kind: 'splat'; kernel: 'A' | 'B'; lines: string[] };

/** What A's two boots did not repeat: no verdict on B is drawn from it. */
export type NotJudged =
  | (StepPlace & {
      kind: 'step';
      a: StepOutcome;
      aAgain: StepOutcome;
      /** What differs between A and A again (`a` is A's value, `b` A again's). */
      differences: FieldDifference[];
    })
  /** A's two boots have different steps from `step` on: the rest of the scenario (`steps` steps) is not judged. */
  | { kind: 'missing'; scenario: string; step: number; steps: number; call: string }
  | { kind: 'end'; scenario: string; a: number | null; aAgain: number | null }
  /** A kernel warning on one boot of A only. */
  | { kind: 'splat'; lines: string[] };

/** Steps shown before a divergence. */
const CONTEXT_STEPS = 3;

function outcome(s: TraceStep): StepOutcome {
  return { ret: s.ret, errno: s.errno, out: s.out };
}

/** Every field of two steps' outcomes and states that differs (`a` from the first step, `b` from the second). */
export function differences(a: TraceStep, b: TraceStep): FieldDifference[] {
  const out: FieldDifference[] = [];
  for (const f of ['ret', 'errno', 'out'] as const) if (a[f] !== b[f]) out.push({ field: f, a: a[f], b: b[f] });
  const who = [...new Set([...Object.keys(a.state), ...Object.keys(b.state)])];
  for (const w of who) {
    const fa = a.state[w] ?? {};
    const fb = b.state[w] ?? {};
    for (const k of [...new Set([...Object.keys(fa), ...Object.keys(fb)])]) {
      if (fa[k] !== fb[k]) out.push({ field: `${w}.${k}`, a: fa[k] ?? null, b: fb[k] ?? null });
    }
  }
  return out;
}

export interface ScenarioJudgement {
  /** Steps compared (step 0, the state before the first call, is not counted). */
  steps: number;
  divergences: Divergence[];
  notJudged: NotJudged[];
}

/** One scenario of A, B and A again, step by step; stops at the first step the traces do not all hold. */
export function judgeScenario(a: ScenarioTrace, b: ScenarioTrace, aAgain: ScenarioTrace): ScenarioJudgement {
  // the steps A's first boot and B both hold; those A again lacks are counted as not judged
  const steps = Math.max(0, Math.min(a.steps.length, b.steps.length) - 1);
  const divergences: Divergence[] = [];
  const notJudged: NotJudged[] = [];
  const n = Math.max(a.steps.length, b.steps.length, aAgain.steps.length);
  for (let i = 0; i < n; i++) {
    const [sa, sb, s2] = [a.steps[i], b.steps[i], aAgain.steps[i]];
    if (!sa && !s2) {
      // A ended here on both boots; B goes on
      if (sb) divergences.push({ kind: 'missing', scenario: a.name, step: sb.n, presentIn: 'B', call: sb.call });
      break;
    }
    if (!sa || !s2 || sa.call !== s2.call) {
      const present = (sa ?? s2)!;
      notJudged.push({ kind: 'missing', scenario: a.name, step: present.n, steps: Math.max(0, steps - i + 1), call: present.call });
      break;
    }
    const varied = differences(sa, s2);
    if (varied.length) {
      notJudged.push({ kind: 'step', scenario: a.name, step: sa.n, line: sa.line, call: sa.call, a: outcome(sa), aAgain: outcome(s2), differences: varied });
      if (sb && sb.call === sa.call) continue;
    }
    if (!sb || sb.call !== sa.call) {
      divergences.push({ kind: 'missing', scenario: a.name, step: sa.n, presentIn: 'A', call: sa.call });
      break;
    }
    const diff = differences(sa, sb);
    if (diff.length) {
      const before = a.steps.slice(Math.max(1, i - CONTEXT_STEPS), i).map((s) => ({ step: s.n, call: s.call, outcome: outcome(s) }));
      divergences.push({ kind: 'step', scenario: a.name, step: sa.n, line: sa.line, call: sa.call, a: outcome(sa), b: outcome(sb), differences: diff, before });
    }
  }
  if (a.status !== aAgain.status) notJudged.push({ kind: 'end', scenario: a.name, a: a.status, aAgain: aAgain.status });
  else if (a.status !== b.status) divergences.push({ kind: 'end', scenario: a.name, a: a.status, b: b.status });
  return { steps, divergences, notJudged };
}

/**
 * A warning's first line without what changes from boot to boot and from
 * image to image (CPU, PID, offsets within a function), so the same
 * warning on two boots or two builds is recognised.
 */
export function splatSignature(lines: readonly string[]): string {
  return (lines[0] ?? '')
    .replace(/^\[\s*\d+\.\d+\]\s*/, '')
    .replace(/\b(CPU|PID): \d+/g, '$1: _')
    .replace(/\+0x[0-9a-f]+\/0x[0-9a-f]+/g, '')
    .trim();
}

/** Kernel warnings: on B and on neither boot of A, or on both boots of A and not B, a divergence; on one boot of A only, not judged. */
export function judgeSplats(a: string[][], b: string[][], aAgain: string[][]): { divergences: Divergence[]; notJudged: NotJudged[]; shared: string[][] } {
  const signatures = (t: string[][]) => new Set(t.map(splatSignature));
  const [inA, inB, inAgain] = [signatures(a), signatures(b), signatures(aAgain)];
  const divergences: Divergence[] = [];
  const notJudged: NotJudged[] = [];
  const shared: string[][] = [];
  for (const lines of a) {
    const sig = splatSignature(lines);
    if (!inAgain.has(sig)) notJudged.push({ kind: 'splat', lines });
    else if (!inB.has(sig)) divergences.push({ kind: 'splat', kernel: 'A', lines });
    else shared.push(lines);
  }
  for (const lines of aAgain) if (!inA.has(splatSignature(lines))) notJudged.push({ kind: 'splat', lines });
  for (const lines of b) {
    const sig = splatSignature(lines);
    if (!inA.has(sig) && !inAgain.has(sig)) divergences.push({ kind: 'splat', kernel: 'B', lines });
  }
  return { divergences, notJudged, shared };
}
