/**
 * A trial's cost section (src/trial/cost.ts) in every format of the trial
 * report: the model and its scope (counts of the emulated execution and a
 * named model, never a time), each counter per subject with its verdict,
 * whether each kernel's boots gave the same per-function counts, and the
 * functions whose counts changed with codegen's word on each, and their
 * branches whose common direction changed. Every
 * format lists, per subject, the changes the cost model found in counts of
 * the emulated execution (the exact rule, or the events-per-call rule of
 * src/compare/exact.ts), in events per call; the lkml block keeps only
 * those, in a line or two per subject, and one line per flipped branch.
 */
import type { MetricEntry, MetricSubject } from '../compare/metric.ts';
import { costCounter, costWords } from '../cost-counters.ts';
import { fixed, plusMinus, readableDecimals, signed } from '../format/numbers.ts';
import type { KernelFunctionCounts } from '../compare/cost-functions.ts';
import type { TrialCost } from '../trial/cost.ts';
import { functionCountsWords, functionRowsText } from './cost.ts';
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
  return `Kernel ${role}: ${functionCountsWords(k.value, `across ${k.value.boots} boot${k.value.boots === 1 ? '' : 's'}`)}.`;
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

/** The terminal's cost part: intro, the exact changes per subject, every counter's table with the reasons, the kernels, the functions. */
export function costText(c: TrialCost): string[] {
  const counters = c.counters.known ? renderMetricText(c.counters.value).trimEnd().split('\n') : [`cost counters not compared: ${c.counters.reason}`];
  const claims = claimLines(c);
  return [costIntro(c), '', ...(claims.length ? [...claims, ''] : []), ...counters, '', ...functionLines(c)];
}

/** The Markdown cost part: the exact changes as a list, the counters as tables, the function table fenced. */
export function costMarkdown(c: TrialCost): string[] {
  const counters = c.counters.known ? renderMetricMarkdown(c.counters.value).trimEnd() : escapeMarkdown(`Cost counters not compared: ${c.counters.reason}`);
  const [head, ...rest] = claimLines(c);
  const claims = head ? [[escapeMarkdown(head), ...rest.map((l) => `- ${escapeMarkdown(l.trim())}`)].join('\n')] : [];
  return ['## Cost model', escapeMarkdown(costIntro(c)), ...claims, counters, fence(functionLines(c))];
}

/** "4 boots alike", or per run when they differ: "boots alike: A 4, B 3". */
function bootsAlike(s: MetricSubject): string {
  const counts = Object.entries(s.boots ?? {});
  if (counts.length === 0) return 'every boot alike';
  const n = new Set(counts.map(([, k]) => k));
  return n.size === 1 ? `${counts[0]![1]} boots alike` : `boots alike: ${counts.map(([role, k]) => `${role} ${k}`).join(', ')}`;
}

/** A claimed change in events per call: "taken branches +1.00/call (exact, 4 boots alike)". */
function claimText(e: MetricEntry, s: MetricSubject): string {
  const per = costCounter(e.metric)?.per === 'kernel entry' ? 'entry' : 'call';
  const ci = s.ciInUnit;
  const d = readableDecimals(2, [s.change]);
  const dCi = ci ? readableDecimals(2, [ci.low, ci.high], [[ci.low, ci.high]]) : d;
  const basis = s.exact || !ci ? `exact, ${bootsAlike(s)}` : `boots vary: ${Math.round(ci.level * 100)} % CI ${signed(ci.low, dCi)} to ${signed(ci.high, dCi)}`;
  return `${costWords(e.metric).thing} ${plusMinus(s.change, fixed(Math.abs(s.change), d))}/${per} (${basis})`;
}

/** Whether a subject's verdict is a change the cost model found in a count: by the exact rule, or by the events-per-call rule. */
function isCountClaim(e: MetricEntry, s: MetricSubject): boolean {
  return (s.exact || e.rule?.name === 'events-per-call') && /^(more|fewer) /.test(s.verdict);
}

/** Per subject, the changes the cost model found in counts of the emulated execution, in events per call. */
export function exactClaims(c: TrialCost): { subject: string; claims: string[] }[] {
  if (!c.counters.known) return [];
  const bySubject = new Map<string, string[]>();
  for (const e of c.counters.value.metrics) {
    for (const s of e.subjects.filter((x) => isCountClaim(e, x))) bySubject.set(s.subject, [...(bySubject.get(s.subject) ?? []), claimText(e, s)]);
  }
  return [...bySubject.entries()].map(([subject, claims]) => ({ subject, claims }));
}

/** The claims as lines: a heading, then one line per subject. */
function claimLines(c: TrialCost): string[] {
  const claims = exactClaims(c);
  if (!c.counters.known) return [];
  if (claims.length === 0) return ['Exact changes, B vs A: none in any subject (exact and events-per-call rules).'];
  return ['Exact changes, B vs A (events per call):', ...claims.map((x) => `  ${x.subject}: ${x.claims.join('; ')}`)];
}

/** The lkml lines: the model in a line, per subject what the exact rule claims, then the flipped branches (72 columns). */
export function costLkml(c: TrialCost): string[] {
  const claims = exactClaims(c);
  const head = `Cost model (${c.model}; counts of the emulated execution and a model, not times), B vs A, exact changes:`;
  if (!c.counters.known) return [...lkmlPara(`Cost model (${c.model}): counters not compared: ${c.counters.reason}.`), ...flipsLkml(c)];
  if (claims.length === 0) return [...lkmlPara(`${head.replace(/, exact changes:$/, ':')} no counter changed by the exact or the events-per-call rule in any subject.`), ...flipsLkml(c)];
  return [...lkmlPara(head), ...claims.flatMap((x) => lkmlPara(`${x.subject}: ${x.claims.join('; ')}.`, '  ', '    ')), ...flipsLkml(c)];
}

/** One paragraph per branch whose common direction changed, under a line saying what they are. */
function flipsLkml(c: TrialCost): string[] {
  const flips = c.branches?.ab?.flips ?? [];
  if (!flips.length) return [];
  return [...lkmlPara('Branches whose common direction changed, B vs A:'), ...flips.flatMap((f) => lkmlPara(`${flipLine(f)}.`, '  ', '    '))];
}
