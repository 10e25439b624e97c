/**
 * Two traces compared step by step into one versioned document
 * (BEHAVE_SCHEMA), which every output only formats (src/report/behave.ts).
 *
 * A step is identical when its call, return value, errno, the call's own
 * outputs and every state field of every task are identical. A kernel
 * warning or splat on either console is a divergence of its own.
 *
 * Format history (BEHAVE_SCHEMA):
 *   1: first version.
 */
import type { ScenarioTrace, Trace, TraceStep } from './trace.ts';

export const BEHAVE_SCHEMA = 1;

/** One kernel's side of the comparison. */
export interface BehaveKernel {
  label: string;
  image: string;
  /** sha256 of the image file. */
  imageSha256: string;
  kernelRelease: string | null;
  /** The stored trace's key (what determines it: image, scenarios, runner build, icount). */
  traceKey: string;
  /** The trace came from the store: nothing booted. */
  reused: boolean;
  /** qemu start to exit of the boot that made the trace (seconds, host wall clock). */
  bootSeconds: number | null;
}

export interface ScenarioResult {
  name: string;
  /** `built-in`, a scenario file's path, or `program:PATH`. */
  source: string;
  state: 'compared' | 'not-run';
  /** Steps compared (step 0, the state before the first call, is not counted). */
  steps: number;
  /** Why a scenario did not run (it needs two CPUs; icount guests have one). */
  reason?: string;
}

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

export type Divergence =
  | {
      kind: 'step';
      scenario: string;
      step: number;
      line: number;
      call: string;
      a: StepOutcome;
      b: StepOutcome;
      differences: FieldDifference[];
      /** The steps just before it (from A's trace), oldest first. */
      before: PriorStep[];
    }
  /** One trace has steps the other has not (or different calls at a step: the scenarios are not the same). */
  | { kind: 'missing'; scenario: string; step: number; presentIn: 'A' | 'B'; call: string }
  /** The scenario's process (or program) ended differently: its exit status on each side. */
  | { kind: 'end'; scenario: string; a: number | null; b: number | null }
  | { kind: 'splat'; kernel: 'A' | 'B'; lines: string[] };

export interface BehaveDocument {
  schema: typeof BEHAVE_SCHEMA;
  kind: 'hintlab-behave';
  a: BehaveKernel;
  b: BehaveKernel;
  /** The guests' conditions: qemu icount, one CPU, the runner (probe) build. */
  guest: { icount: boolean; cpus: number; runnerBuild: string };
  scenarios: ScenarioResult[];
  /** Steps compared in all. */
  steps: number;
  identical: boolean;
  divergences: Divergence[];
}

/** Steps shown before a divergence. */
const CONTEXT_STEPS = 3;

function outcome(s: TraceStep): StepOutcome {
  return { ret: s.ret, errno: s.errno, out: s.out };
}

function differences(a: TraceStep, b: TraceStep): FieldDifference[] {
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

/** Compare one scenario's steps; returns the divergences and the number of steps compared. */
export function compareScenario(a: ScenarioTrace, b: ScenarioTrace): { steps: number; divergences: Divergence[] } {
  const divergences: Divergence[] = [];
  const n = Math.max(a.steps.length, b.steps.length);
  for (let i = 0; i < n; i++) {
    const sa = a.steps[i];
    const sb = b.steps[i];
    if (!sa || !sb || sa.call !== sb.call) {
      const present = (sa ?? sb)!;
      divergences.push({ kind: 'missing', scenario: a.name, step: present.n, presentIn: sa ? 'A' : 'B', call: present.call });
      break;
    }
    const diff = differences(sa, sb);
    if (diff.length) {
      const before = a.steps.slice(Math.max(1, i - CONTEXT_STEPS), i).map((s) => ({ step: s.n, call: s.call, outcome: outcome(s) }));
      divergences.push({ kind: 'step', scenario: a.name, step: sa.n, line: sa.line, call: sa.call, a: outcome(sa), b: outcome(sb), differences: diff, before });
    }
  }
  if (a.status !== b.status) divergences.push({ kind: 'end', scenario: a.name, a: a.status, b: b.status });
  return { steps: Math.max(0, Math.min(a.steps.length, b.steps.length) - 1), divergences };
}

export interface CompareInput {
  a: BehaveKernel;
  b: BehaveKernel;
  traceA: Trace;
  traceB: Trace;
  /** Scenarios in run order, with where they came from; not-run ones carry their reason. */
  scenarios: { name: string; source: string; notRun?: string }[];
  guest: BehaveDocument['guest'];
}

/** The comparison document of two traces of the same scenarios. */
export function compareTraces(input: CompareInput): BehaveDocument {
  const scenarios: ScenarioResult[] = [];
  const divergences: Divergence[] = [];
  for (const s of input.scenarios) {
    if (s.notRun) {
      scenarios.push({ name: s.name, source: s.source, state: 'not-run', steps: 0, reason: s.notRun });
      continue;
    }
    const empty: ScenarioTrace = { name: s.name, steps: [], status: null };
    const ta = input.traceA.scenarios.find((x) => x.name === s.name) ?? empty;
    const tb = input.traceB.scenarios.find((x) => x.name === s.name) ?? empty;
    const r = compareScenario(ta, tb);
    scenarios.push({ name: s.name, source: s.source, state: 'compared', steps: r.steps });
    divergences.push(...r.divergences);
  }
  for (const [kernel, t] of [['A', input.traceA], ['B', input.traceB]] as const) {
    for (const lines of t.splats) divergences.push({ kind: 'splat', kernel, lines });
  }
  const steps = scenarios.reduce((n, s) => n + s.steps, 0);
  return { schema: BEHAVE_SCHEMA, kind: 'hintlab-behave', a: input.a, b: input.b, guest: input.guest, scenarios, steps, identical: divergences.length === 0, divergences };
}
