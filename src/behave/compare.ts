/**
 * Three traces (A, B, A again) compared step by step into one versioned
 * document (BEHAVE_SCHEMA), which every output only formats
 * (src/report/behave.ts).
 *
 * Two outcomes of a step are alike when the call, return value, errno, the
 * call's own outputs and every state field of every task are. A step is
 * judged only where A's two boots are alike (./judge.ts): then it is
 * identical when B is alike too and a divergence when B differs; where A's
 * boots differ, the step is not judged, whatever B did. A kernel warning
 * is judged the same way, by its first line without numbers that change
 * from boot to boot.
 *
 * Format history (BEHAVE_SCHEMA):
 *   1: first version (A booted once).
 *   2: `aAgain` (the second boot of A) and `notJudged` (what A did not
 *      repeat); `identical` is also false when something was not judged.
 *      A schema-1 document reads as A booted once (`readBehaveDocument`).
 */
import { UserError } from '../errors.ts';
import { judgeScenario, judgeSplats, type Divergence, type NotJudged } from './judge.ts';

import type { ScenarioTrace, Trace } from './trace.ts';

export const BEHAVE_SCHEMA = 2;

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

export interface BehaveDocument {
  schema: typeof BEHAVE_SCHEMA;
  kind: 'hintlab-behave';
  a: BehaveKernel;
  b: BehaveKernel;
  /** The second boot of A, after B; null in a schema-1 document (A booted once, its repeats unknown). */
  aAgain: BehaveKernel | null;
  /** The guests' conditions: qemu icount, one CPU, the runner (probe) build. */
  guest: { icount: boolean; cpus: number; runnerBuild: string };
  scenarios: ScenarioResult[];
  /** Steps compared in all (those not judged included). */
  steps: number;
  /** No divergence and nothing left unjudged. */
  identical: boolean;
  /** Where A repeated itself and B differs. */
  divergences: Divergence[];
  notJudged: NotJudged[];
  /** Kernel warnings on every boot, A's and B's alike: no divergence, but never hidden. */
  sharedSplats: string[][];
}

export interface CompareInput {
  a: BehaveKernel;
  b: BehaveKernel;
  aAgain: BehaveKernel;
  traceA: Trace;
  traceB: Trace;
  traceAAgain: Trace;
  /** Scenarios in run order, with where they came from; not-run ones carry their reason. */
  scenarios: { name: string; source: string; notRun?: string }[];
  guest: BehaveDocument['guest'];
}

/** Steps that could not be judged: each unjudged step, and the rest of a scenario after A's boots parted. */
export function notJudgedSteps(doc: BehaveDocument): number {
  return doc.notJudged.reduce((n, u) => n + (u.kind === 'step' ? 1 : u.kind === 'missing' ? u.steps : 0), 0);
}

/** The comparison document of three traces (A, B, A again) of the same scenarios. */
export function compareTraces(input: CompareInput): BehaveDocument {
  const scenarios: ScenarioResult[] = [];
  const divergences: Divergence[] = [];
  const notJudged: NotJudged[] = [];
  const empty = (name: string): ScenarioTrace => ({ name, steps: [], status: null });
  const find = (t: Trace, name: string) => t.scenarios.find((x) => x.name === name) ?? empty(name);
  for (const s of input.scenarios) {
    if (s.notRun) {
      scenarios.push({ name: s.name, source: s.source, state: 'not-run', steps: 0, reason: s.notRun });
      continue;
    }
    const r = judgeScenario(find(input.traceA, s.name), find(input.traceB, s.name), find(input.traceAAgain, s.name));
    scenarios.push({ name: s.name, source: s.source, state: 'compared', steps: r.steps });
    divergences.push(...r.divergences);
    notJudged.push(...r.notJudged);
  }
  const splats = judgeSplats(input.traceA.splats, input.traceB.splats, input.traceAAgain.splats);
  divergences.push(...splats.divergences);
  notJudged.push(...splats.notJudged);
  const steps = scenarios.reduce((n, s) => n + s.steps, 0);
  return {
    schema: BEHAVE_SCHEMA, kind: 'hintlab-behave', a: input.a, b: input.b, aAgain: input.aAgain, guest: input.guest, scenarios, steps,
    identical: divergences.length === 0 && notJudged.length === 0, divergences, notJudged, sharedSplats: splats.shared,
  };
}

/**
 * A stored comparison document, as the current schema: a schema-1 document
 * (A booted once) gets `aAgain: null` and nothing unjudged, and says so
 * when reported; a newer schema is refused.
 */
export function readBehaveDocument(json: unknown, where: string): BehaveDocument {
  const doc = json as (Partial<Omit<BehaveDocument, 'schema' | 'kind'>> & { schema?: unknown; kind?: unknown }) | null;
  if (doc?.kind !== 'hintlab-behave' || typeof doc.schema !== 'number') throw new UserError(`${where}: not a behaviour comparison (no kind 'hintlab-behave' with a schema)`);
  if (doc.schema > BEHAVE_SCHEMA) throw new UserError(`${where}: behaviour comparison schema ${doc.schema} is newer than this hintlab reads (${BEHAVE_SCHEMA}); upgrade hintlab`);
  if (doc.schema === BEHAVE_SCHEMA) return doc as BehaveDocument;
  return { ...(doc as BehaveDocument), schema: BEHAVE_SCHEMA, aAgain: null, notJudged: [], sharedSplats: [] };
}

