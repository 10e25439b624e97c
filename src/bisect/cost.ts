/**
 * `bisect --cost`: the culprit's per-function counts against its parent's,
 * from the first boot of each (under -icount a boot's table repeats, so one
 * is the kernel's). The parent is the last good commit, which the search
 * booted or had as the good endpoint.
 */
import type { Store } from '../store/store.ts';
import { bootFunctions, changedFunctions, significantChanges } from '../compare/cost-functions.ts';
import type { BisectDocument, BisectStep } from './document.ts';

/** The changed functions from parent to culprit, or null without both kernels' tables. */
export function culpritFunctions(store: Store, parent: BisectStep, culprit: BisectStep): BisectDocument['functions'] {
  if (parent.state !== 'measured' || culprit.state !== 'measured') return null;
  const [a, b] = [parent.boots[0]?.runId, culprit.boots[0]?.runId];
  if (a === undefined || a === null || b === undefined || b === null) return null;
  const [tableA] = bootFunctions(store.getRun(a));
  const [tableB] = bootFunctions(store.getRun(b));
  if (!tableA || !tableB) return null;
  const { changed, unchanged } = changedFunctions(tableA, tableB);
  const { shown, small } = significantChanges(changed);
  return { changed: shown, small, unchanged };
}
