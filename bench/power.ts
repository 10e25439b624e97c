/**
 * Can this machine see a change? A power curve of `hintlab bench --label-b`
 * with its default flags (one profile, getppid), judged by `hintlab compare`:
 *
 * - known work on B (`--inject-work-b PCT%`, N calibrated by the pilot) for
 *   each PCT of --levels: the share of invocations whose verdict is
 *   `slower` (detected), and the median change compare reports;
 * - nothing injected (A/A, the same design): the share whose verdict is
 *   `faster` or `slower` (false claims);
 * - a 64-instruction seccomp filter on B (`--inject-seccomp-b 64`).
 *
 * The kinds are measured round-robin (one of each in turn), so a change of
 * the machine's load hits all alike; the load average is read before every
 * invocation, and each invocation's wall time is kept. A level may carry
 * compare's threshold (`1@0.5`: +1 % judged with `--threshold 0.5`);
 * `--bench='--time 150 --cpu 0'` passes further flags to every bench.
 * The level `mde` injects what compare printed as the smallest change the
 * known-work invocations at the default threshold can claim (the median so
 * far, both streams' if they share `--log`; the A/A invocations' before
 * there is one): it is an 80 % figure, so about 16 in 20 should be found.
 * Not the A/A's own: known work fences both sides' calls (probes/work.c),
 * and the quiet run of 2026-12-05 printed 1.04-1.08 % with it against
 * 1.05-1.11 % without, a standard error's difference at that precision.
 * And divided by the share the known work bought in the invocations so far
 * (the mean of measured over asked, 1 before any): quiet, one invocation's
 * standard error is about 2 % of that change, and the known work bought
 * 102 % of what it was asked, so uncorrected the level injected a standard
 * error more than it meant to. Each invocation's own error stays in.
 * Two streams on two CPUs write two databases (`--first` keeps their labels
 * apart); `--analyze A.db,B.db` judges them together (with `--log`, only
 * the invocations the log holds: one interrupted mid-way is left out, and a
 * stopped stream resumes with `--first` past its round, in the same
 * database and log). Run by hand:
 *
 *   npm run build && node --import tsx bench/power.ts [--per-level 20] [--null 40]
 *        [--seccomp 10] [--levels 1,2,3,5,10] [--profile getppid] [--db FILE]
 *        [--bench='FLAGS'] [--first K] [--log FILE.jsonl] [--analyze FILE[,FILE]]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { normalCdf, normalQuantile } from '../src/stats/distributions.ts';

const { values: o } = parseArgs({
  options: {
    'per-level': { type: 'string', default: '20' },
    null: { type: 'string', default: '40' },
    seccomp: { type: 'string', default: '10' },
    levels: { type: 'string', default: '1,2,3,5,10' },
    profile: { type: 'string', default: 'getppid' },
    db: { type: 'string' },
    analyze: { type: 'string' },
    bench: { type: 'string', default: '' },
    first: { type: 'string', default: '0' },
    log: { type: 'string' },
  },
});
const benchFlags = o.bench.split(/\s+/).filter(Boolean);
const first = Number(o.first);

interface Kind {
  name: string;
  /** bench's flags for this kind (the `mde` level's depend on the A/A runs so far). */
  flags: () => string[];
  count: number;
  /** compare's --threshold, or null for its default. */
  threshold: string | null;
  /** What a hit is: detected (`slower`) or a false claim (`faster` or `slower`). */
  hit: (verdict: string) => boolean;
}

const kinds: Kind[] = [
  { name: 'null', flags: () => [], count: Number(o.null), threshold: null, hit: (v: string) => v === 'faster' || v === 'slower' },
  ...o.levels.split(',').filter(Boolean).map((l) => {
    const [p, t] = l.split('@') as [string, string | undefined];
    const flags = p === 'mde' ? () => ['--inject-work-b', `${(printedMde() / boughtSoFar()).toFixed(3)}%`] : () => ['--inject-work-b', `${p}%`];
    return { name: `work${p}${t === undefined ? '' : `t${t}`}`, flags, count: Number(o['per-level']), threshold: t ?? null, hit: (v: string) => v === 'slower' };
  }),
  { name: 'seccomp64', flags: () => ['--inject-seccomp-b', '64'], count: Number(o.seccomp), threshold: null, hit: (v: string) => v === 'slower' },
];

const load1 = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const hintlab = (args: string[]) => execFileSync(process.execPath, ['bin/hintlab.js', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });

interface Outcome extends Judged {
  kind: string;
  seconds: number;
  load: number;
  design: string;
  /** The note bench printed on the known work's additions, if any. */
  work: string | null;
  /** bench's flags for the kind (what was injected). */
  flags?: string[];
}

/** The log's invocations (`--log`), one per line. */
const readLog = (): (Outcome & { i: number })[] => (o.log ? readFileSync(o.log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Outcome & { i: number }) : []);

/** The invocations so far: the log's when there is one (both streams'), else this stream's. */
const soFar = (): Outcome[] => (o.log ? readLog() : outcomes);

/**
 * The median smallest claimable change of the known-work invocations at
 * the default threshold so far, or before there is one the A/A
 * invocations' (this stream's, and the log's when shared).
 */
function printedMde(): number {
  const sofar = soFar().filter((x) => x.claimablePct !== null);
  const atDefault = new Set(kinds.filter((k) => k.name.startsWith('work') && k.threshold === null).map((k) => k.name));
  const work = sofar.filter((x) => atDefault.has(x.kind)).map((x) => x.claimablePct!);
  const seen = work.length ? work : sofar.filter((x) => x.kind === 'null').map((x) => x.claimablePct!);
  if (!seen.length) throw new Error('the mde level needs an invocation before it: A/A (--null 1 or more) or a known-work level at the default threshold listed before mde');
  return median(seen);
}

/** What was asked of known work in an invocation (bench's --inject-work-b PCT%), or NaN. */
const askedOf = (x: Outcome) => Number(/^([\d.]+)%$/.exec(x.flags?.[x.flags.indexOf('--inject-work-b') + 1] ?? '')?.[1] ?? NaN);

/** The mean share of what was asked that the known work bought in the invocations so far (this stream's, and the log's when shared); 1 before any. */
function boughtSoFar(): number {
  const shares = soFar().filter((x) => x.changePct !== null && askedOf(x) > 0).map((x) => x.changePct! / askedOf(x));
  return shares.length ? shares.reduce((s, x) => s + x, 0) / shares.length : 1;
}

interface Judged {
  verdict: string;
  changePct: number | null;
  /** What compare printed as the smallest change this run can claim, in %. */
  claimablePct: number | null;
  ci: [number, number] | null;
}

/** A judged run's standard error, in %, from its 95 % CI. */
const seOf = (x: Judged) => (x.ci![1] - x.ci![0]) / (2 * normalQuantile(0.975));

function judge(db: string, label: string, kind: Kind): Judged {
  const threshold = kind.threshold === null ? [] : ['--threshold', kind.threshold];
  const doc = JSON.parse(hintlab(['compare', '--db', db, `${label}-A`, `${label}-B`, '--json', ...threshold])) as {
    subjects: { verdict: { verdict: string }; change?: { changePct?: number; ciPct?: { kind: string; low?: number; high?: number } }; power?: { kind: string; claimablePct?: number } }[];
  };
  const s = doc.subjects[0];
  const ci = s?.change?.ciPct?.kind === 'ok' ? [s.change.ciPct.low!, s.change.ciPct.high!] as [number, number] : null;
  return { verdict: s?.verdict.verdict ?? 'not compared', changePct: s?.change?.changePct ?? null, claimablePct: s?.power?.claimablePct ?? null, ci };
}

function measure(db: string, kind: Kind, i: number): Outcome {
  const label = `${kind.name}-${i}`;
  const load = load1();
  const t0 = Date.now();
  const flags = kind.flags();
  const run = spawnSync(process.execPath, ['bin/hintlab.js', 'bench', '--db', db, '--profile', o.profile, '--label', `${label}-A`, '--label-b', `${label}-B`, ...flags, ...benchFlags], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`bench ${label} failed (${run.status ?? run.signal}): ${run.stderr}`);
  const out = `${run.stdout}${run.stderr}`;
  const seconds = (Date.now() - t0) / 1000;
  const design = /^design: (.*?) \(A = /m.exec(out)?.[1] ?? '?';
  const work = /^note: --inject-work-b (.*)$/m.exec(out)?.[1] ?? null;
  return { kind: kind.name, ...judge(db, label, kind), seconds, load, design, work, flags };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

/**
 * How many of `runs` should be found if compare's figures are honest. The
 * known work buys a share of what was asked (the kind's mean of measured
 * over injected: over 20 runs known to about a quarter of one run's
 * standard error);
 * each run's standard error comes from its 95 % CI, and the claim is the
 * one-sided test beyond the threshold at alpha 0.05, normal (hundreds of
 * generations of freedom at --time 150).
 */
function expectedFound(runs: Outcome[], truth: (x: Outcome) => number, threshold: number): { found: number; bought: number } {
  const bought = runs.reduce((s, x) => s + x.changePct! / truth(x), 0) / runs.length;
  const z = normalQuantile(0.95);
  const found = runs.reduce((s, x) => s + normalCdf((bought * truth(x) - threshold) / seOf(x) - z), 0);
  return { found, bought };
}

function summary(outcomes: Outcome[]): void {
  for (const k of kinds) {
    const got = outcomes.filter((x) => x.kind === k.name);
    if (!got.length) continue;
    const hits = got.filter((x) => k.hit(x.verdict)).length;
    const changes = got.flatMap((x) => (x.changePct === null ? [] : [x.changePct]));
    const what = k.name === 'null' ? 'false claims' : 'found slower';
    const claimable = got.flatMap((x) => (x.claimablePct === null ? [] : [x.claimablePct]));
    // what was injected: 0 for A/A, else bench's --inject-work-b PCT% (the mde level's differs per invocation)
    const truth = (x: Outcome) => (k.name === 'null' ? 0 : askedOf(x));
    const judged = got.filter((x) => x.ci && Number.isFinite(truth(x)));
    const covers = judged.filter((x) => x.ci![0] <= truth(x) && truth(x) <= x.ci![1]).length;
    const expected = k.name === 'null' ? null : expectedFound(judged, truth, Number(k.threshold ?? 1));
    // the spread of the reported changes around the truth, in each run's own standard errors: about 1 when the CIs are honest
    const zs = judged.map((x) => (x.changePct! - (expected?.bought ?? 1) * truth(x)) / seOf(x));
    const rmsZ = Math.sqrt(zs.reduce((s2, z) => s2 + z * z, 0) / zs.length);
    console.log(`${k.name.padEnd(10)} ${what} in ${hits} of ${got.length}; median reported change ${median(changes).toFixed(2)} % ` +
      `(${Math.min(...changes).toFixed(2)} .. ${Math.max(...changes).toFixed(2)}); printed smallest claimable change ${median(claimable).toFixed(2)} % ` +
      `(${Math.min(...claimable).toFixed(2)} .. ${Math.max(...claimable).toFixed(2)}); ` +
      `95 % CI covers what was injected in ${covers} of ${judged.length}; changes scatter by ${rmsZ.toFixed(2)} of their own standard errors (RMS; 1 if honest); ` +
      `${expected === null ? '' : `expected found ${expected.found.toFixed(1)} of ${judged.length} if each run's printed power holds at the change the known work bought (${(100 * expected.bought).toFixed(0)} % of what was asked); `}invocation ${Math.min(...got.map((x) => x.seconds)).toFixed(0)}-${Math.max(...got.map((x) => x.seconds)).toFixed(0)} s; load ${Math.min(...got.map((x) => x.load)).toFixed(1)}-${Math.max(...got.map((x) => x.load)).toFixed(1)}`);
  }
}

const db = o.db ?? join(mkdtempSync(join(tmpdir(), 'power-')), 'power.db');
const outcomes: Outcome[] = [];
if (o.analyze) {
  // what the measuring streams logged (wall time, load, what was injected), by label
  const logged = new Map(readLog().map((x) => [`${x.kind}-${x.i}`, x]));
  for (const file of o.analyze.split(',')) for (const k of kinds) for (let i = first; i < first + k.count; i++) {
    const was = logged.get(`${k.name}-${i}`);
    // with a log, an invocation it lacks did not finish (interrupted): not judged
    if (o.log && !was) continue;
    try {
      outcomes.push({ seconds: NaN, load: NaN, design: '?', work: null, ...was, kind: k.name, ...judge(file, `${k.name}-${i}`, k) });
    } catch {
      // not measured
    }
  }
} else {
  const t0 = Date.now();
  const rounds = Math.max(...kinds.map((k) => k.count));
  for (let i = first; i < first + rounds; i++) {
    for (const k of kinds.filter((x) => i - first < x.count)) {
      const r = measure(db, k, i);
      outcomes.push(r);
      if (o.log) appendFileSync(o.log, `${JSON.stringify({ at: new Date().toISOString(), i, ...r })}\n`);
      console.log(`${k.name}-${i}: ${r.verdict}, change ${r.changePct?.toFixed(2) ?? '?'} %, claimable ${r.claimablePct?.toFixed(2) ?? '?'} %, ${r.seconds.toFixed(0)} s, load ${r.load}, ${r.design}${r.work ? `; ${r.work}` : ''}`);
    }
  }
  console.log(`runs stored in ${db} (${((Date.now() - t0) / 60000).toFixed(1)} min); judge again with --analyze ${db}`);
}
summary(outcomes);
