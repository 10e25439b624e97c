/**
 * The report's tables as plain cells, rendered by both the Markdown and the
 * HTML reports (so the two always show the same figures). Cells are
 * unescaped text; each renderer escapes for its own syntax.
 */
import type { Comparison, Contrast, RunRole, SubjectComparison } from '../compare/types.ts';
import { fixed, formatP, readableDecimals, signed } from '../format/numbers.ts';
import { unitNounOf, unitWords } from '../format/units.ts';
import { directionOf } from '../model.ts';
import { runName } from './facts.ts';
import { comparisonClockText, contrastDecimals, designOf, isInterval, roundsText } from './comparison-words.ts';
import { judgedContrast } from '../compare/verdict.ts';
import { rankNameOf, subjectsRegressionsFirst, testNameOf, verdictText } from './summary.ts';

export interface Table {
  /** Stable id (HTML id, test hook). */
  id: string;
  caption: string;
  headers: string[];
  rows: string[][];
  /** Columns holding numbers: right-aligned. */
  numeric: number[];
  /** Per row, the columns each cell spans (absent, or absent for a row: one each); the spans of a row add up to the headers. */
  spans?: (number[] | undefined)[];
}

/** A row's cells, each followed by an empty cell per extra column it spans (for formats without spans). */
export function unspannedCells(t: Table, i: number): string[] {
  const spans = t.spans?.[i];
  const row = t.rows[i] ?? [];
  return spans === undefined ? row : row.flatMap((cell, j) => [cell, ...Array.from({ length: (spans[j] ?? 1) - 1 }, () => '')]);
}

function roles(c: Comparison): RunRole[] {
  return c.runs.map((r) => r.role);
}

/** A test's p-value, or why there is none. */
function pText(t: Contrast['test'] | Contrast['rank']): string {
  return t.kind === 'ok' ? formatP(t.pValue) : `n/a (${t.reason})`;
}

/** The adjusted p the verdict used, or why the contrast was not tested. */
function adjustedText(a: Contrast['adjusted']): string {
  return a.kind === 'adjusted' ? formatP(a.pValue) : `n/a (${a.reason})`;
}

/** The adjusted p's column header, or none when the correction is none (it would repeat the raw p). */
function adjustedHeader(c: Comparison, test = testNameOf(c)): string[] {
  return c.multipleComparisons.correction === 'holm' ? [`p ${test} (Holm)`] : [];
}

function ciRange(s: SubjectComparison['change']['ciPct'], decimals: number): string {
  return isInterval(s) ? `${signed(s.low, decimals)} to ${signed(s.high, decimals)}` : `n/a (${s.reason})`;
}

/** The one value of a row every run shows alike, or undefined. */
function sharedValue(f: Comparison['environment'][number], rs: RunRole[]): [string] | undefined {
  const values = rs.map((r) => f.values[r]);
  const first = values[0];
  return rs.length > 1 && first !== undefined && values.every((v) => v === first) ? [first] : undefined;
}

/** The runs compared: role, id and label, kind, status, start time. */
export function runsTable(c: Comparison): Table {
  return {
    id: 'runs',
    caption: 'Runs compared',
    headers: ['Run', 'Id and label', 'Kind', 'Status', 'Started', 'hintlab'],
    rows: c.runs.map((r) => [r.role, runName(r), r.kind, r.status, r.startedAt, r.hintlabVersion]),
    numeric: [],
  };
}

/**
 * One row per subject: means per run, the change the verdict used (B vs A,
 * or B vs A+A2 for A/B/A) with its interval, round CV, rounds, p-values
 * (raw and, with Holm, adjusted), verdict.
 */
export function resultsTable(c: Comparison): Table {
  const u = unitWords(c.unit);
  const rs = roles(c);
  const adjusted = adjustedHeader(c);
  return {
    id: 'results',
    caption: `Results (${u.perOp}, ${comparisonClockText(c)}; change is ${c.subjects.some((s) => s.judgedOn === 'B vs A+A2') ? 'B vs A+A2, the contrast the verdict used' : 'B vs A'})`,
    headers: [
      'Subject',
      ...rs.map((r) => `${r} mean (${u.perOp})`),
      `Change (${u.change})`,
      'Change (%)',
      '95 % CI (%)',
      `Round CV ${rs.join('/')} (%)`,
      // Throughput rounds are timed, not counted in ops (their cells say "5 rounds").
      directionOf(c.unit) === 'higher-is-better' ? 'Rounds' : 'Rounds x ops',
      `p ${testNameOf(c)}`,
      ...adjusted,
      `p ${rankNameOf(c)}`,
      'Verdict',
    ],
    rows: subjectsRegressionsFirst(c).map((s) => {
      const judged = judgedContrast(s);
      const { unit: d, pct: pd, ci: cd } = contrastDecimals(judged);
      const ci = judged.ciPct;
      const cvd = readableDecimals(1, s.runs.map((r) => r.cvPct));
      return [
        s.subject,
        ...rs.map((role) => {
          const run = s.runs.find((x) => x.role === role);
          return run ? fixed(run.meanInUnit, d) : 'not measured';
        }),
        signed(judged.changeInUnit, d),
        signed(judged.changePct, pd),
        s.verdict.exact ? 'exact' : ciRange(ci, cd),
        s.runs.map((r) => fixed(r.cvPct, cvd)).join('/'),
        roundsText(s.runs, c.unit, designOf(c)),
        pText(judged.test),
        ...(adjusted.length > 0 ? [adjustedText(judged.adjusted)] : []),
        pText(judged.rank),
        verdictText(s),
      ];
    }),
    // Every column between the subject and the verdict.
    numeric: Array.from({ length: rs.length + 7 + adjusted.length }, (_, i) => i + 1),
  };
}

/** A/B/A: the drift A2 vs A, and B judged against the pooled baseline and the midpoint. Undefined without A2. */
export function driftTable(c: Comparison): Table | undefined {
  if (!c.subjects.some((s) => s.drift.kind !== 'no-a2')) return undefined;
  const adjusted = adjustedHeader(c, 'Welch');
  return {
    id: 'drift',
    caption: 'A/B/A: baseline drift and B against both baselines',
    headers: [
      'Subject',
      'Drift A2 vs A (%)',
      '95 % CI (%)',
      'p Welch',
      ...adjusted,
      'Drift verdict',
      'B vs A+A2 (%)',
      '95 % CI (%)',
      'B vs midpoint (%)',
      'Drift as large as change',
    ],
    rows: c.subjects.map((s) => {
      const blank = Array<string>(7 + adjusted.length).fill('');
      if (s.drift.kind === 'no-a2') return [s.subject, 'no A2', ...blank];
      if (s.drift.kind === 'insufficient-data') return [s.subject, `n/a (${s.drift.reason})`, ...blank];
      const { drift, driftVerdict, vsPooled, vsMidpoint, driftAsLargeAsChange } = s.drift;
      const dd = contrastDecimals(drift);
      const pd = contrastDecimals(vsPooled);
      return [
        s.subject,
        signed(drift.changePct, dd.pct),
        ciRange(drift.ciPct, dd.ci),
        pText(drift.test),
        ...(adjusted.length > 0 ? [adjustedText(drift.adjusted)] : []),
        driftVerdict.verdict,
        signed(vsPooled.changePct, pd.pct),
        ciRange(vsPooled.ciPct, pd.ci),
        signed(vsMidpoint.changePct, readableDecimals(pd.ci, [vsMidpoint.changePct])),
        driftAsLargeAsChange ? 'yes: the change may be drift' : 'no',
      ];
    }),
    // Drift, its CI and p-values; B vs A+A2, its CI, B vs midpoint.
    numeric: [1, 2, 3, ...adjusted.map((_, i) => 4 + i), 5 + adjusted.length, 6 + adjusted.length, 7 + adjusted.length],
  };
}

/** 'Pairs' for paired designs, else 'Processes', 'Boots', 'Invocations', or 'Units' for runs that did not record theirs. */
function unitNoun(c: Comparison): string {
  if (c.design.kind === 'duet' || c.design.kind === 'alternation') return 'Pairs';
  const u = c.subjects[0]?.runs[0]?.replicateUnit;
  const noun = u?.known ? unitNounOf(u.value, true) : 'units';
  return noun.charAt(0).toUpperCase() + noun.slice(1);
}

/**
 * The smallest detectable change per subject (of the contrast the verdict
 * used), with --detect the units a given change needs, and, where nothing
 * was proven, what design or budget would reach a change worth claiming.
 */
export function powerTable(c: Comparison): Table {
  const detect = c.options.detectPct;
  const advice = c.subjects.some((s) => s.power.kind === 'ok' && s.power.advice !== null);
  return {
    id: 'power',
    caption: `Sensitivity (alpha ${c.options.alpha}, power ${c.options.power})`,
    headers: [
      'Subject',
      'Smallest detectable change (%)',
      ...(detect !== null ? [`${unitNoun(c)} per run to detect ${detect} %`] : []),
      ...(advice ? ['What would reach a change worth claiming'] : []),
    ],
    rows: c.subjects.map((s) => {
      const p = s.power;
      if (p.kind !== 'ok') return [s.subject, `n/a (${p.reason})`, ...(detect !== null ? [''] : []), ...(advice ? [''] : [])];
      const needed = p.unitsNeeded === null ? 'n/a' : String(p.unitsNeeded);
      return [s.subject, fixed(p.claimablePct, readableDecimals(2, [p.claimablePct])), ...(detect !== null ? [needed] : []), ...(advice ? [p.advice ?? ''] : [])];
    }),
    numeric: detect !== null ? [1, 2] : [1],
  };
}

/** The environment side by side, as the comparison recorded it. */
export function environmentTable(c: Comparison): Table {
  const rs = roles(c);
  const kindText = { checked: 'must match', expected: 'expected to differ', info: 'shown' } as const;
  return {
    id: 'environment',
    caption: 'Environment side by side',
    headers: ['Field', ...rs, 'Check', 'Same'],
    // a value every run shares (a kernel command line, the CPU model) is written once, across the runs' columns
    rows: c.environment.map((f) => [f.field, ...(sharedValue(f, rs) ?? rs.map((r) => f.values[r] ?? '')), kindText[f.kind], f.same ? 'yes' : 'no']),
    spans: c.environment.map((f) => (sharedValue(f, rs) === undefined ? undefined : [1, rs.length, 1, 1])),
    numeric: [],
  };
}
