/**
 * A behaviour comparison (src/behave/compare.ts) as text: the terminal's
 * report (`behaveText`) and the lines for a changelog or a mail
 * (`behaveLkml`, at most 72 columns). Both only format the document.
 */
import type { Scenario } from '../behave/scenario.ts';
import { formatSeconds } from '../format/durations.ts';
import { notJudgedSteps, type BehaveDocument, type BehaveKernel } from '../behave/compare.ts';
import type { Divergence, FieldDifference, NotJudged, StepOutcome } from '../behave/judge.ts';
import { LKML_COLUMNS, wrapProse } from './wrap.ts';

/** Scenarios a mail's headline names; more are counted. */
const LKML_SCENARIO_NAMES = 4;

/** Divergent steps shown per scenario in the terminal report; the JSON document has them all. */
const SHOWN_PER_SCENARIO = 10;

/** Places not judged that a headline names; more are counted. */
const HEADLINE_PLACES = 4;

function outcomeText(o: StepOutcome): string {
  return `ret=${o.ret} errno=${o.errno}${o.out === '-' ? '' : ` ${o.out}`}`;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function compared(doc: BehaveDocument): string[] {
  return doc.scenarios.filter((s) => s.state === 'compared').map((s) => s.name);
}

/** Where A did not repeat itself, in a few words: "slice step 9". */
function notJudgedPlace(u: NotJudged): string {
  if (u.kind === 'step') return `${u.scenario} step ${u.step}`;
  if (u.kind === 'missing') return `${u.scenario} from step ${u.step}`;
  if (u.kind === 'end') return `${u.scenario}'s end status`;
  return 'a kernel warning on one boot of A';
}

/** "; 1 step could not be judged (A varied): slice step 9", or nothing when A repeated everything. */
function notJudgedClause(doc: BehaveDocument): string {
  if (doc.notJudged.length === 0) return '';
  const places = doc.notJudged.slice(0, HEADLINE_PLACES).map(notJudgedPlace);
  if (doc.notJudged.length > HEADLINE_PLACES) places.push(`${doc.notJudged.length - HEADLINE_PLACES} more`);
  const steps = notJudgedSteps(doc);
  return `; ${steps ? `${count(steps, 'step')} ` : ''}could not be judged (${doc.a.label} varied): ${places.join(', ')}`;
}

/**
 * The one-line verdict: `N steps identical on A (booted twice) and B`, or
 * `D divergences in N steps between A and B (...); K steps could not be
 * judged (A varied): ...`, with the scenarios' names (their count when
 * there are more than `maxNames`). A document from before A was booted
 * twice says so.
 */
export function behaveHeadline(doc: BehaveDocument, maxNames = Infinity): string {
  const { a, b } = doc;
  const list = compared(doc);
  const names = list.length > maxNames ? `${list.length} scenarios` : `scenarios: ${list.join(', ')}`;
  const boots = doc.aAgain ? 'booted twice' : 'booted once, repeats not checked';
  if (doc.identical) return `behaviour: ${count(doc.steps, 'step')} identical on ${a.label} (${boots}) and ${b.label} (${names})`;
  return `behaviour: ${count(doc.divergences.length, 'divergence')} in ${count(doc.steps, 'step')} between ${a.label} (${boots}) and ${b.label} (${names})${notJudgedClause(doc)}`;
}

function kernelLine(k: BehaveKernel): string {
  const how = k.reused ? 'trace reused from the store' : `booted in ${k.bootSeconds === null ? '? s' : formatSeconds(k.bootSeconds, 1)}`;
  return `${k.label}: ${k.kernelRelease ?? 'kernel release unknown'}, ${k.image} (sha256 ${k.imageSha256.slice(0, 12)}), ${how}`;
}

function differenceText(d: FieldDifference, a: string, b: string): string {
  return `${d.field}: ${a} ${d.a ?? '(absent)'}, ${b} ${d.b ?? '(absent)'}`;
}

function divergenceLines(d: Divergence, doc: BehaveDocument): string[] {
  const [a, b] = [doc.a.label, doc.b.label];
  switch (d.kind) {
    case 'splat':
      return [`kernel warning on ${d.kernel === 'A' ? a : b}'s console:`, ...d.lines.map((l) => `  | ${l}`)];
    case 'missing':
      return [`scenario ${d.scenario}, step ${d.step}: only ${d.presentIn === 'A' ? a : b} has it (${d.call})`];
    case 'end':
      return [`scenario ${d.scenario} ended with status ${d.a ?? 'none'} on ${a}, ${d.b ?? 'none'} on ${b}`];
    case 'step': {
      const state = d.differences.filter((f) => f.field.includes('.'));
      return [
        `scenario ${d.scenario}, step ${d.step} (${doc.scenarios.find((s) => s.name === d.scenario)?.source ?? 'line'}:${d.line}): ${d.call}`,
        `  ${a}: ${outcomeText(d.a)}`,
        `  ${b}: ${outcomeText(d.b)}`,
        ...state.map((f) => `  state ${differenceText(f, a, b)}`),
        ...(d.before.length ? ['  steps before it:', ...d.before.map((p) => `    ${p.step}: ${p.call} -> ${outcomeText(p.outcome)}`)] : []),
      ];
    }
  }
}

/** A place A did not repeat, with both of A's values. */
function notJudgedLines(u: NotJudged, doc: BehaveDocument): string[] {
  const [a, again] = [doc.a.label, doc.aAgain?.label ?? `${doc.a.label} again`];
  switch (u.kind) {
    case 'splat':
      return [`not judged: a kernel warning on one boot of ${a} only:`, ...u.lines.map((l) => `  | ${l}`)];
    case 'missing':
      return [`not judged: scenario ${u.scenario} from step ${u.step} (${u.call}): ${a}'s two boots took different steps`];
    case 'end':
      return [`not judged: scenario ${u.scenario} ended with status ${u.a ?? 'none'} on ${a}, ${u.aAgain ?? 'none'} on ${again}`];
    case 'step':
      return [
        `not judged: scenario ${u.scenario}, step ${u.step} (${doc.scenarios.find((s) => s.name === u.scenario)?.source ?? 'line'}:${u.line}): ${u.call}`,
        `  ${a}: ${outcomeText(u.a)}`,
        `  ${again}: ${outcomeText(u.aAgain)}`,
        ...u.differences.filter((f) => f.field.includes('.')).map((f) => `  state ${differenceText(f, a, again)}`),
      ];
  }
}

/** The terminal report: the headline, the kernels, every divergence (capped per scenario), what was not judged, what did not run. */
export function behaveText(doc: BehaveDocument): string {
  const third = doc.aAgain ? kernelLine(doc.aAgain) : `${doc.a.label} again: not booted (a comparison from before ${doc.a.label} was booted twice; a step that varies from boot to boot is not told apart)`;
  const lines = [behaveHeadline(doc), kernelLine(doc.a), kernelLine(doc.b), third];
  lines.push(`steps per scenario: ${doc.scenarios.filter((s) => s.state === 'compared').map((s) => `${s.name} ${s.steps}`).join(', ')}`);
  for (const s of doc.scenarios.filter((x) => x.state === 'not-run')) lines.push(`not run: ${s.name} (${s.reason})`);
  const shown = new Map<string, number>();
  for (const d of doc.divergences) {
    const key = d.kind === 'splat' ? `splat-${shown.size}` : d.scenario;
    const n = (shown.get(key) ?? 0) + 1;
    shown.set(key, n);
    if (n <= SHOWN_PER_SCENARIO) lines.push('', ...divergenceLines(d, doc));
  }
  for (const [scenario, n] of shown) {
    if (n > SHOWN_PER_SCENARIO) lines.push('', `scenario ${scenario}: ${n - SHOWN_PER_SCENARIO} more divergent steps (all of them are in --json)`);
  }
  for (const u of doc.notJudged) lines.push('', ...notJudgedLines(u, doc));
  for (const l of doc.sharedSplats) lines.push('', `kernel warning on every boot of ${doc.a.label} and ${doc.b.label} alike (no divergence):`, ...l.map((x) => `  | ${x}`));
  return `${lines.join('\n')}\n`;
}

/** One divergence in a sentence, for a mail. */
function lkmlDivergence(d: Divergence, doc: BehaveDocument): string {
  const [a, b] = [doc.a.label, doc.b.label];
  if (d.kind === 'splat') return `a kernel warning on ${d.kernel === 'A' ? a : b}: ${d.lines[0]?.trim() ?? ''}`;
  if (d.kind === 'missing') return `${d.scenario} step ${d.step} only on ${d.presentIn === 'A' ? a : b}: ${d.call}`;
  if (d.kind === 'end') return `${d.scenario} ended with status ${d.a ?? 'none'} on ${a}, ${d.b ?? 'none'} on ${b}`;
  return `${d.scenario} step ${d.step}, ${d.call}: ${fieldsText(d.differences, a, b)}`;
}

function fieldsText(differences: FieldDifference[], a: string, b: string): string {
  return differences.flatMap((f) => memberDifferences(f)).map((f) => `${f.field} ${f.a ?? '(absent)'} on ${a}, ${f.b ?? '(absent)'} on ${b}`).join('; ');
}

/** One place A did not repeat, in a sentence, for a mail. */
function lkmlNotJudged(u: NotJudged, doc: BehaveDocument): string {
  const [a, again] = [doc.a.label, doc.aAgain?.label ?? `${doc.a.label} again`];
  if (u.kind === 'step') return `not judged: ${u.scenario} step ${u.step}, ${u.call}: ${fieldsText(u.differences, a, again)}`;
  if (u.kind === 'splat') return `not judged: a kernel warning on one boot of ${a}: ${u.lines[0]?.trim() ?? ''}`;
  return `not judged: ${notJudgedPlace(u)}, where ${a}'s two boots differ`;
}

/** `k=v` (or `k:v`) members of a printed struct ("policy=0,prio=1", "policy=0 prio=1", "state:R,slice:0.700000"), or null when the text is not such a list. */
function members(text: string | null): Map<string, string> | null {
  if (text === null) return null;
  const tokens = text.replace(/^\{|\}$/g, '').split(/[ ,]+/).filter((t) => t !== '');
  const pairs = tokens.map((t) => /^([\w.\[\]-]+)[=:](.*)$/.exec(t));
  if (pairs.length === 0 || pairs.some((p) => p === null)) return null;
  return new Map(pairs.map((p) => [p![1]!, p![2]!]));
}

/**
 * A struct printed whole on A and on B says little twice: when both sides
 * are `k=v` lists, only the members that differ are named ("out.slice
 * 3000000 on A, 2800000 on B").
 */
function memberDifferences(f: FieldDifference): FieldDifference[] {
  const [ma, mb] = [members(f.a), members(f.b)];
  if (ma === null || mb === null) return [f];
  const keys = [...new Set([...ma.keys(), ...mb.keys()])].filter((k) => ma.get(k) !== mb.get(k));
  return keys.length === 0 ? [f] : keys.map((k) => ({ field: `${f.field}.${k}`, a: ma.get(k) ?? null, b: mb.get(k) ?? null }));
}

/**
 * The changelog lines: the headline, then one wrapped entry per divergence
 * (the first `max`, then how many more); at most 72 columns.
 */
export function behaveLkml(doc: BehaveDocument, max = Infinity): string {
  const head = behaveHeadline(doc, LKML_SCENARIO_NAMES);
  const lines = wrapProse(doc.identical ? head : `${head}:`, LKML_COLUMNS);
  for (const d of doc.divergences.slice(0, max)) lines.push(...wrapProse(lkmlDivergence(d, doc), LKML_COLUMNS, '  - ', '    '));
  const more = doc.divergences.length - max;
  if (more > 0) lines.push(...wrapProse(`${more} more (each in the text, md and html reports)`, LKML_COLUMNS, '  - ', '    '));
  for (const u of doc.notJudged.slice(0, max)) lines.push(...wrapProse(lkmlNotJudged(u, doc), LKML_COLUMNS, '  - ', '    '));
  if (doc.notJudged.length > max) lines.push(...wrapProse(`${doc.notJudged.length - max} more not judged (each in the text, md and html reports)`, LKML_COLUMNS, '  - ', '    '));
  for (const l of doc.sharedSplats) lines.push(...wrapProse(`kernel warning on every boot of ${doc.a.label} and ${doc.b.label} alike: ${l[0]?.trim() ?? ''}`, LKML_COLUMNS));
  // a claim of "identical" must not hide what was never run
  const notRun = doc.scenarios.filter((s) => s.state === 'not-run');
  // the reason's first clause ("needs 2 CPUs"); the why after it is in the text report
  if (notRun.length) lines.push(...wrapProse(`not run: ${notRun.map((s) => `${s.name} (${s.reason?.split(';')[0]})`).join(', ')}`, LKML_COLUMNS));
  return `${lines.join('\n')}\n`;
}

/** A kernel's trace as `hintlab behave` goes: reused from `dbPath`, booting, or traced in so many seconds. */
export function traceBootLine(label: string, state: 'reused' | 'booting' | 'booted', seconds: number | undefined, dbPath: string): string {
  if (state === 'reused') return `kernel ${label}: trace reused from ${dbPath}\n`;
  if (state === 'booting') return `kernel ${label}: booting (icount, 1 CPU)\n`;
  return `kernel ${label}: trace in ${seconds === undefined ? '? s' : formatSeconds(seconds, 1)}\n`;
}

/** `behave --list`: one line per scenario, with its steps, whether it needs a peer task and its CPUs. */
export function scenarioListText(scenarios: readonly Scenario[]): string {
  return scenarios.map((s) => `${s.name.padEnd(20)} ${String(s.steps.length).padStart(3)} steps${s.peer ? '  peer' : ''}${s.cpus > 1 ? `  needs ${s.cpus} CPUs` : ''}\n`).join('');
}

/** `behave --show`: lines `from` to before `to` of a scenario file's text, numbered as a divergence names them. */
export function numberedLines(text: string, from: number, to: number): string {
  const lines = text.split('\n');
  let out = '';
  for (let n = from; n < to && n <= lines.length; n++) out += `${String(n).padStart(4)}  ${lines[n - 1]}\n`;
  return out;
}
