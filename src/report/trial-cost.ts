/**
 * A trial's cost section (src/trial/cost.ts) in every format of the trial
 * report: the model and its scope (counts of the emulated execution and a
 * named model, never a time), each counter per subject with its verdict,
 * whether each kernel's boots gave the same per-function counts, and the
 * functions whose counts changed with codegen's word on each, and their
 * branches whose common direction changed. The lkml block keeps only what
 * the exact rule claims, per subject, in a line or two, and one line per
 * flipped branch.
 */
import type { MetricSubject } from '../compare/metric.ts';
import { decimalsFor, fixed, plusMinus, readableDecimals } from '../format/numbers.ts';
import type { KernelFunctionCounts, TrialCost } from '../trial/cost.ts';
import { functionRowsText } from '../vm/cost-summary.ts';
import { branchKernelLines, flipLine, flipLines } from './branch-words.ts';
import { escapeMarkdown, fence } from './md.ts';
import { renderMetricMarkdown, renderMetricText } from './metric.ts';
import { lkmlPara } from './wrap.ts';

/** "Cost model l1i=32k,8way,64 predictor=2bit in every measured boot: <scope>." */
export function costIntro(c: TrialCost): string {
  return `Cost model ${c.model} in every measured boot (hintlab's qemu plugin): ${c.scope.replace(/\.$/, '')}.`;
}

function kernelLine(role: 'A' | 'B', k: KernelFunctionCounts): string {
  if (!k.known) return `Kernel ${role}: no per-function counts (${k.reason}).`;
  return `Kernel ${role}: per-function counts ${k.value.identical ? 'identical' : 'DIFFER'} across ${k.value.boots} boot${k.value.boots === 1 ? '' : 's'}.`;
}

/** The model, the per-kernel lines and the function table, as text lines. */
function functionLines(c: TrialCost): string[] {
  const verdict = new Map(c.functions?.changed.map((f) => [f.name, f.codegen]) ?? []);
  const table = c.functions ? functionRowsText({ shown: c.functions.changed, small: c.functions.small, unchanged: c.functions.unchanged }, (fn) => verdict.get(fn) ?? null) : 'per function: not compared (a kernel has no per-function counts)\n';
  return [kernelLine('A', c.kernels.A), kernelLine('B', c.kernels.B), ...table.trimEnd().split('\n'), ...branchLines(c)];
}

/** Each kernel's per-branch agreement and the flipped branches (none in a schema 1 document). */
function branchLines(c: TrialCost): string[] {
  if (!c.branches) return [];
  return [...branchKernelLines(c.branches), ...(flipLines(c.branches) ?? ['per branch: not compared (a kernel has no per-branch counts)'])];
}

/** The terminal's cost part: intro, every counter's table with the reasons, the kernels, the functions. */
export function costText(c: TrialCost): string[] {
  const counters = c.counters.known ? renderMetricText(c.counters.value).trimEnd().split('\n') : [`cost counters not compared: ${c.counters.reason}`];
  return [costIntro(c), '', ...counters, '', ...functionLines(c)];
}

/** The Markdown cost part: the counters as tables, the function table fenced. */
export function costMarkdown(c: TrialCost): string[] {
  const counters = c.counters.known ? renderMetricMarkdown(c.counters.value).trimEnd() : escapeMarkdown(`Cost counters not compared: ${c.counters.reason}`);
  return ['## Cost model', escapeMarkdown(costIntro(c)), counters, fence(functionLines(c))];
}

/** A claimed change, compact: "taken branches/call 51.00 -> 50.00 (-1.00)". */
function claimText(unit: string, s: MetricSubject): string {
  const d = readableDecimals(decimalsFor(s.baselineMean, s.candidateMean), [s.change]);
  return `${unit} ${fixed(s.baselineMean, d)} -> ${fixed(s.candidateMean, d)} (${plusMinus(s.change, fixed(Math.abs(s.change), d))})`;
}

/** Per subject, the counters whose change the exact rule claims (every boot repeated its count). */
export function exactClaims(c: TrialCost): { subject: string; claims: string[] }[] {
  if (!c.counters.known) return [];
  const bySubject = new Map<string, string[]>();
  for (const e of c.counters.value.metrics) {
    for (const s of e.subjects) {
      if (!s.exact || !/^(more|fewer) /.test(s.verdict)) continue;
      bySubject.set(s.subject, [...(bySubject.get(s.subject) ?? []), claimText(e.unit, s)]);
    }
  }
  return [...bySubject.entries()].map(([subject, claims]) => ({ subject, claims }));
}

/** The lkml lines: the model in a line, per subject what the exact rule claims, then the flipped branches (72 columns). */
export function costLkml(c: TrialCost): string[] {
  const claims = exactClaims(c);
  const head = `Cost model (${c.model}; counts of the emulated execution and a model, not times), B vs A, exact changes:`;
  if (!c.counters.known) return [...lkmlPara(`Cost model (${c.model}): counters not compared: ${c.counters.reason}.`), ...flipsLkml(c)];
  if (claims.length === 0) return [...lkmlPara(`${head.replace(/, exact changes:$/, ':')} no counter changed by the exact rule in any subject.`), ...flipsLkml(c)];
  return [...lkmlPara(head), ...claims.flatMap((x) => lkmlPara(`${x.subject}: ${x.claims.join('; ')}.`, '  ', '    ')), ...flipsLkml(c)];
}

/** One paragraph per branch whose common direction changed, under a line saying what they are. */
function flipsLkml(c: TrialCost): string[] {
  const flips = c.branches?.ab?.flips ?? [];
  if (!flips.length) return [];
  return [...lkmlPara('Branches whose common direction changed, B vs A:'), ...flips.flatMap((f) => lkmlPara(`${flipLine(f)}.`, '  ', '    '))];
}
