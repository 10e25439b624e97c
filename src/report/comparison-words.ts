/**
 * How the parts of a Comparison are worded (a contrast's decimals, its
 * interval, the runs' CVs and units) in every report format, on top of the
 * bottom floor's number rule (src/format/). Numbers are only formatted here,
 * never computed (they come from a Comparison).
 */
import { directionOf, type Unit } from '../model.ts';
import type { Interval, InsufficientData, RunSummary } from '../compare/types.ts';
import { decimalsFor, fixed, readableDecimals, signed } from '../format/numbers.ts';
import { pctDecimals } from '../format/percent.ts';
import { unitNounOf, unitWords } from '../format/units.ts';

/**
 * The decimals a contrast is printed with: `unit` for before, after and
 * change; `ci` for the ends of the % interval; `pct` for the % change (at
 * least `ci`, more when the change is smaller than the interval shows, so
 * a tiny drift does not drag its interval to five decimals).
 */
export interface ContrastDecimals {
  unit: number;
  pct: number;
  ci: number;
}

/** One rule per sentence or row: before -> after, the change and its interval (the rule in src/format/numbers.ts). */
export function contrastDecimals(c: {
  baselineMeanInUnit: number;
  candidateMeanInUnit: number;
  changeInUnit: number;
  changePct: number;
  ciPct: Interval | InsufficientData;
}): ContrastDecimals {
  const before = c.baselineMeanInUnit;
  const after = c.candidateMeanInUnit;
  const unit = readableDecimals(decimalsFor(before, after), [c.changeInUnit], [[before, after]]);
  const ends: [number, number][] = isInterval(c.ciPct) ? [[c.ciPct.low, c.ciPct.high]] : [];
  const ci = readableDecimals(pctDecimals(c.changePct, ...ends.flat()), ends.flat(), ends);
  return { unit, pct: readableDecimals(ci, [c.changePct]), ci };
}

export function isInterval(x: Interval | InsufficientData): x is Interval {
  return x.kind !== 'insufficient-data';
}

/** "95 % CI -6.9 to -6.1 %", or why there is none. */
export function ciPctText(ci: Interval | InsufficientData, decimals: number): string {
  if (!isInterval(ci)) return `no CI: ${ci.reason}`;
  return `${Math.round(ci.level * 100)} % CI ${signed(ci.low, decimals)} to ${signed(ci.high, decimals)} %`;
}

/** "round CV 0.3 %" (the spread of rounds, not of unit means) when every run shows the same CV, else "round CV A/B/A2 0.3/0.4/0.3 %". */
export function cvText(runs: RunSummary[]): string {
  const d = readableDecimals(1, runs.map((r) => r.cvPct));
  const cvs = runs.map((r) => fixed(r.cvPct, d));
  if (new Set(cvs).size === 1) return `round CV ${cvs[0]} %`;
  return `round CV ${runs.map((r) => r.role).join('/')} ${cvs.join('/')} %`;
}

/**
 * The units of replication and rounds behind each run: "3 processes x 5
 * rounds", "A/B 3/1 processes x 5/15 rounds", "5 invocations" (one round
 * each), "15 rounds (units not recorded)" for runs stored before units were.
 */
export function unitsText(runs: RunSummary[]): string {
  const first = runs[0];
  if (!first) return '';
  const same = (f: (r: RunSummary) => string) => {
    const xs = runs.map(f);
    return new Set(xs).size === 1 ? xs[0]! : xs.join('/');
  };
  const roles = runs.map((r) => r.role).join('/');
  const differ = new Set(runs.map((r) => `${r.units} ${r.n}`)).size > 1;
  const lead = differ ? `${roles} ` : '';
  if (!first.replicateUnit.known) return `${lead}${same((r) => String(r.n))} rounds (units not recorded)`;
  const units = `${same((r) => String(r.units))} ${unitNounOf(first.replicateUnit.value, runs.some((r) => r.units !== 1))}`;
  if (runs.every((r) => r.n === r.units)) return `${lead}${units}`;
  const perUnit = same((r) => {
    const lo = Math.min(...r.roundsPerUnit);
    const hi = Math.max(...r.roundsPerUnit);
    return lo === hi ? String(lo) : `${lo}-${hi}`;
  });
  return `${lead}${units} x ${perUnit} rounds`;
}

/** "3 processes x 5 rounds x 20000 calls", or "A/B 3/3 processes x 5/4 rounds x 20000 calls". */
export function roundsText(runs: RunSummary[], unit: Unit): string {
  const rounds = unitsText(runs);
  const ops = runs.flatMap((r) => r.opsPerRound);
  if (directionOf(unit) === 'higher-is-better' || ops.length === 0) return rounds;
  const lo = Math.min(...ops);
  const hi = Math.max(...ops);
  return `${rounds} x ${lo === hi ? lo : `${lo}-${hi}`} ${unitWords(unit).ops}`;
}
