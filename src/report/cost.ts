/**
 * The text `hintlab vm --cost` prints after the boots: the scope line, each
 * counter per call for every profile and boot, whether boots of one kernel
 * agree exactly, and the functions whose counts changed between the first
 * two kernels (src/compare/cost-functions.ts). The function table is also
 * the trial's (src/report/trial-cost.ts). Returns text; the CLI decides
 * where it goes.
 */
import { COST_COUNTERS, COST_SCOPE, costWords, FUNCTION_COUNTERS } from '../cost-counters.ts';
import { EXACT, type FunctionChange, type FunctionComparison, type KernelFunctionCounts, SMALL_PER_CALL, type VmCostSummary } from '../compare/cost-functions.ts';
import type { RunWithRounds } from '../model.ts';
import { alignColumns } from '../format/columns.ts';
import { formatNumber, signed } from '../format/numbers.ts';
import { isSample, median } from '../stats/descriptive.ts';

function metricValues(run: RunWithRounds, subject: string, metric: string): number[] {
  return run.rounds.filter((r) => r.subject === subject && !r.warmup).flatMap((r) => r.metrics.filter((m) => m.name === metric).map((m) => m.value));
}

/** Median per call of every counter, one column per run (boot), one row per profile and counter. */
export function costTable(runs: readonly RunWithRounds[]): string {
  const subjects = [...new Set(runs.flatMap((r) => r.params.subjects))];
  const header = ['median per call', ...runs.map((r) => r.label ?? `#${r.id}`)];
  const rows = subjects.flatMap((s) =>
    COST_COUNTERS.map((c) => [`${s} ${costWords(c.metric).short}`, ...runs.map((r) => {
      const v = metricValues(r, s, c.metric);
      return isSample(v) ? formatNumber(median(v)) : '-';
    })]),
  );
  return `${alignColumns([header, ...rows], (i) => i > 0).join('\n')}\n`;
}

/** What the code did, as far as the sizes and codegen tell: the reader's cue to "patch or alignment". */
export function placementNote(c: FunctionChange, codegenVerdict?: string | null): string {
  if (c.sizeA === null) return 'only in B';
  if (c.sizeB === null) return 'only in A';
  const moved = c.shiftBytes ? `moved ${signed(c.shiftBytes, 0)} bytes` : 'same address';
  if (codegenVerdict === 'identical') return c.shiftBytes ? `placement effect (${moved}; code identical)` : 'code identical, same address';
  if (codegenVerdict) return `codegen: ${codegenVerdict}; ${moved}`;
  if (c.sizeA !== c.sizeB) return `size ${c.sizeA} -> ${c.sizeB} bytes; ${moved}`;
  return `same size, ${moved} (placement effect unless its code changed: see codegen)`;
}

function fmtChange(v: number): string {
  return Math.abs(v) < EXACT ? '0' : signed(v, Math.abs(v) >= 10 ? 1 : 2);
}

/** The rows of changed functions as a table, with a closing line on the rest; `verdictOf` gives codegen's class of a function. */
export function functionRowsText(rows: FunctionComparison, verdictOf?: (fn: string) => string | null): string {
  const { shown, small, unchanged } = rows;
  const rest = `every other function unchanged (${unchanged} function rows)${small ? `, ${small} changed by less than ${SMALL_PER_CALL} per call in every counter (timer-tick work in the windows)` : ''}\n`;
  if (!shown.length) return `per function: no function's counts changed by ${SMALL_PER_CALL} per call or more; ${rest}`;
  const header = ['subject', 'function', ...FUNCTION_COUNTERS.map((k) => k.perFunction.column), 'what moved'];
  const body = shown.map((c) => [c.subject, c.name, ...FUNCTION_COUNTERS.map((k) => fmtChange(c.change[k.perFunction.key] ?? 0)), placementNote(c, verdictOf?.(c.name))]);
  return `per function, B - A per call:\n${alignColumns([header, ...body], (i) => i >= 2 && i <= FUNCTION_COUNTERS.length + 1).join('\n')}\n${rest}`;
}

/**
 * Whether a kernel's boots gave the same per-function counts, and when not,
 * the bound: "DIFFER across 3 boot(s), by at most 0.0015 kernel
 * instructions per call (getppid: serial8250_tx_chars)". `across` words the
 * number of boots.
 */
export function functionCountsWords(counts: Extract<KernelFunctionCounts, { known: true }>['value'], across = `across ${counts.boots} boot(s)`): string {
  if (counts.identical) return `per-function counts identical ${across}`;
  const b = counts.bound;
  if (b === undefined) return `per-function counts DIFFER ${across}`;
  if (b === null) return `per-function counts DIFFER ${across}, in which functions they list but in no per-call count`;
  const thing = FUNCTION_COUNTERS.find((c) => c.perFunction.key === b.counter)?.thing ?? b.counter;
  return `per-function counts DIFFER ${across}, by at most ${formatNumber(b.perCall)} ${thing} per call (${b.subject}: ${b.function})`;
}

/** Everything `vm --cost` prints after the boots. */
export function costSummaryText(s: VmCostSummary): string {
  const kernels = s.kernels.map(({ label, counts }) => (counts.known ? `kernel ${label}: ${functionCountsWords(counts.value)}\n` : `kernel ${label}: no per-function counts (${counts.reason})\n`));
  const functions = s.functions ? [`${s.functions.b} against ${s.functions.a}, ${functionRowsText(s.functions.comparison)}`] : [];
  return [`cost counters: ${COST_SCOPE}.\n`, costTable(s.runs), ...kernels, ...functions].join('');
}
