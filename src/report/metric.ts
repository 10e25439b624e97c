/**
 * Reporters for a cost-counter comparison (src/compare/metric.ts): plain
 * text, Markdown and JSON. Every figure carries the counter's unit in words
 * ('taken branches/call'); claims are 'more'/'fewer' of the counter; the
 * cost model's scope line is printed once in every report.
 */
import type { MetricComparison, MetricEntry, MetricSubject } from '../compare/metric.ts';
import { costCounter } from '../cost-counters.ts';
import { alignColumns } from '../format/columns.ts';
import { decimalsFor, fixed, plusMinus, readableDecimals } from '../format/numbers.ts';
import { formatChangePct, formatChangePctRange } from '../format/percent.ts';
import { escapeMarkdown } from './md.ts';

/** The column headings; the baseline is 'A+A2' when a subject was judged against both baselines. */
function headers(e: MetricEntry): string[] {
  return ['subject', e.subjects.some((s) => s.judgedOn !== 'B vs A') ? 'A+A2' : 'A', 'B', 'change', 'CI', 'verdict'];
}

/** The cells of one subject's row: means, change and its interval, verdict. */
function cells(s: MetricSubject, unit: string): string[] {
  const d = readableDecimals(decimalsFor(s.baselineMean, s.candidateMean), [s.change]);
  const ci = s.exact ? 'exact' : s.ciPct.kind === 'ok' ? `${Math.round(s.ciPct.level * 100)} % CI ${formatChangePctRange(s.ciPct.low, s.ciPct.high, ' to ')}` : 'no interval';
  return [
    s.subject,
    `${fixed(s.baselineMean, d)} ${unit}`,
    fixed(s.candidateMean, d),
    `${plusMinus(s.change, fixed(Math.abs(s.change), d))} (${formatChangePct(s.changePct)})`,
    ci,
    s.verdict,
  ];
}

function header(m: MetricComparison): string[] {
  return [
    `cost counters: ${m.runs.map((r) => `${r.role} = run ${r.runId}${r.label ? ` '${r.label}'` : ''}`).join(', ')}`,
    `design: ${m.design.text}`,
    `scope: ${m.scope}`,
  ];
}

/** The rule a counter was judged by, in words; '' for documents from before rules were recorded. */
function ruleText(e: MetricEntry): string {
  if (!e.rule) return '';
  const per = costCounter(e.metric)?.per ?? 'call';
  if (e.rule.name === 'events-per-call') return `; judged in events per ${per}: a change of ${fixed(e.rule.minPerCall, 2)} or more per ${per}`;
  return `; judged against the ±${e.rule.thresholdPct} % noise threshold, or exactly where every boot repeated its value`;
}

/** "taken-branches/call (taken branches/call; judged in events per call: ...; Holm over 2 tested subjects)". */
function entryHeading(e: MetricEntry): string {
  return `${e.metric} (${e.unit}${ruleText(e)}${e.familySize ? `; Holm over ${e.familySize} tested subject${e.familySize === 1 ? '' : 's'}` : ''})`;
}

function entryText(e: MetricEntry): string[] {
  const reasons = e.subjects.map((s) => `  ${s.subject}: ${s.verdict}: ${s.reason}`);
  const missing = e.notCompared.map((n) => `  ${n.subject}: not compared (only in ${n.presentIn.join(', ')})`);
  return [
    entryHeading(e),
    ...alignColumns([headers(e), ...e.subjects.map((s) => cells(s, e.unit))]).map((l) => `  ${l}`),
    ...reasons,
    ...missing,
  ];
}

/** Plain text: the header with the scope line, then one block per counter. */
export function renderMetricText(m: MetricComparison): string {
  return `${[...header(m), '', ...m.metrics.flatMap((e) => [...entryText(e), ''])].join('\n').trimEnd()}\n`;
}

/** Markdown: the same blocks as tables. */
export function renderMetricMarkdown(m: MetricComparison): string {
  const row = (c: readonly string[]) => `| ${c.map(escapeMarkdown).join(' | ')} |`;
  const blocks = m.metrics.map((e) =>
    [
      `**${escapeMarkdown(entryHeading(e))}**`,
      '',
      row(headers(e)),
      `| ${headers(e).map(() => '---').join(' | ')} |`,
      ...e.subjects.map((s) => row(cells(s, e.unit))),
    ].join('\n'),
  );
  return `${[header(m).map(escapeMarkdown).join('  \n'), ...blocks].join('\n\n')}\n`;
}

/** JSON: the document itself. */
export function renderMetricJson(m: MetricComparison): string {
  return `${JSON.stringify(m, null, 2)}\n`;
}
