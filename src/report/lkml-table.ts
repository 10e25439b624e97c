/**
 * The mailing-list block's numbers as one aligned table, the size of the
 * tables maintainers paste themselves: subject | A | B | change | 95 % CI |
 * verdict, one row per subject whose verdict is not "no difference proven",
 * and one line for the others (unless every row is asked for). Never wider
 * than 72 columns: a subject too long for its column gets a line of its
 * own, its numbers on the next.
 */
import type { Caveat, Comparison, SubjectComparison, Verdict } from '../compare/types.ts';
import { alignColumns } from '../format/columns.ts';
import { fixed, readableDecimals, signed } from '../format/numbers.ts';
import { pctFixed } from '../format/percent.ts';
import { contrastDecimals, countOf, isInterval } from './comparison-words.ts';
import { CAVEAT_TEXT, testNameOf, controlsText, driftText, geometricMeanText, notComparedText, notRunText } from './summary.ts';
import { isClaim, judgedContrast } from '../compare/verdict.ts';
import { unitNounOf } from '../format/units.ts';
import { LKML_COLUMNS, lkmlPara, plain, wrapProse } from './wrap.ts';

/** Short verdict words for a 72-column row; the unit line above the table says what "fewer" counts. */
const VERDICT_CELL: Record<Verdict, string> = {
  faster: 'faster',
  slower: 'slower',
  'fewer instructions': 'fewer',
  'more instructions': 'more',
  'no difference proven': 'no difference',
  identical: 'identical',
  'insufficient data': 'insufficient data',
  'insufficient units': 'too few units',
};

/** Footnote marks for the caveats a verdict carries (the text is the one every report uses). */
const CAVEAT_MARK: Record<Caveat, { mark: string; text: string }> = Object.fromEntries(
  (Object.entries({ 'drift-as-large-as-change': '*', 'tests-disagree': '+', 'separate-runs': '!', 'incomplete-run': '?', 'inside-threshold': '~', 'boots-in-blocks': '#' }) as [Caveat, string][]).map(
    ([k, mark]) => [k, { mark, text: CAVEAT_TEXT[k].replace(/^but /, '') }],
  ),
) as Record<Caveat, { mark: string; text: string }>;

const HEADERS = ['subject', 'A', 'B', 'change', '95 % CI, %', 'verdict'];

/**
 * One row's cells: means with the rule of src/format/numbers.ts, change and
 * CI in %, of the contrast the verdict used (B vs A+A2 for A/B/A: its A
 * column is the baseline both A runs give).
 */
function rowCells(s: SubjectComparison): string[] {
  const ch = judgedContrast(s);
  const d = contrastDecimals(ch);
  const ci = s.verdict.exact ? 'exact' : isInterval(ch.ciPct) ? `${signed(ch.ciPct.low, d.ci)} to ${signed(ch.ciPct.high, d.ci)}` : 'n/a';
  const marks = s.verdict.caveats.map((c) => CAVEAT_MARK[c].mark).join('');
  const verdict = `${VERDICT_CELL[s.verdict.verdict]}${marks}${s.control ? ' (control)' : ''}`;
  return [s.subject, fixed(ch.baselineMeanInUnit, d.unit), fixed(ch.candidateMeanInUnit, d.unit), `${signed(ch.changePct, d.pct)} %`, ci, verdict];
}

/**
 * Rows aligned in at most `width` columns: the subject column is cut to
 * what the number columns leave, and a longer subject sits on a line of
 * its own above its numbers.
 */
export function alignedRows(header: string[], rows: string[][], width = LKML_COLUMNS): string[] {
  const right = (i: number): boolean => i >= 1 && i <= 3;
  const rest = alignColumns([header, ...rows].map((r) => ['', ...r.slice(1)]), right).map((l) => l.length);
  const room = Math.max(header[0]!.length, width - Math.max(...rest));
  const out: string[] = [];
  const cut = rows.map((r) => (r[0]!.length > room ? ['', ...r.slice(1)] : r).map(plain));
  const lines = alignColumns([header, ...cut], right);
  out.push(lines[0]!);
  rows.forEach((r, i) => {
    // A name longer than a whole line is cut by the wrapper (a subject has no separators to break at).
    if (r[0]!.length > room) out.push(...wrapProse(plain(r[0]!), width));
    out.push(lines[i + 1]!);
  });
  return out;
}

/** Subjects a maintainer must see: every verdict but "no difference proven", regressions first. */
function shownSubjects(c: Comparison, all: boolean): { shown: SubjectComparison[]; folded: SubjectComparison[] } {
  const worse = new Set(c.regressions);
  const ordered = [...c.subjects.filter((s) => worse.has(s.subject)), ...c.subjects.filter((s) => !worse.has(s.subject))];
  if (all) return { shown: ordered, folded: [] };
  const folded = ordered.filter((s) => s.verdict.verdict === 'no difference proven');
  // Folding a single row saves nothing.
  if (folded.length < 2) return { shown: ordered, folded: [] };
  return { shown: ordered.filter((s) => !folded.includes(s)), folded };
}

/**
 * "12 others: no difference proven beyond ±1 %, largest |change| 0.03 %
 * (getppid)". The largest change is the honest summary of what was folded.
 */
export function foldedText(c: Comparison, folded: SubjectComparison[], allShown: boolean): string | undefined {
  if (folded.length === 0) return undefined;
  const judgedPct = (s: SubjectComparison): number => Math.abs(judgedContrast(s).changePct);
  const largest = folded.reduce((m, s) => (judgedPct(s) > judgedPct(m) ? s : m));
  const pct = judgedPct(largest);
  const who = allShown ? (folded.length === 1 ? '1 subject' : `all ${folded.length} subjects`) : folded.length === 1 ? '1 other' : `${folded.length} others`;
  // A caveat of a folded subject stays visible: its mark follows the count, as it follows a verdict.
  const marks = (Object.keys(CAVEAT_MARK) as Caveat[]).filter((k) => folded.some((s) => s.verdict.caveats.includes(k))).map((k) => CAVEAT_MARK[k].mark).join('');
  return (
    `${who}${marks}: no difference proven beyond ±${c.options.thresholdPct} %, largest |change| ` +
    `${fixed(pct, readableDecimals(2, [pct]))} % (${largest.subject}; --all lists them).`
  );
}

/** The table's lines, the folded line, and one line per caveat mark used. */
export function subjectTable(c: Comparison, all = false): string[] {
  const { shown, folded } = shownSubjects(c, all);
  const lines = shown.length > 0 ? alignedRows(HEADERS, shown.map(rowCells)) : [];
  const fold = foldedText(c, folded, shown.length === 0);
  const used = (Object.keys(CAVEAT_MARK) as Caveat[]).filter((k) => c.subjects.some((s) => s.verdict.caveats.includes(k)));
  return [...lines, ...(fold === undefined ? [] : lkmlPara(fold)), ...used.flatMap((k) => lkmlPara(`${CAVEAT_MARK[k].mark} ${CAVEAT_MARK[k].text}`))];
}

/** "no difference proven: detectable 0.8 %" over the folded subjects, for the verdict rule line. */
export function detectableText(c: Comparison): string | undefined {
  const claimable = c.subjects.flatMap((s) => (s.verdict.verdict === 'no difference proven' && s.power.kind === 'ok' ? [s.power.claimablePct] : []));
  if (claimable.length === 0) return undefined;
  const [lo, hi] = [pctFixed(Math.min(...claimable)), pctFixed(Math.max(...claimable))];
  return lo === hi ? `${lo} %` : `${lo}-${hi} %`;
}

/** The one line naming the measurement design (`comparison.design`, schema 6), when the document carries it. */
export function designLine(c: Comparison): string | undefined {
  const design: unknown = (c as { design?: unknown }).design;
  if (typeof design !== 'object' || design === null) return undefined;
  const text: unknown = (design as { text?: unknown }).text;
  return typeof text === 'string' && text.trim() !== '' ? `Design: ${text.trim()}` : undefined;
}

/**
 * How the verdicts were decided, in two lines, with the test that decided
 * (Welch, paired t, run-level t, drift-model t, anytime): "Verdicts: Welch p < 0.05
 * (Holm, 15 subjects) on process means and beyond ±1 % by a one-sided
 * test (Holm); smallest claimable change 0.8-1.2 %."
 */
export function verdictRuleShort(c: Comparison): string {
  const o = c.options;
  const m = c.multipleComparisons;
  const correction = m.familySize === 0 ? 'no subject could be tested' : `${o.correction === 'holm' ? 'Holm' : 'no correction'}, ${countOf(m.familySize, 'subject')}`;
  const u = c.subjects[0]?.runs[0]?.replicateUnit;
  // A document of schema 5 or older has no design (see designLine).
  const design = (c as { design?: Comparison['design'] }).design;
  const paired = design?.kind === 'duet' || design?.kind === 'alternation';
  const pairsOn = design?.pairsPerGeneration !== undefined ? 'on generations of processes (mean B/A of their pairs)' : 'on pairs (B/A of each pair)';
  const runLevels = design?.kind === 'abbaab' ? 'on run levels in ABBAAB order (linear drift fitted)' : null;
  const on = o.roundsAsUnits ? 'on rounds as units' : paired ? pairsOn : (runLevels ?? (u?.known ? `on ${unitNounOf(u.value, false)} means` : 'on run means'));
  const aba = c.subjects.some((s) => s.judgedOn === 'B vs A+A2') ? ', B against A+A2' : '';
  const detectable = detectableText(c);
  return (
    `Verdicts: ${testNameOf(c)} p < ${o.alpha} (${correction}) ${on}${aba} and beyond ` +
    `±${o.thresholdPct} % by a one-sided test${o.correction === 'holm' ? ' (Holm)' : ''}${detectable ? `; smallest claimable change ${detectable}` : ''}.`
  );
}

/**
 * The baseline drift (A2 vs A) in a line: every subject when there are
 * few, else the largest and each one whose baseline moved.
 */
export function driftSummaryText(c: Comparison): string | undefined {
  const measured = c.subjects.filter((s) => s.drift.kind !== 'no-a2');
  if (measured.length === 0) return undefined;
  if (measured.length <= 3) return `Baseline drift (A2 vs A): ${measured.map(driftText).join('; ')}.`;
  const sized = measured.flatMap((s) => (s.drift.kind === 'measured' ? [{ s, pct: Math.abs(s.drift.drift.changePct) }] : []));
  const moved = measured.filter((s) => s.drift.kind === 'measured' && isClaim(s.drift.driftVerdict.verdict));
  const largest = sized.reduce<(typeof sized)[number] | undefined>((m, x) => (m === undefined || x.pct > m.pct ? x : m), undefined);
  const big = largest === undefined ? 'not measurable' : `largest |drift| ${fixed(largest.pct, readableDecimals(2, [largest.pct]))} % (${largest.s.subject})`;
  return `Baseline drift (A2 vs A) over ${measured.length} subjects: ${big}${moved.length ? `; moved: ${moved.map(driftText).join('; ')}` : ''}.`;
}

/** The caption, the table and the lines that say how to read it. */
export function measuredLines(c: Comparison, caption: string, opts: { all: boolean; geometricMean: boolean }): string[] {
  const { all } = opts;
  const prose = [verdictRuleShort(c), opts.geometricMean ? geometricMeanText(c) : undefined, controlsText(c), notRunText(c), notComparedText(c)].filter((x): x is string => x !== undefined);
  return [...lkmlPara(caption), ...subjectTable(c, all), ...prose.flatMap((p) => lkmlPara(p))];
}

