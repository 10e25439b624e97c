/** Hand-built runs for the compare tests: exact values, no measurement. */
import type { Environment, ReplicateUnit, Round, RunKind, RunStatus, RunWithRounds, Unit } from '../../src/model.ts';
import { splitRounds } from '../../src/bench/probe-run.ts';
import { directionOf } from '../../src/model.ts';
import type { Store } from '../../src/store/store.ts';
import { gaussian, type Random } from '../../src/stats/random.ts';

const known = <T>(value: T) => ({ known: true as const, value });

/** An environment record shaped like src/environment/host.ts writes it. */
export function hostEnvironment(over: { release?: string; cmdline?: string; cpu?: string; host?: string; injectSeccomp?: number | null; pinnedCpu?: number | null } = {}): Environment {
  return {
    schema: 1,
    hostname: known(over.host ?? 'lab1'),
    kernel: {
      release: known(over.release ?? '6.12.9-amd64'),
      version: known('#1 SMP PREEMPT_DYNAMIC Debian 6.12.9-1'),
      cmdline: known(over.cmdline ?? 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet'),
      preemption: known('dynamic'),
      configHash: known('c0ffee'),
    },
    cpu: {
      model: known(over.cpu ?? 'Intel(R) Xeon(R) CPU @ 2.20GHz'),
      microcode: known('0x1'),
      online: known('0-1'),
      allowed: known('0-1'),
      smt: { known: false, reason: '/sys/devices/system/cpu/smt/control: not present' },
      governor: known('performance'),
      boost: { known: false, reason: 'no cpufreq boost control' },
    },
    virtualization: known('kvm'),
    probe: { buildId: 'probe-1234', compiler: 'gcc', compilerVersion: '12.2.0', flags: ['-O2'], static: true },
    pinnedCpu: over.pinnedCpu === undefined ? 1 : over.pinnedCpu,
    injectSeccomp: over.injectSeccomp ?? null,
    warnings: [],
  };
}

export interface RunSpec {
  id: number;
  label?: string | null;
  unit?: Unit;
  kind?: RunKind;
  status?: RunStatus;
  environment?: Environment;
  /** Measured values per subject, in measurement order (rounds interleave subjects). */
  values: Record<string, readonly number[]>;
  ops?: number;
  subjectParams?: Record<string, Record<string, unknown>>;
  warmups?: Record<string, readonly number[]>;
  /**
   * Units of replication the measured rounds are split across, in contiguous
   * blocks as the runner does. Default: every round its own unit (as with
   * --processes equal to --rounds), so rounds are independent observations.
   */
  units?: number;
  replicateUnit?: ReplicateUnit;
  /**
   * How the run was measured against its partner. Default 'interleaved': the
   * run records the interleaving of `bench --label-b`, side A for an odd id
   * and B for an even one, so runs 1 and 2 are one invocation's A and B (the
   * design whose verdicts these fixtures test). 'separate': a run of its own.
   */
  design?: 'interleaved' | 'separate';
}

/** The unit of replication of each of `n` rounds split over `units` units: 6 over 3 is 0, 0, 1, 1, 2, 2. */
export function unitIndices(n: number, units: number): number[] {
  return splitRounds(n, units).flatMap((size, unit) => Array.from({ length: size }, () => unit));
}

/** A RunWithRounds whose rounds interleave subjects round-robin, as the runner measures them. */
export function makeRun(spec: RunSpec): RunWithRounds {
  const unit = spec.unit ?? 'ns/call';
  const ops = spec.ops ?? 100_000;
  const subjects = Object.keys(spec.values);
  const rounds: Round[] = [];
  const replicates = new Map(subjects.map((s) => [s, unitIndices(spec.values[s]!.length, spec.units ?? spec.values[s]!.length)]));
  const push = (subject: string, index: number, value: number, warmup: boolean) =>
    rounds.push({
      seq: rounds.length,
      subject,
      index,
      replicate: warmup ? 0 : (replicates.get(subject)![index] ?? 0),
      warmup,
      ops,
      total: value * ops,
      value,
      unit,
      direction: directionOf(unit),
      recordedAt: '2026-11-29T12:00:00.000Z',
      metrics: [],
    });
  for (const s of subjects) (spec.warmups?.[s] ?? []).forEach((v, i) => push(s, i, v, true));
  const longest = Math.max(...subjects.map((s) => spec.values[s]!.length));
  for (let i = 0; i < longest; i++) {
    for (const s of subjects) {
      const v = spec.values[s]![i];
      if (v !== undefined) push(s, i, v, false);
    }
  }
  return {
    id: spec.id,
    label: spec.label === undefined ? `run${spec.id}` : spec.label,
    kind: spec.kind ?? 'bench',
    status: spec.status ?? 'complete',
    unit,
    replicateUnit: { known: true, value: spec.replicateUnit ?? (spec.kind === 'vm' ? 'boot' : spec.kind === 'macro' ? 'invocation' : 'process') },
    startedAt: '2026-11-29T12:00:00.000Z',
    finishedAt: '2026-11-29T12:05:00.000Z',
    error: null,
    command: `hintlab bench --label run${spec.id}`,
    hintlabVersion: '0.1.0',
    params: {
      subjects,
      ops,
      warmups: 0,
      rounds: longest,
      cpu: 1,
      subjectParams: spec.subjectParams ?? Object.fromEntries(subjects.map((s) => [s, {}])),
      extra: (spec.design ?? 'interleaved') === 'interleaved' ? { interleave: { side: spec.id % 2 === 1 ? 'A' : 'B', order: 'ABBA', labels: { A: 'A', B: 'B' } } } : {},
    },
    environment: spec.environment ?? hostEnvironment(),
    rounds,
  };
}

/** Write a hand-built run into a real store (ids are the store's own); returns its id. */
export function storeRun(store: Store, run: RunWithRounds, finish: 'complete' | 'failed' | null = 'complete'): number {
  const id = store.createRun({
    label: run.label,
    kind: run.kind,
    unit: run.unit,
    replicateUnit: run.replicateUnit.known ? run.replicateUnit.value : 'process',
    command: run.command,
    hintlabVersion: run.hintlabVersion,
    params: run.params,
    environment: run.environment,
  });
  for (const { recordedAt: _at, ...round } of run.rounds) store.addRound(id, round);
  if (finish) store.finishRun(id, finish, finish === 'failed' ? 'probe exited with status 1' : null);
  return id;
}

/**
 * One side of a paired invocation with one round per unit (unit k is pair
 * k): a duet on CPUs 0 and 1, or an alternation of one process with a
 * switch; `extra` goes into params.extra beside the interleave record
 * (a `stopping` record, say).
 */
export function pairedRun(id: number, values: readonly number[], design: 'duet' | 'alternation', extra: Record<string, unknown> = {}): RunWithRounds {
  const r = makeRun({ id, values: { x: values }, units: values.length });
  const rec = r.params.extra.interleave!;
  const how = design === 'duet' ? { cpus: [0, 1] as [number, number], swapEvery: 1 } : { blockRounds: 1, seed: 1 };
  return { ...r, params: { ...r.params, extra: { interleave: { ...rec, design, ...how }, ...extra } } };
}

/**
 * Noise on the log scale with standard deviation `sd`: normal, or with
 * `heavy` tails a normal contaminated by 15 % of draws five times wider
 * (robust spread about half the SD, as per-pair log ratios are here).
 */
export function logNoise(random: Random, sd: number, heavy: boolean): number {
  if (!heavy) return sd * gaussian(random);
  const s = sd / Math.sqrt(0.85 + 0.15 * 25);
  return (random() < 0.15 ? 5 * s : s) * gaussian(random);
}

/**
 * One side of `bench --design abbaab`: `levels` are its units' levels in
 * measurement order, `processesPerRun` of them to a run (the side's runs
 * sit at A B B A A B's positions of its letter), `rounds` rounds per unit
 * drawn by `round` around the unit's level.
 */
export function abbaabRun(id: number, levels: readonly number[], processesPerRun: number, round: (level: number) => number = (l) => l, rounds = 2): RunWithRounds {
  const r = makeRun({ id, values: { x: levels.flatMap((l) => Array.from({ length: rounds }, () => round(l))) }, units: levels.length });
  const rec = r.params.extra.interleave!;
  return { ...r, params: { ...r.params, extra: { interleave: { ...rec, order: 'ABBAAB', design: 'abbaab', processesPerRun } } } };
}

/**
 * How the machine moves between the six runs of an ABBAAB simulation
 * (test/compare/abbaab-simulation.test.ts, bench/aba-rates.ts): not at all
 * ('normal', 'heavy': run shifts with heavy tails), a drift of one run SD
 * per run, an AR(1) state (correlation 0.9, sd of one run SD), or a
 * session shift of one run SD from a random run on.
 */
export type AbbaabScenario = 'normal' | 'heavy' | 'drift' | 'ar1' | 'shift';

function abbaabMachine(random: Random, scenario: AbbaabScenario, runSd: number): number[] {
  const six = [0, 1, 2, 3, 4, 5];
  if (scenario === 'drift') return six.map((i) => runSd * i);
  if (scenario === 'shift') {
    const from = 1 + Math.floor(random() * 5);
    return six.map((i) => (i >= from ? runSd : 0));
  }
  if (scenario !== 'ar1') return six.map(() => 0);
  let s = runSd * gaussian(random);
  return six.map((i) => (i === 0 ? s : (s = 0.9 * s + runSd * Math.sqrt(1 - 0.81) * gaussian(random))));
}

/** Six run levels in A B B A A B order, each run shifted by `runSd` (log scale) of its own, B changed by `changePct`. */
export function abbaabLevels(random: Random, scenario: AbbaabScenario, changePct: number, runSd: number): { a: number[]; b: number[] } {
  const state = abbaabMachine(random, scenario, runSd);
  const a: number[] = [];
  const b: number[] = [];
  'ABBAAB'.split('').forEach((side, i) => {
    const level = 100 * Math.exp(state[i]! + logNoise(random, runSd, scenario === 'heavy'));
    if (side === 'A') a.push(level);
    else b.push(level * (1 + changePct / 100));
  });
  return { a, b };
}
