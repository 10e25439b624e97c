/**
 * The text `hintlab vm --cost` prints after the boots: the scope line, each
 * counter per call for every profile and boot, whether boots of one kernel
 * agree exactly, and the functions whose counts changed between the first
 * two kernels. Returns text; the CLI decides where it goes.
 */
import type { RunWithRounds } from '../model.ts';
import { alignColumns } from '../format/columns.ts';
import { formatNumber, signed } from '../format/numbers.ts';
import { COST_SCOPE as SCOPE, costWords } from '../format/units.ts';
import { isSample, median } from '../stats/descriptive.ts';
import { COST_UNITS } from './cost.ts';
import { FUNCTION_COUNTERS, type FunctionCost, type FunctionCounts } from './cost-functions.ts';

/** Said once wherever cost counters are shown. */
export const COST_SCOPE = `cost counters: ${SCOPE}.`;

function metricValues(run: RunWithRounds, subject: string, unit: string): number[] {
  return run.rounds.filter((r) => r.subject === subject && !r.warmup).flatMap((r) => r.metrics.filter((m) => m.name === unit).map((m) => m.value));
}

/** Median per call of every counter, one column per run (boot), one row per profile and counter. */
export function costTable(runs: RunWithRounds[]): string {
  const subjects = [...new Set(runs.flatMap((r) => r.params.subjects))];
  const header = ['median per call', ...runs.map((r) => r.label ?? `#${r.id}`)];
  const rows = subjects.flatMap((s) =>
    COST_UNITS.map((u) => [`${s} ${costWords(u).short}`, ...runs.map((r) => {
      const v = metricValues(r, s, u);
      return isSample(v) ? formatNumber(median(v)) : '-';
    })]),
  );
  return `${alignColumns([header, ...rows], (i) => i > 0).join('\n')}\n`;
}

type Functions = Record<string, FunctionCost[]>;

/** The per-function tables of a run's boots (environment `cost.functions`), known ones only. */
export function bootFunctions(run: RunWithRounds): Functions[] {
  const cost = run.environment.cost as { functions?: { known: boolean; value?: Functions }[] } | undefined;
  return (cost?.functions ?? []).filter((f) => f.known && f.value).map((f) => f.value!);
}

/** Whether every boot's table equals the first's, counter for counter. */
export function bootsAgree(boots: Functions[]): boolean {
  const first = JSON.stringify(boots[0] ?? null);
  return boots.every((b) => JSON.stringify(b) === first);
}

/** One changed function: per-call changes, and where it moved. */
export interface FunctionChange {
  subject: string;
  name: string;
  change: FunctionCounts;
  /** B's address minus A's in bytes, null when it is in one kernel only. */
  shiftBytes: number | null;
  sizeA: number | null;
  sizeB: number | null;
}

const EXACT = 1e-9;

/** Functions whose per-call counts differ between A and B, per subject. */
export function changedFunctions(a: Functions, b: Functions): { changed: FunctionChange[]; unchanged: number } {
  const changed: FunctionChange[] = [];
  let unchanged = 0;
  for (const subject of Object.keys(a).filter((s) => s in b)) {
    const fa = new Map(a[subject]!.map((f) => [f.name, f]));
    const fb = new Map(b[subject]!.map((f) => [f.name, f]));
    for (const name of new Set([...fa.keys(), ...fb.keys()])) {
      const x = fa.get(name);
      const y = fb.get(name);
      const change = Object.fromEntries(FUNCTION_COUNTERS.map((k) => [k, (y?.perCall[k] ?? 0) - (x?.perCall[k] ?? 0)])) as unknown as FunctionCounts;
      if (FUNCTION_COUNTERS.every((k) => Math.abs(change[k]) < EXACT)) {
        unchanged++;
        continue;
      }
      const shift = x && y && x.addr !== '?' && y.addr !== '?' ? Number(BigInt(`0x${y.addr}`) - BigInt(`0x${x.addr}`)) : null;
      changed.push({ subject, name, change, shiftBytes: shift, sizeA: x?.size ?? null, sizeB: y?.size ?? null });
    }
  }
  return { changed, unchanged };
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

/**
 * Changes below this per call are shown as a count, not row by row: they
 * are the share of a few timer ticks spread over thousands of calls, which
 * differs between kernels whose windows last a different number of
 * instructions.
 */
export const SMALL_PER_CALL = 0.005;

/** The changed functions worth a row (SMALL_PER_CALL or more in some counter), and how many changed by less. */
export function significantChanges(changed: readonly FunctionChange[]): { shown: FunctionChange[]; small: number } {
  const shown = changed.filter((c) => FUNCTION_COUNTERS.some((k) => Math.abs(c.change[k]) >= SMALL_PER_CALL));
  return { shown, small: changed.length - shown.length };
}

/** The rows of changed functions as a table, with a closing line on the rest; `verdictOf` gives codegen's class of a function. */
export function functionRowsText(rows: { shown: readonly FunctionChange[]; small: number; unchanged: number }, verdictOf?: (fn: string) => string | null): string {
  const { shown, small, unchanged } = rows;
  const rest = `every other function unchanged (${unchanged} function rows)${small ? `, ${small} changed by less than ${SMALL_PER_CALL} per call in every counter (timer-tick work in the windows)` : ''}\n`;
  if (!shown.length) return `per function: no function's counts changed by ${SMALL_PER_CALL} per call or more; ${rest}`;
  const header = ['subject', 'function', 'instr', 'taken', 'fetches', 'L1i misses', 'mispredicts', 'what moved'];
  const body = shown.map((c) => [c.subject, c.name, ...FUNCTION_COUNTERS.map((k) => fmtChange(c.change[k])), placementNote(c, verdictOf?.(c.name))]);
  return `per function, B - A per call:\n${alignColumns([header, ...body], (i) => i >= 2 && i <= 6).join('\n')}\n${rest}`;
}

/** The changed functions as a table, with a closing line on the rest. */
export function functionChangeTable(a: Functions, b: Functions, verdictOf?: (fn: string) => string | null): string {
  const { changed, unchanged } = changedFunctions(a, b);
  return functionRowsText({ ...significantChanges(changed), unchanged }, verdictOf);
}

/** Everything `vm --cost` prints after the boots, runs grouped by kernel label in boot order. */
export function costReport(byKernel: Map<string, RunWithRounds[]>, verdictOf?: (fn: string) => string | null): string {
  const runs = [...byKernel.values()].flat();
  const parts = [`${COST_SCOPE}\n`, costTable(runs)];
  const tables = new Map<string, Functions>();
  for (const [label, kruns] of byKernel) {
    const boots = kruns.flatMap(bootFunctions);
    const why = kruns.map((r) => (r.environment.cost as { functions?: { known: boolean; reason?: string }[] } | undefined)?.functions?.find((f) => !f.known)?.reason).find(Boolean);
    if (!boots.length) {
      parts.push(`kernel ${label}: no per-function counts (${why ?? 'no System.map'})\n`);
      continue;
    }
    tables.set(label, boots[0]!);
    parts.push(`kernel ${label}: per-function counts ${bootsAgree(boots) ? 'identical' : 'DIFFER'} across ${boots.length} boot(s)\n`);
  }
  const [a, b] = [...tables.keys()];
  if (a && b) parts.push(`${b} against ${a}, ${functionChangeTable(tables.get(a)!, tables.get(b)!, verdictOf)}`);
  return parts.join('');
}
