/**
 * The difference of two groups of runs measured in one sequence, with a
 * linear drift of the machine over the sequence taken out: ordinary least
 * squares of y_i = mu + delta g_i + beta t_i + e_i, where g_i is 1 for a
 * run of the second group and 0 otherwise and t_i the run's position in
 * time (the analysis of covariance with time as the covariate: Montgomery,
 * "Design and Analysis of Experiments", 8th ed. 2013, ch. 15.3; Box, Hunter
 * & Hunter, "Statistics for Experimenters", 2nd ed. 2005, ch. 3 on
 * ordering runs against a trend).
 *
 * With independent normal e_i of one variance, (delta_hat - delta) / se is
 * exactly Student's t with n - 3 degrees of freedom, whatever beta is: a
 * linear drift moves neither the estimate nor its level. For A B B A A B
 * the drift term costs almost nothing: Var(delta_hat) = 0.673 sigma²,
 * against 2/3 sigma² for the plain difference of the two groups' means,
 * which a drift would bias by a third of a run's drift.
 */
import { type InsufficientData, insufficient } from './result.ts';
import { studentTSf } from './distributions.ts';
import { nonFinite } from './descriptive.ts';

/** The drift-adjusted difference of the groups: estimate, standard error, t, df and two-sided p. */
export type DriftAdjustedTest =
  | { kind: 'ok'; estimate: number; se: number; t: number; df: number; pValue: number; driftPerRun: number; residualSd: number }
  | InsufficientData;

/** One run: its value, whether it belongs to the second group, and its position in time. */
export interface SequencedRun {
  y: number;
  second: boolean;
  position: number;
}

const sumOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

/**
 * delta_hat of the second group over the first, with a linear drift in
 * `position` fitted beside it (file comment). Needs at least 4 runs, both
 * groups present, and positions that are not collinear with the groups.
 */
export function driftAdjustedDifference(runs: readonly SequencedRun[]): DriftAdjustedTest {
  const n = runs.length;
  const seconds = runs.filter((r) => r.second).length;
  if (n < 4 || seconds === 0 || seconds === n) return insufficient(`a drift-adjusted difference needs at least 4 runs with both groups present (have ${n}, ${seconds} of the second group)`);
  const bad = nonFinite(runs.map((r) => r.y));
  if (bad !== null) return insufficient(`a run's level is ${bad}: the drift model needs finite values`);
  const g = runs.map((r) => (r.second ? 1 : 0));
  const gm = seconds / n;
  const tm = sumOf(runs.map((r) => r.position)) / n;
  const ym = sumOf(runs.map((r) => r.y)) / n;
  const gc = g.map((x) => x - gm);
  const tc = runs.map((r) => r.position - tm);
  const yc = runs.map((r) => r.y - ym);
  const dot = (u: readonly number[], v: readonly number[]) => sumOf(u.map((x, i) => x * v[i]!));
  const [sgg, stt, sgt, sgy, sty] = [dot(gc, gc), dot(tc, tc), dot(gc, tc), dot(gc, yc), dot(tc, yc)];
  const det = sgg * stt - sgt * sgt;
  if (!(det > 1e-12 * sgg * stt)) return insufficient('the runs\' order confounds the groups with a linear drift (e.g. all A before all B): the drift cannot be separated from the change');
  const estimate = (sgy * stt - sty * sgt) / det;
  const driftPerRun = (sty * sgg - sgy * sgt) / det;
  const residuals = yc.map((y, i) => y - estimate * gc[i]! - driftPerRun * tc[i]!);
  const df = n - 3;
  const s2 = dot(residuals, residuals) / df;
  const se = Math.sqrt((s2 * stt) / det);
  if (!(se > 0)) return insufficient('the runs lie exactly on the fitted line: zero residual variance, t is undefined');
  const t = estimate / se;
  return { kind: 'ok', estimate, se, t, df, pValue: Math.min(1, 2 * studentTSf(Math.abs(t), df)), driftPerRun, residualSd: Math.sqrt(s2) };
}
