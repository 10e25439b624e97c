/**
 * `trial --cost`: the per-function cost changes of the measured boots, each
 * function with the codegen verdict of the same function beside it. A
 * function in no object the codegen step compared lives in an object the
 * patch did not reach, so its code is the same in A and B: when its counts
 * moved, it moved (a placement effect).
 */
import type { RunWithRounds } from '../model.ts';
import type { Store } from '../store/store.ts';
import { costReport } from '../vm/cost-summary.ts';
import type { TrialCodegen } from './codegen.ts';

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

/** The cost text of a finished trial's boots. */
export function trialCostText(store: Store, runs: { A: { id: number }; B: { id: number } }, codegen: TrialCodegen): string {
  const byKernel = new Map<string, RunWithRounds[]>([
    ['A', [store.getRun(runs.A.id)]],
    ['B', [store.getRun(runs.B.id)]],
  ]);
  return costReport(byKernel, codegenVerdictOf(codegen));
}
