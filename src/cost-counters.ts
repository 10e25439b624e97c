/**
 * The cost counters of hintlab's qemu plugin (probes/plugin/cost.c),
 * declared once. Everything else is derived from this table: the keys the
 * plugin-output parser requires on a window line (src/vm/cost.ts) and the
 * fields of a block line, the per-call metrics stored with each round (the
 * metric name is also its unit and the `compare --metric` name), the
 * per-function columns, the words of every report and verdict, and the one
 * scope sentence. Adding a counter is the plugin's output plus one row here.
 *
 * Stored runs name their metrics by `metric` and their per-function counts
 * by `perFunction.key`: both stay as written once a run exists.
 *
 * Bottom floor: nothing here imports another module.
 */

/** Counted from the emulated execution itself, or an output of the named cache and predictor model. */
export type CounterSource = 'exact' | 'modelled';

/** What one call's figure divides the window's count by. */
export type CounterPer = 'call' | 'kernel entry';

export interface CostCounter {
  /** The metric as stored with each round and named in `compare --metric`; it is also the unit: 'taken-branches/call'. */
  metric: string;
  /** The key of the plugin's window line that holds the count over the window: `w ... taken=N`. */
  windowKey: string;
  /** 'call': the count over the round's calls; 'kernel entry': over the window's kernel entries (`kentries=`). */
  per: CounterPer;
  /** Row heading in `vm --cost`'s table: 'taken'. */
  short: string;
  /** What is counted, plain: 'taken branches' (a modelled counter is spoken of as 'modelled ' and this). */
  thing: string;
  source: CounterSource;
  /**
   * Per kernel function, or null when the plugin does not count it per
   * block. `key` names it in the stored per-function tables, `column` heads
   * its column; 'count' is a field of the plugin's block line (in the
   * order of this table, after EXECS), 'instructions' the block's
   * instructions times its executions.
   */
  perFunction: { key: string; column: string; from: 'count' | 'instructions' } | null;
}

/** The counters, in the order every report lists them. */
export const COST_COUNTERS: readonly CostCounter[] = [
  { metric: 'kernel-instructions/call', windowKey: 'kinsn', per: 'call', short: 'kernel instr', thing: 'kernel instructions', source: 'exact', perFunction: { key: 'insns', column: 'instr', from: 'instructions' } },
  { metric: 'user-instructions/call', windowKey: 'uinsn', per: 'call', short: 'user instr', thing: 'user instructions', source: 'exact', perFunction: null },
  { metric: 'taken-branches/call', windowKey: 'taken', per: 'call', short: 'taken', thing: 'taken branches', source: 'exact', perFunction: { key: 'taken', column: 'taken', from: 'count' } },
  { metric: 'line-fetches/call', windowKey: 'fetches', per: 'call', short: 'line fetches', thing: 'I-cache line fetches', source: 'exact', perFunction: { key: 'fetches', column: 'fetches', from: 'count' } },
  { metric: 'distinct-lines/entry', windowKey: 'klines', per: 'kernel entry', short: 'lines/entry', thing: 'distinct I-cache lines', source: 'exact', perFunction: null },
  { metric: 'l1i-misses/call', windowKey: 'misses', per: 'call', short: 'L1i misses', thing: 'L1i misses', source: 'modelled', perFunction: { key: 'misses', column: 'L1i misses', from: 'count' } },
  { metric: 'mispredictions/call', windowKey: 'mispred', per: 'call', short: 'mispredicts', thing: 'branch mispredictions', source: 'modelled', perFunction: { key: 'mispred', column: 'mispredicts', from: 'count' } },
];

/** The window key that counts what `kernel entry` counters are divided by. */
export const KERNEL_ENTRIES_KEY = 'kentries';

/** The metric names, in report order: what `compare --metric` accepts besides 'all'. */
export const COST_METRICS: readonly string[] = COST_COUNTERS.map((c) => c.metric);

/** Every key a window line must carry: each counter's count and the divisors. */
export const WINDOW_KEYS: readonly string[] = [...COST_COUNTERS.map((c) => c.windowKey), KERNEL_ENTRIES_KEY];

/** A counter counted per kernel function, with its per-function part known. */
export type FunctionCounter = CostCounter & { perFunction: NonNullable<CostCounter['perFunction']> };

/** The counters of the per-function tables, in column order. */
export const FUNCTION_COUNTERS: readonly FunctionCounter[] = COST_COUNTERS.filter((c): c is FunctionCounter => c.perFunction !== null);

/** The per-function keys whose counts are fields of the plugin's block line, in field order after EXECS. */
export const BLOCK_COUNT_KEYS: readonly string[] = FUNCTION_COUNTERS.filter((c) => c.perFunction.from === 'count').map((c) => c.perFunction.key);

/** One function's counts, keyed by `perFunction.key` (per call once divided). */
export type FunctionCounts = Record<string, number>;

/** Per-call counts of every function one subject ran in a boot, with where the function lies. */
export interface FunctionCost {
  name: string;
  /** Hex address in this kernel ('?' when the map lacks it), and bytes to the next symbol. */
  addr: string;
  size: number;
  perCall: FunctionCounts;
}

/** The counter a metric name names, or undefined. */
export function costCounter(metric: string): CostCounter | undefined {
  return COST_COUNTERS.find((c) => c.metric === metric);
}

/** The words of a cost counter, for column headings, units and verdicts. */
export interface CostWords {
  /** Row heading: 'taken'. */
  short: string;
  /** What a change is spoken in: 'taken branches per call'. */
  noun: string;
  /** What is counted, without the 'per': 'taken branches'; a verdict is 'more'/'fewer' and this. */
  thing: string;
  /** The unit in words: 'taken branches/call'. */
  perOp: string;
}

/** Words for a cost counter's metric name; an unknown one is spoken as itself. */
export function costWords(metric: string): CostWords {
  const c = costCounter(metric);
  if (!c) return { short: metric, noun: metric, thing: metric, perOp: metric };
  const thing = c.source === 'modelled' ? `modelled ${c.thing}` : c.thing;
  return { short: c.short, noun: `${thing} per ${c.per}`, thing, perOp: `${thing}/${c.per === 'call' ? 'call' : 'entry'}` };
}

/** "more taken branches per call" / "fewer ..." / "no change in ...". */
export function costChangeWords(metric: string, change: number): string {
  const { noun } = costWords(metric);
  if (change === 0) return `no change in ${noun}`;
  return `${change > 0 ? 'more' : 'fewer'} ${noun}`;
}

/** 'a', 'a and b', 'a, b and c'. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

const thingsOf = (source: CounterSource): string[] => COST_COUNTERS.filter((c) => c.source === source).map((c) => c.thing);

/**
 * What the cost counters are, said once in every report that shows them
 * (without a closing full stop, so it reads inside a sentence too): the
 * model is not a CPU, and no counter is a time.
 */
export const COST_SCOPE =
  `${listed(thingsOf('exact'))} are exact counts of the emulated execution (qemu TCG, per translated block); ` +
  `${listed(thingsOf('modelled'))} come from the named model, not from a CPU; none is a time`;
