/**
 * The terminal report of a Comparison: regressions and the geometric mean
 * first (a reader who stops after the first screen must still see what got
 * slower), then a summary table with one row per subject and its verdict, a
 * compact block per subject, and the environment side by side. Returns text; the
 * caller decides where it goes. Every figure carries its unit and noise.
 */
import { unitCount } from '../compare/units.ts';
import { intervalName, judgedContrast, testClause } from '../compare/verdict.ts';
import { decimalsFor, fixed, formatP, readableDecimals } from '../format/numbers.ts';
import { formatChangePct, formatSpreadPct } from '../format/percent.ts';
import { formatChange, formatChangeAt, formatValue, unitSuffix } from '../format/units.ts';
import type {
  Comparison,
  ComparedRun,
  Contrast,
  RunRole,
  RunSummary,
  SubjectComparison,
} from '../compare/types.ts';
import type { Unit } from '../model.ts';
import {
  branchHeading,
  branchTable,
  codegenSentence,
  codegenTable,
  moreText,
  noHintsText,
  type PatchDocuments,
  patchRows,
  TABLE_BRANCH_ROWS,
} from './patch-evidence.ts';
import { comparisonClockText, contrastDecimals, tableRoundsText } from './comparison-words.ts';
import { correctionText, designLine, measuresText, notRunList, rankNameOf, testNameOf, thresholdRuleText, unitsMethodText } from './summary.ts';
import type { Table } from './tables.ts';
import { alignColumns } from '../format/columns.ts';

/** Left-aligned columns two spaces apart, except those marked right-aligned; trailing blanks trimmed. */
function table(rows: readonly (readonly string[])[], rightAligned: readonly number[] = []): string[] {
  return alignColumns(rows, (i) => rightAligned.includes(i));
}

function runName(run: ComparedRun): string {
  return `run ${run.id}${run.label ? ` '${run.label}'` : ''}`;
}

/**
 * '166.2 ns ± 0.40 %': the mean with its rounds' coefficient of variation (the column header says 'round CV'), at the
 * decimals its row shares (contrastDecimals: '1991.0' next to '605.0', not
 * '1991' next to '605.0').
 */
function meanWithNoise(s: RunSummary, unit: Unit, decimals: number): string {
  return `${fixed(s.meanInUnit, decimals)} ${unitSuffix(unit)} ± ${fixed(s.cvPct, readableDecimals(2, [s.cvPct]))} %`;
}

/**
 * The decimals of an interval in % (two, more when an end would print as
 * zero or the ends as equal) and of its change (at least as many, more when
 * the change would print as zero).
 */
function pctDecimalsOf(c: Contrast): { pct: number; ci: number } {
  const ends: [number, number][] = c.ciPct.kind === 'ok' ? [[c.ciPct.low, c.ciPct.high]] : [];
  const ci = readableDecimals(2, ends.flat(), ends);
  return { pct: readableDecimals(ci, [c.changePct]), ci };
}

function pctInterval(c: Contrast): string {
  const ci = c.ciPct;
  const d = pctDecimalsOf(c).ci;
  return ci.kind === 'ok' ? `${formatChangePct(ci.low, d)} .. ${formatChangePct(ci.high, d)}` : 'n/a';
}

function pOf(test: Contrast['test'] | Contrast['rank']): string {
  return test.kind === 'ok' ? formatP(test.pValue) : 'n/a';
}

/** The Holm-adjusted p, the one the verdict compares with alpha. */
function adjustedPOf(c: Contrast): string {
  return c.adjusted.kind === 'adjusted' ? formatP(c.adjusted.pValue) : 'n/a';
}

/** The decimals of a summary row: its means (A2's too) and its change read on one rule. */
function rowDecimals(s: SubjectComparison): number {
  const means = s.runs.map((r) => r.meanInUnit);
  const judged = judgedContrast(s);
  return readableDecimals(Math.max(contrastDecimals(judged).unit, decimalsFor(...means)), [judged.changeInUnit]);
}

function changeCell(c: Contrast, unit: Unit, decimals = contrastDecimals(c).unit): string {
  return `${formatChangeAt(c.changeInUnit, unit, decimals)} (${formatChangePct(c.changePct, pctDecimalsOf(c).pct)})`;
}

const ROLES: RunRole[] = ['A', 'B', 'A2'];

function summaryTable(cmp: Comparison): string[] {
  const roles = ROLES.filter((r) => cmp.runs.some((run) => run.role === r));
  const level = `${Math.round(cmp.options.confidenceLevel * 100)} % CI`;
  // With --correction none the adjusted p is the raw one: no column repeats it.
  const holm = cmp.multipleComparisons.correction === 'holm';
  // The change, interval and p-values are those of the contrast the verdict used (B vs A+A2 for A/B/A).
  const vs = cmp.subjects.some((s) => s.judgedOn === 'B vs A+A2') ? 'B vs A+A2' : 'B vs A';
  const header = ['subject', ...roles.map((r) => `${r} ± round CV`), vs, level, `${testNameOf(cmp)} p`, ...(holm ? ['Holm p'] : []), `${rankNameOf(cmp) === 'Mann-Whitney' ? 'MWU' : rankNameOf(cmp)} p`, 'verdict'];
  const rows = cmp.subjects.map((s) => {
    const judged = judgedContrast(s);
    return [
      s.subject,
      ...roles.map((role) => {
        const run = s.runs.find((r) => r.role === role);
        return run ? meanWithNoise(run, cmp.unit, rowDecimals(s)) : 'not measured';
      }),
      changeCell(judged, cmp.unit, rowDecimals(s)),
      s.verdict.exact ? 'exact' : pctInterval(judged),
      pOf(judged.test),
      ...(holm ? [adjustedPOf(judged)] : []),
      pOf(judged.rank),
      s.verdict.verdict,
    ];
  });
  return table([header, ...rows]);
}

function runRows(s: SubjectComparison, cmp: Comparison): string[] {
  const u = cmp.unit;
  const rows = s.runs.map((r) => [
    `  ${r.role}`,
    String(r.units),
    String(r.n),
    formatValue(r.meanInUnit, u),
    Number.isNaN(r.unitCvPct) ? 'n/a' : formatSpreadPct(r.unitCvPct),
    formatValue(r.medianInUnit, u),
    formatValue(r.stdevInUnit, u, r.meanInUnit),
    `${fixed(r.cvPct, readableDecimals(2, [r.cvPct]))} %`,
    // Bounds and extremes take the mean's decimals, so a row reads consistently (89.9 .. 540.8, not 89.91).
    r.ciMeanInUnit.kind === 'ok'
      ? `${formatValue(r.ciMeanInUnit.low, u, r.meanInUnit)} .. ${formatValue(r.ciMeanInUnit.high, u, r.meanInUnit)}`
      : 'n/a',
    `${formatValue(r.minInUnit, u, r.meanInUnit)} .. ${formatValue(r.maxInUnit, u, r.meanInUnit)}`,
  ]);
  const level = `${Math.round(cmp.options.confidenceLevel * 100)} % CI of mean`;
  return table([['  run', 'units', 'rounds', 'mean', 'unit CV', 'median', 'stdev', 'CV', level, 'min .. max'], ...rows], [1, 2]);
}

function contrastLine(c: Contrast, unit: Unit): string {
  const ci = c.ciPct.kind === 'ok' ? `, CI ${pctInterval(c)}` : '';
  const p = c.test.kind === 'ok' ? testClause(c, c.test.pValue, c.adjusted) : `test: ${c.test.reason}`;
  return `${changeCell(c, unit)}${ci}, ${p}`;
}

function driftLines(s: SubjectComparison, unit: Unit): string[] {
  const d = s.drift;
  if (d.kind === 'no-a2') return [];
  if (d.kind === 'insufficient-data') return [`  drift A2 vs A: insufficient data (${d.reason})`];
  return [
    `  drift A2 vs A: ${contrastLine(d.drift, unit)}: ${d.driftVerdict.verdict}`,
    `  B vs pooled A+A2: ${contrastLine(d.vsPooled, unit)}`,
    `  B vs midpoint ${formatValue(d.vsMidpoint.midpointInUnit, unit)}: ` +
      `${formatChange(d.vsMidpoint.changeInUnit, unit, d.vsMidpoint.midpointInUnit)} (${formatChangePct(d.vsMidpoint.changePct)})`,
  ];
}

function powerLine(s: SubjectComparison): string {
  const p = s.power;
  if (p.kind !== 'ok') return `  smallest detectable change: n/a (${p.reason})`;
  const asked =
    p.detectPct !== null && p.unitsNeeded !== null ? `; ${p.detectPct} % needs ${unitCount(s.runs[0]!.replicateUnit, p.unitsNeeded)} per run` : '';
  const floor = p.claimablePct > p.mdePct ? `; the test alone ${fixed(p.mdePct, readableDecimals(2, [p.mdePct]))} %, but a claim needs the change shown beyond the noise threshold` : '';
  return `  smallest detectable change: ${fixed(p.claimablePct, readableDecimals(2, [p.claimablePct]))} % (alpha ${p.alpha}, power ${Math.round(p.power * 100)} %${floor})${asked}`;
}

/** Paired designs: the pairs and the spread of their log ratios. */
function pairLines(s: SubjectComparison): string[] {
  const p = s.change.pairs;
  if (p === null) return [];
  const dropped = p.dropped > 0 ? ` (${p.dropped} unit${p.dropped === 1 ? '' : 's'} on one side only, dropped)` : '';
  const sd = Number.isNaN(p.sdLogRatio) ? 'n/a' : formatSpreadPct(100 * p.sdLogRatio);
  const t = s.change.test;
  const hl = t.kind === 'ok' && t.method === 'signed-rank' ? `, ${formatChangePct(s.change.changePct)} Hodges-Lehmann` : '';
  return [`  pairs: ${p.pairs}${dropped}; B/A per pair ${formatChangePct(100 * (Math.exp(p.meanLogRatio) - 1))} on average (geometric)${hl}, spread ${sd} per pair; ${intervalName(s.change)} ${pctInterval(s.change)}`];
}

function subjectBlock(s: SubjectComparison, cmp: Comparison): string[] {
  const caveats = s.verdict.caveats.map((c) => `  caveat: ${c}`);
  return [
    s.subject,
    ...runRows(s, cmp),
    ...pairLines(s),
    ...driftLines(s, cmp.unit),
    powerLine(s),
    `  verdict: ${s.verdict.verdict}: ${s.verdict.reason}`,
    ...caveats,
  ];
}

/** The geometric mean's direction, said only when a subject's own verdict claims a change (it has no test of its own). */
function geometricWord(g: Extract<Comparison['geometricMean'], { kind: 'ok' }>): string {
  if (g.claims === 0) return 'no change claimed for any subject';
  return g.improved ? 'better' : g.ratio === 1 ? 'unchanged' : 'worse';
}

function summaryLines(cmp: Comparison): string[] {
  const lines: string[] = [];
  // Regressions come first: a better geometric mean must never hide a slower subject.
  if (cmp.regressions.length > 0) {
    const slower = cmp.regressions.map((name) => {
      const s = cmp.subjects.find((x) => x.subject === name);
      return s ? `${name} (${formatChangePct(s.change.changePct)})` : name;
    });
    lines.push(`${cmp.measures === 'instructions' ? 'more instructions' : 'regressions'}: ${slower.join(', ')}`);
  }
  const g = cmp.geometricMean;
  lines.push(
    g.kind === 'ok'
      ? `geometric mean of B/A over ${g.subjects} subject${g.subjects === 1 ? '' : 's'}: ${fixed(g.ratio, 4)} ` +
          `(${formatChangePct(g.changePct)}), ${geometricWord(g)}`
      : `geometric mean: n/a (${g.reason})`,
  );
  if (cmp.controls.length > 0) lines.push(`controls (left out of the geometric mean and regressions): ${cmp.controls.join(', ')}`);
  for (const n of cmp.notCompared) lines.push(`not compared: ${n.subject} (measured only in ${n.presentIn.join(', ') || 'no run'})`);
  const notRun = notRunList(cmp);
  if (notRun !== undefined) lines.push(`not run: ${notRun}`);
  return lines;
}

/** Fields that differ side by side (with why that is acceptable or not); fields equal in every run once. */
function environmentLines(cmp: Comparison): string[] {
  const roles = ROLES.filter((r) => cmp.runs.some((run) => run.role === r));
  const allowed = new Set(cmp.mismatchesAllowed.map((m) => m.field));
  const differing = cmp.environment.filter((f) => !f.same);
  const rows = differing.map((f) => [
    f.field,
    ...roles.map((r) => f.values[r] ?? ''),
    allowed.has(f.field) ? 'DIFFERS (allowed by --allow-mismatch)' : f.kind === 'expected' ? '(expected)' : '',
  ]);
  const same = cmp.environment.filter((f) => f.same).map((f) => `  ${f.field}: ${f.values.A ?? ''}`);
  return [
    ...(rows.length > 0 ? table([['environment', ...roles, ''], ...rows]) : ['environment: no differences']),
    ...(same.length > 0 ? ['same in every run:', ...same] : []),
    ...(cmp.warnings ?? []).map((w) => `warning: ${w.message}`),
  ];
}

function headerLines(cmp: Comparison): string[] {
  const runs = cmp.runs.map(
    (r) => `${r.role.padEnd(2)} = ${runName(r)}, ${r.kind}, ${r.status}, started ${r.startedAt}`,
  );
  const o = cmp.options;
  return [
    ...runs,
    `unit: ${cmp.unit} (${cmp.direction.replace(/-/g, ' ')}); ${cmp.measures === 'instructions' ? 'fewer/more instructions' : 'faster/slower'} needs ` +
      `${o.correction === 'holm' ? 'Holm-adjusted ' : ''}${testNameOf(cmp)} p < ${o.alpha} ` +
      `and ${thresholdRuleText(cmp)}`,
    `clock: ${comparisonClockText(cmp, true)}`,
    `measured: ${tableRoundsText(cmp)}`,
    designLine(cmp),
    unitsMethodText(cmp),
    ...(measuresText(cmp) === undefined ? [] : [measuresText(cmp)!]),
  ];
}

function tableLines(t: Table): string[] {
  return table([t.headers, ...t.rows], t.numeric);
}

/** The codegen sentence and matrix, then the branch counts of the hinted `if`s. */
function evidenceSections(evidence: PatchDocuments): string[][] {
  const sections: string[][] = [];
  const cg = evidence.codegen;
  if (cg !== undefined) sections.push([codegenSentence(cg.result), ...tableLines(codegenTable(cg.result))]);
  const hints = evidence.hints;
  if (hints !== undefined) {
    const t = branchTable(hints, TABLE_BRANCH_ROWS);
    const rows = patchRows(hints.doc).length;
    const more = moreText(rows, t.rows.length, hints.file);
    sections.push(
      rows === 0
        ? [`${branchHeading(hints.doc)}: ${noHintsText(hints.doc)}.`]
        : [`${branchHeading(hints.doc)}:`, ...tableLines(t), ...(more === undefined ? [] : [more])],
    );
  }
  return sections;
}

/** How the interval of the change was computed, in the words of the deciding test. */
function intervalMethodText(cmp: Comparison): string {
  const level = `${Math.round(cmp.options.confidenceLevel * 100)} %`;
  switch (testNameOf(cmp)) {
    case 'paired t':
      return `${level} t interval of the mean per-pair log ratio (K - 1 df), as exp(.) - 1`;
    case 'signed-rank':
      return `${level} Hodges-Lehmann interval of the per-pair log ratios (Walsh averages at the signed-rank critical values, Hollander & Wolfe 1999), as exp(.) - 1`;
    case 'anytime':
      return `${level} confidence sequence of the mean per-pair log ratio (Lai 1976; valid at any stopping time), as exp(.) - 1`;
    case 'run-level t':
      return `${level} t interval of B - (A + A2)/2 over the run-to-run term A vs A2 showed (1 df), in % of (A + A2)/2`;
    case 'drift-model t':
      return `${level} t interval of B vs A on the log run levels with a linear drift fitted beside it (runs - 3 df), as exp(.) - 1`;
    default:
      return `${level} Welch t interval of the difference of unit-mean levels, in % of A's level`;
  }
}

/** The full terminal report, ending in a newline; `evidence` adds the hint patch's codegen and branch counts. */
export function renderText(cmp: Comparison, evidence: PatchDocuments = {}): string {
  const sections = [
    headerLines(cmp),
    summaryLines(cmp),
    summaryTable(cmp),
    ...cmp.subjects.map((s) => subjectBlock(s, cmp)),
    ...evidenceSections(evidence),
    environmentLines(cmp),
    [`interval of the change: ${intervalMethodText(cmp)}`, `p-values: ${correctionText(cmp)}`],
  ];
  return `${sections.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}
