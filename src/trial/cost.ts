/**
 * `trial --cost`: the cost section of the trial document, computed once
 * from the measured boots: every cost counter of A and B compared as
 * `compare --metric all` does (the exact rule decides when every boot
 * repeated its count), whether each kernel's boots gave the same
 * per-function counts, and the functions whose counts changed, each with
 * the codegen class of the same function beside it. A function in no
 * object the codegen step compared lives in an object the patch did not
 * reach, so its code is the same in A and B: when its counts moved, it
 * moved (a placement effect). Reporters (src/report/trial-cost.ts) only
 * word it.
 *
 * The branches of the changed functions whose common direction changed
 * (src/vm/branch-flips.ts) come with them, matched by source line.
 *
 * Format history (TRIAL_COST_SCHEMA):
 *   1: first version. `counters` carries its own schema
 *      (METRIC_COMPARISON_SCHEMA, src/compare/metric.ts): from 3 on, the
 *      rule each counter was judged by; reporters read older ones as the
 *      exact rule where `exact`, the threshold elsewhere.
 *   2: `branches`: per kernel whether its boots gave the same per-branch
 *      counts, and the flipped branches of the changed functions.
 *   3: `kernels`: a kernel whose boots' per-function tables differ carries
 *      `bound`, the largest per-call difference between them (absent before).
 */
import { ComparisonRefused } from '../compare/checks.ts';
import { compareMetrics, type MetricComparison } from '../compare/metric.ts';
import type { Known, RunWithRounds } from '../model.ts';
import type { Store } from '../store/store.ts';
import { COST_SCOPE } from '../cost-counters.ts';
import { type BootFunctions, compareFunctions, type FunctionChange, type KernelFunctionCounts, kernelFunctions } from '../compare/cost-functions.ts';
import { type BranchComparison, compareBranches } from '../vm/branch-flips.ts';
import { type CostModel, describeCostModel } from '../vm/cost-plugin.ts';
import type { TrialCodegen } from './codegen.ts';

export const TRIAL_COST_SCHEMA = 3;

/** A changed function with codegen's class of it ('identical' when no compared object holds it). */
export type TrialFunctionChange = FunctionChange & { codegen: string };

export interface TrialCost {
  schema: 1 | 2 | typeof TRIAL_COST_SCHEMA;
  /** The model as `--cost-model` writes it: 'l1i=32k,8way,64 predictor=2bit'. */
  model: string;
  /** What the counters are, and that none is a time. */
  scope: string;
  /** Every counter A and B carry, compared per subject; unknown when compare refused the runs. */
  counters: Known<MetricComparison>;
  kernels: { A: KernelFunctionCounts; B: KernelFunctionCounts };
  /** B - A per call of the functions that changed by SMALL_PER_CALL or more; null without both kernels' tables. */
  functions: { changed: TrialFunctionChange[]; small: number; unchanged: number } | null;
  /** Per-branch counts: each kernel's boots, and A against B in the changed functions (absent in schema 1 documents). */
  branches?: BranchComparison;
}

/** System.map's `foo.isra.0` is codegen's normalized `foo.isra`. */
const normalized = (fn: string): string => fn.replace(/(\.(?:isra|constprop|part|cold|lto_priv))\.\d+/g, '$1');

/** The codegen class of a function ('identical', 'layout', 'changed', 'added', 'removed'). */
export function codegenVerdictOf(codegen: TrialCodegen): (fn: string) => string {
  const classes = new Map<string, string>();
  for (const o of codegen.objects) {
    for (const cell of o.result?.cells ?? []) {
      if (cell.state === 'compared') for (const f of cell.functions) classes.set(f.name, f.class);
    }
  }
  return (fn) => classes.get(normalized(fn)) ?? 'identical';
}

function counters(a: RunWithRounds, b: RunWithRounds, thresholdPct: number): Known<MetricComparison> {
  try {
    return { known: true, value: compareMetrics({ a, b }, 'all', { thresholdPct }) };
  } catch (err) {
    if (err instanceof ComparisonRefused) return { known: false, reason: err.message };
    throw err;
  }
}

/** The cost section of a finished trial's measured boots. */
export function trialCost(store: Store, runs: { A: { id: number }; B: { id: number } }, input: { model: CostModel; codegen: TrialCodegen; thresholdPct: number }): TrialCost {
  const a = store.getRun(runs.A.id);
  const b = store.getRun(runs.B.id);
  const [kernelA, kernelB] = [kernelFunctions([a]), kernelFunctions([b])];
  const functions = kernelA.first && kernelB.first ? changedWithCodegen(kernelA.first, kernelB.first, input.codegen) : null;
  return {
    schema: TRIAL_COST_SCHEMA,
    model: describeCostModel(input.model),
    scope: COST_SCOPE,
    counters: counters(a, b, input.thresholdPct),
    kernels: { A: kernelA.counts, B: kernelB.counts },
    functions,
    branches: compareBranches([{ label: 'A', runs: [a] }, { label: 'B', runs: [b] }], () => functions?.changed ?? []),
  };
}

/** The functions that changed, each with codegen's class of it. */
function changedWithCodegen(a: BootFunctions, b: BootFunctions, codegen: TrialCodegen): NonNullable<TrialCost['functions']> {
  const { shown, small, unchanged } = compareFunctions(a, b);
  const verdictOf = codegenVerdictOf(codegen);
  return { changed: shown.map((c) => ({ ...c, codegen: verdictOf(c.name) })), small, unchanged };
}
