/**
 * Do the pairs of one generation of probe processes share an effect? Reads
 * a hintlab database of A/A `bench --label-b` runs in the default design
 * (an A and a B process taking turns on one CPU, both replaced every 25
 * pairs) and, per invocation and pooled, fits the one-way random-effects
 * ANOVA of the per-pair log ratios d_k = ln(B_k / A_k) grouped by
 * generation floor(k / 25) (src/stats/variance-components.ts):
 * sigma²_process = (MS_between - MS_within) / 25 with the exact interval of
 * sigma²_process / sigma²_within, so sigma_process in % of the change.
 * Beside it:
 *   - a permutation p (pairs shuffled across generations, 400 times): the F
 *     test assumes normal pairs, and the pairs here are heavy-tailed;
 *   - the same ANOVA with the groups moved by 12 pairs, each straddling two
 *     generations: a process effect shows there at about half its size,
 *     a slow drift of the pair differences at full size;
 *   - the same for each side's own log unit levels (ln A_k, ln B_k) by
 *     generation: a process's own level, mixed with the machine's drift,
 *     which the pairs cancel and these do not;
 *   - the 95 % interval width of the change as compare judges turns (paired
 *     t on the generation means) against the paired t and the signed-rank
 *     Hodges-Lehmann interval of the pairs taken as independent: what the
 *     generation-level analysis costs in power; and the t on each
 *     generation's Hodges-Lehmann estimate, which keeps the grouping and
 *     gives the heavy tail less weight.
 * Only complete generations are used. Run by hand, after measuring, e.g.:
 *
 *   for i in 1 2 3 4 5; do cat /proc/loadavg; node bin/hintlab.js bench --db aa.db \
 *     --profile getppid --label aa$i-A --label-b aa$i-B --time 150; done
 *   node --import tsx bench/process-effects.ts aa.db [subject]
 */
import { Store } from '../src/store/store.ts';
import { pairsOf } from '../src/compare/units.ts';
import { fixed } from '../src/format/numbers.ts';
import type { RunWithRounds } from '../src/model.ts';
import { mean, type Sample } from '../src/stats/descriptive.ts';
import { hodgesLehmann } from '../src/stats/hodges-lehmann.ts';
import { pairedTTest, tInterval } from '../src/stats/paired.ts';
import { mulberry32 } from '../src/stats/random.ts';
import { oneWayRandomEffects } from '../src/stats/variance-components.ts';

const [dbPath, subjectArg] = process.argv.slice(2);
if (dbPath === undefined) throw new Error('usage: node --import tsx bench/process-effects.ts DB [subject]');

interface Invocation {
  label: string;
  perGeneration: number;
  /** Per-pair log ratios and each side's log unit levels, in pair order, complete generations only. */
  d: number[];
  logA: number[];
  logB: number[];
}

function invocationOf(a: RunWithRounds, b: RunWithRounds, subject: string): Invocation | null {
  const rec = a.params.extra.interleave;
  if (rec?.design !== 'alternation' || rec.processes !== 2 || !rec.pairsPerProcess) return null;
  const per = rec.pairsPerProcess;
  const pairs = pairsOf(a, b, subject);
  const keys = pairs.keys ?? [];
  const count = new Map<number, number>();
  for (const k of keys) count.set(Math.floor(k / per), (count.get(Math.floor(k / per)) ?? 0) + 1);
  const inv: Invocation = { label: a.label ?? `#${a.id}`, perGeneration: per, d: [], logA: [], logB: [] };
  keys.forEach((k, i) => {
    if (count.get(Math.floor(k / per)) !== per) return;
    const la = Math.log(mean(pairs.a[i]!));
    const lb = Math.log(mean(pairs.b[i]!));
    inv.d.push(lb - la);
    inv.logA.push(la);
    inv.logB.push(lb);
  });
  return inv;
}

const chunks = (xs: readonly number[], size: number, offset = 0): number[][] => {
  const out: number[][] = [];
  for (let i = offset; i + size <= xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
};

const pct = (logSd: number) => fixed(100 * logSd, 2);

/** sigma_between in % with its interval, from the ANOVA of `groups`. */
function component(groups: number[][]): string {
  const r = oneWayRandomEffects(groups);
  if (r.kind !== 'ok') return r.reason;
  const sd = Math.sqrt(Math.max(0, r.sigma2Between));
  const lo = Math.sqrt(r.ratio.low * r.sigma2Within);
  const hi = Math.sqrt(r.ratio.high * r.sigma2Within);
  return `sigma ${pct(sd)} % (95 % CI ${pct(lo)}..${pct(hi)}), within ${pct(Math.sqrt(r.sigma2Within))} %, F ${fixed(r.f, 3)}, p ${fixed(r.pValue, 4)}`;
}

/** The share of shuffles of the pairs across groups whose F is at least the observed one. */
function permutationP(d: readonly number[], size: number, shuffles = 400): string {
  const observed = oneWayRandomEffects(chunks(d, size));
  if (observed.kind !== 'ok') return observed.reason;
  const random = mulberry32(20261205);
  const xs = [...d];
  let atLeast = 0;
  for (let s = 0; s < shuffles; s++) {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    const r = oneWayRandomEffects(chunks(xs, size));
    if (r.kind === 'ok' && r.f >= observed.f) atLeast++;
  }
  return fixed((atLeast + 1) / (shuffles + 1), 3);
}

/** 95 % widths (in %) of the generation-means t interval and of the pairs' Hodges-Lehmann interval. */
function widths(d: readonly number[], size: number): string {
  const gens = chunks(d, size).map((g) => mean(g as unknown as Sample));
  const t = pairedTTest(gens);
  // a robust summary per generation keeps the grouping and drops the heavy tail's weight
  const estimates = chunks(d, size).flatMap((g) => {
    const h = hodgesLehmann(g, 0.95);
    return h.kind === 'ok' ? [h.estimate] : [];
  });
  const robust = pairedTTest(estimates);
  const pairT = pairedTTest(d);
  const hl = hodgesLehmann(d, 0.95);
  if (t.kind !== 'ok' || robust.kind !== 'ok' || pairT.kind !== 'ok' || hl.kind !== 'ok') return 'widths not computable';
  const width = (i: { low: number; high: number }) => 100 * (Math.exp(i.high) - Math.exp(i.low));
  const [tw, rw, pw, hw] = [width(tInterval(t, 0.95)), width(tInterval(robust, 0.95)), width(tInterval(pairT, 0.95)), width(hl)];
  return `95 % width: generation t ${fixed(tw, 3)} % (on each generation's Hodges-Lehmann estimate ${fixed(rw, 3)} %), pairs as independent: t ${fixed(pw, 3)} %, Hodges-Lehmann ${fixed(hw, 3)} % (generation t over each: ${fixed(tw / pw, 2)}, ${fixed(tw / hw, 2)})`;
}

function report(inv: Invocation): void {
  const n = inv.perGeneration;
  console.log(`${inv.label}: ${inv.d.length / n} generations of ${n} pairs`);
  console.log(`  pairs by generation:      ${component(chunks(inv.d, n))}; permutation p ${permutationP(inv.d, n)}`);
  console.log(`  pairs, groups moved ${Math.floor(n / 2)}: ${component(chunks(inv.d, n, Math.floor(n / 2)))}`);
  console.log(`  A's levels by generation: ${component(chunks(inv.logA, n))}`);
  console.log(`  B's levels by generation: ${component(chunks(inv.logB, n))}`);
  console.log(`  ${widths(inv.d, n)}`);
}

const store = Store.openExisting(dbPath);
const invocations: Invocation[] = [];
for (const run of store.listRuns()) {
  const rec = run.params.extra.interleave;
  if (rec?.side !== 'A' || run.status !== 'complete') continue;
  const a = store.getRun(run.id);
  const b = store.getRun(run.id + 1);
  const subject = subjectArg ?? a.params.subjects[0];
  const inv = subject === undefined ? null : invocationOf(a, b, subject);
  if (inv) invocations.push(inv);
}
store.close();
invocations.forEach(report);
if (invocations.length > 1) {
  const n = invocations[0]!.perGeneration;
  // each invocation centred on its own mean, so a difference between invocations is not read as one between generations
  const centred = invocations.flatMap((inv) => chunks(inv.d.map((x) => x - mean(inv.d as unknown as Sample)), n));
  const r = oneWayRandomEffects(centred);
  console.log(`pooled (${centred.length} generations, each invocation centred): ${component(centred)}${r.kind === 'ok' ? ` (df between over-counted by ${invocations.length - 1})` : ''}`);
}
