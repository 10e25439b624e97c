/**
 * A bisect (src/bisect/document.ts) as text, JSON and a short regression
 * report for a mailing list. Each only words the document; every number
 * goes through src/format/.
 *
 * Every format carries the log a user can replay with `git bisect replay`:
 * the endpoints and each tested commit marked good, bad or skip, in test
 * order, as `git bisect log` writes them.
 *
 * JSON format history (BISECT_JSON_VERSION; the document's own `schema` is
 * BISECT_SCHEMA):
 *   1: first version.
 *   2: `target`: the LAVA lab the boots ran on, null for qemu on this machine.
 */
import type { BisectDocument, BisectStep } from '../bisect/document.ts';
import type { BisectMode } from '../bisect/mode.ts';
import type { Unit } from '../model.ts';
import type { BisectEvent } from '../bisect/run.ts';
import type { Commit } from '../bisect/search.ts';
import { alignColumns } from '../format/columns.ts';
import { formatNumber } from '../format/numbers.ts';
import { formatChangePct } from '../format/percent.ts';
import { costWords } from '../cost-counters.ts';
import { formatChange, formatValue } from '../format/units.ts';
import { functionRowsText } from './cost.ts';
import { secondsText } from './trial-words.ts';

export const BISECT_JSON_VERSION = 2;

export type BisectReporter = (doc: BisectDocument) => string;

const short = (c: Commit): string => c.hash.slice(0, 12);

/** The units a bisect's value may be in besides a cost counter's. */
const UNITS: readonly Unit[] = ['instructions/call', 'icount-bogo-ops/s'];
const unitOf = (doc: Pick<BisectDocument, 'metric'>): Unit | null => UNITS.find((u) => u === doc.metric.name) ?? null;

/** A step's value with its unit: instructions or bogo-ops per guest second under -icount, a cost counter per call or entry. */
function valueText(doc: Pick<BisectDocument, 'metric'>, v: number): string {
  const unit = unitOf(doc);
  return unit ? formatValue(v, unit) : `${formatNumber(v)} ${costWords(doc.metric.name).perOp}`;
}

function changeText(doc: BisectDocument, from: number, to: number): string {
  const unit = unitOf(doc);
  const abs = unit ? formatChange(to - from, unit, from) : `${formatNumber(to - from)} ${costWords(doc.metric.name).perOp}`;
  return from === 0 ? abs : `${abs} (${formatChangePct(((to - from) / from) * 100)})`;
}

function metricWords(doc: BisectDocument): string {
  const unit = unitOf(doc);
  const what = unit === 'instructions/call' ? 'guest instructions per call' : unit === 'icount-bogo-ops/s' ? 'stress-ng bogo-ops per guest second' : costWords(doc.metric.name).noun;
  return `${doc.metric.subject}, ${what}`;
}

function modeLine(mode: BisectMode): string {
  if (mode.kind === 'exact') return 'exact: the good and the bad commit each repeated their value exactly in 2 boots, so one boot per step decides';
  return `statistical: ${mode.why}, so each step is the mean of ${mode.bootsPerStep} boots and the endpoints were compared with Welch's t-test`;
}

function measuredValue(steps: readonly BisectStep[], hash: string): number | null {
  const s = steps.find((x) => x.commit.hash === hash);
  return s?.state === 'measured' ? s.value : null;
}

/** The lines `git bisect replay` reads: endpoints first, then every tested commit in test order. */
export function replayLog(doc: BisectDocument): string[] {
  const lines = ['git bisect start'];
  for (const s of doc.steps) {
    const mark = s.state === 'skip' ? 'skip' : s.side;
    lines.push(`# ${mark}: [${s.commit.hash}] ${s.commit.subject}`, `git bisect ${mark} ${s.commit.hash}`);
  }
  const o = doc.outcome;
  if (o.state === 'found') lines.push(`# first bad commit: [${o.firstBad.hash}] ${o.firstBad.subject}`);
  else for (const c of o.candidates) lines.push(`# possible first bad commit: [${c.hash}] ${c.subject}`);
  return lines;
}

function outcomeLines(doc: BisectDocument): string[] {
  const o = doc.outcome;
  if (o.state === 'ambiguous') {
    return [
      `the first bad commit could not be pinned: skipped commits lie between the last good one (${short(o.lastGood)}) and the first bad one; it is one of:`,
      ...o.candidates.map((c) => `  ${short(c)} ${c.subject}`),
    ];
  }
  const before = measuredValue(doc.steps, o.lastGood.hash);
  const after = measuredValue(doc.steps, o.firstBad.hash);
  return [
    `first bad commit: ${o.firstBad.hash}`,
    `  subject: ${o.firstBad.subject}`,
    `  author:  ${o.firstBad.author}`,
    ...(before !== null && after !== null ? [`  ${metricWords(doc)}: ${valueText(doc, before)} at its parent, ${valueText(doc, after)} here: ${changeText(doc, before, after)}`] : []),
    ...(doc.culpritIsMerge ? ['  it is a merge commit: the change came with the branch it merged (first-parent history was searched)'] : []),
  ];
}

function stepRows(doc: BisectDocument): string[] {
  const header = ['commit', 'role', 'value', 'side', 'boots', 'kernel', 'subject'];
  const rows = doc.steps.map((s) =>
    s.state === 'skip'
      ? [short(s.commit), 'step', '-', 'skip', '-', s.reason.split('\n')[0] ?? '', s.commit.subject]
      : [short(s.commit), s.role, valueText(doc, s.value), s.side, String(s.boots.length), s.reused ? 'stored' : s.build, s.commit.subject],
  );
  return alignColumns([header, ...rows], (i) => i === 2 || i === 4);
}

/** The plain-text report: outcome, endpoints and mode, every tested commit, the per-function change (--cost), the replay log. */
export const bisectText: BisectReporter = (doc) => {
  const measured = doc.steps.filter((s) => s.state === 'measured');
  const skipped = doc.steps.length - measured.length;
  const lines = [
    `hintlab bisect of ${doc.src}: ${metricWords(doc)}, --good ${doc.refs.good} (${short(doc.good)}) .. --bad ${doc.refs.bad} (${short(doc.bad)})`,
    ...outcomeLines(doc),
    '',
    `endpoints: good ${valueText(doc, measuredValue(doc.steps, doc.good.hash) ?? 0)}, bad ${valueText(doc, measuredValue(doc.steps, doc.bad.hash) ?? 0)}; a step is on the side of the endpoint its value is nearer to`,
    `mode: ${modeLine(doc.mode)}`,
    ...(doc.target === null ? [] : [`boots: on ${doc.target}, each boot one LAVA job (its URL is stored with the boot's run: hintlab runs --verbose); the kernels were built here`]),
    `${doc.commits} commits on the first-parent line, ${measured.length} booted${skipped ? `, ${skipped} skipped (did not build or boot)` : ''}; ${doc.builds} kernels built by this run; ${secondsText(doc.seconds)}`,
    '',
    'tested commits, in test order:',
    ...stepRows(doc).map((l) => `  ${l}`),
  ];
  if (doc.metric.costModel !== null) {
    lines.push('', `cost model: ${doc.metric.costModel}`);
    lines.push(doc.functions ? functionRowsText({ shown: doc.functions.changed, small: doc.functions.small, unchanged: doc.functions.unchanged }).trimEnd().replace('B - A', 'first bad commit - parent') : 'per function: no per-function tables for the culprit and its parent (no System.map next to the images)');
  }
  lines.push('', 'bisect log (save it and run `git bisect replay FILE` in the tree):', ...replayLog(doc));
  return `${lines.join('\n')}\n`;
};

/** `--format json`: firstBad, every booted commit (endpoints included) with its value and side, the builds; the rest of the document beside them. */
export const bisectJson: BisectReporter = (doc) => {
  const o = doc.outcome;
  const out = {
    version: BISECT_JSON_VERSION,
    firstBad: o.state === 'found' ? { commit: o.firstBad.hash, subject: o.firstBad.subject, author: o.firstBad.author } : null,
    candidates: o.state === 'ambiguous' ? o.candidates.map((c) => ({ commit: c.hash, subject: c.subject })) : null,
    steps: doc.steps.map((s) => ({
      commit: s.commit.hash,
      subject: s.commit.subject,
      role: s.role,
      value: s.state === 'measured' ? s.value : null,
      side: s.state === 'measured' ? s.side : 'skip',
      ...(s.state === 'measured' ? { boots: s.boots.map((b) => b.value), build: s.reused ? 'stored' : s.build } : { reason: s.reason }),
    })),
    builds: doc.builds,
    metric: doc.metric,
    mode: doc.mode,
    commits: doc.commits,
    refs: doc.refs,
    src: doc.src,
    target: doc.target,
    culpritIsMerge: doc.culpritIsMerge,
    functions: doc.functions,
    seconds: doc.seconds,
    log: replayLog(doc),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
};

/** `--format lkml`: a short regression report a maintainer recognises: commit, metric, change, how it was measured. */
export const bisectLkml: BisectReporter = (doc) => {
  const o = doc.outcome;
  const good = measuredValue(doc.steps, doc.good.hash) ?? 0;
  const bad = measuredValue(doc.steps, doc.bad.hash) ?? 0;
  const booted = doc.steps.filter((s) => s.state === 'measured').length;
  const running = doc.metric.name === 'icount-bogo-ops/s' ? 'running stress-ng (bogo-ops per guest second' : '(guest instructions';
  const qemu = doc.target === null ? 'qemu -icount' : `qemu -icount on a LAVA lab (${doc.target})`;
  const how = doc.mode.kind === 'exact'
    ? `each commit built and booted under ${qemu} ${running}, exact: counts repeat boot to boot, one boot per commit)`
    : `each commit built and booted ${doc.mode.bootsPerStep} times under ${qemu} ${running}; counts did not repeat exactly, mean of the boots)`;
  const head = o.state === 'found'
    ? [`${metricWords(doc)}: ${changeText(doc, good, bad)} between ${doc.refs.good} and ${doc.refs.bad}, bisected to`, '', `  commit ${o.firstBad.hash} ("${o.firstBad.subject}")`, `  Author: ${o.firstBad.author}`]
    : [`${metricWords(doc)}: ${changeText(doc, good, bad)} between ${doc.refs.good} and ${doc.refs.bad}; the bisect ends on ${o.candidates.length} candidates (commits between them did not build or boot):`, '', ...o.candidates.map((c) => `  commit ${c.hash} ("${c.subject}")`)];
  const lines = [
    ...head,
    '',
    `  metric:   ${metricWords(doc)}${doc.metric.costModel ? ` (cost model ${doc.metric.costModel})` : ''}`,
    `  change:   ${valueText(doc, good)} (good) -> ${valueText(doc, bad)} (bad)`,
    `  measured: ${how}; ${booted} of ${doc.commits} commits booted`,
    '',
    'bisect log:',
    ...replayLog(doc).map((l) => `  ${l}`),
  ];
  return `${lines.join('\n')}\n`;
};

/** One progress line of a running bisect (stderr), for `metric`. */
export function bisectEventLine(e: BisectEvent, metric: BisectDocument['metric']): string {
  const doc = { metric };
  if (e.kind === 'range') return `${e.commits} commits from ${short(e.good)} (good) to ${short(e.bad)} (bad) on the first-parent line; booting both endpoints twice to check that counts repeat`;
  if (e.kind === 'mode') return `mode: ${modeLine(e.mode)}`;
  const s = e.step;
  const where = `${s.role === 'step' ? '' : 'endpoint '}${short(s.commit)} ${s.commit.subject}`;
  if (s.state === 'skip') return `skip ${where}: ${s.reason.split('\n')[0] ?? ''}${s.reused ? ' (stored)' : ''}`;
  return `${s.side.padEnd(4)} ${where}: ${valueText(doc, s.value)}${s.boots.length > 1 ? ` (mean of ${s.boots.length} boots)` : ''}${s.reused ? ' (stored)' : ''}`;
}

/** The report formats of `hintlab bisect`, by --format name. */
export const BISECT_REPORTERS: Record<string, BisectReporter> = { text: bisectText, json: bisectJson, lkml: bisectLkml };
