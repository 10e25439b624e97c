/**
 * Hand-built Comparison documents for report tests. The numbers are chosen
 * so the expected report text can be worked out by hand (e.g. 182.4 ->
 * 170.6 is -11.8 ns and 100 * (170.6 / 182.4 - 1) = -6.469 %, printed -6.5 %).
 */
import type {
  Comparison,
  ComparedRun,
  Contrast,
  RunRole,
  RunSummary,
  SubjectComparison,
} from '../../src/compare/types.ts';
import type { Unit } from '../../src/model.ts';
import type { ReportContext } from '../../src/report/reporter.ts';

export const CTX: ReportContext = { hintlabVersion: '0.1.0', generatedAt: '2025-01-02T03:04:05.000Z' };

const ok = <T>(value: T) => ({ known: true as const, value });

/** A host environment record shaped like src/environment/host.ts writes it. */
export function hostEnv(over: { release?: string; seccomp?: number | null; model?: string } = {}): Record<string, unknown> {
  return {
    schema: 1,
    hostname: ok('lab-7'),
    kernel: {
      release: ok(over.release ?? '6.12.9-amd64'),
      version: ok('#1 SMP PREEMPT_DYNAMIC Debian 6.12.9-1'),
      cmdline: ok('BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet'),
      preemption: ok('voluntary (dynamic)'),
      configHash: { known: false, reason: 'no /proc/config.gz and /boot/config-6.12.9-amd64: ENOENT' },
    },
    cpu: {
      model: ok(over.model ?? 'Intel(R) Xeon(R) CPU @ 2.20GHz'),
      microcode: ok('0xffffffff'),
      online: ok('0-1'),
      allowed: ok('0-1'),
      smt: ok('off'),
      governor: ok('performance'),
      boost: ok('off (cpufreq/boost=0)'),
    },
    isolation: { isolcpus: ok(''), nohzFull: ok('') },
    vulnerabilities: ok({}),
    virtualization: ok('kvm'),
    load: { start: ok([0.1, 0.2, 0.3]) },
    probe: {
      buildId: '0123456789abcdef',
      compiler: 'cc',
      compilerVersion: 'gcc (Debian 12.2.0-14) 12.2.0',
      flags: ['-O2', '-Wall', '-Werror'],
      static: false,
    },
    pinnedCpu: 1,
    injectSeccomp: over.seccomp ?? null,
    warnings: [],
  };
}

/** `n` values with mean exactly `mean` and a small symmetric spread (sd about mean*cv). */
export function spread(mean: number, cvPct: number, n: number): number[] {
  const sd = (mean * cvPct) / 100;
  return Array.from({ length: n }, (_, i) => mean + sd * Math.sin((2 * Math.PI * (i + 0.5)) / n) * Math.SQRT2);
}

export function summary(role: RunRole, runId: number, mean: number, cvPct: number, n = 15, ops = 20000): RunSummary {
  const values = spread(mean, cvPct, n);
  const sd = (mean * cvPct) / 100;
  const half = (2.145 * sd) / Math.sqrt(n);
  return {
    role,
    runId,
    n,
    replicateUnit: { known: true, value: 'process' },
    units: 3,
    roundsPerUnit: [n / 3, n / 3, n / 3],
    unitMeansInUnit: [mean - sd / 2, mean, mean + sd / 2],
    unitCvPct: cvPct / 2,
    meanInUnit: mean,
    medianInUnit: mean,
    stdevInUnit: sd,
    cvPct,
    minInUnit: Math.min(...values),
    maxInUnit: Math.max(...values),
    ciMeanInUnit: { kind: 'ok', low: mean - half, high: mean + half, level: 0.95 },
    valuesInUnit: values,
    seqs: values.map((_, i) => i * 3),
    opsPerRound: values.map(() => ops),
  };
}

export function contrast(
  candidate: RunRole,
  baseline: 'A' | 'A+A2',
  before: number,
  after: number,
  ci: [number, number],
  pValue = 0.0001,
): Contrast {
  return {
    candidate,
    baseline,
    baselineMeanInUnit: before,
    candidateMeanInUnit: after,
    changeInUnit: after - before,
    changePct: 100 * (after / before - 1),
    ratio: after / before,
    ciPct: { kind: 'ok', low: ci[0], high: ci[1], level: 0.95 },
    units: { baseline: baseline === 'A' ? 3 : 6, candidate: 3 },
    test: baseline === 'A+A2' ? { kind: 'ok', method: 'run-level-t', t: -10, df: 1, pValue, sePct: 0.3 } : { kind: 'ok', method: 'welch', t: -10, df: 3.9, pValue, sePct: 0.3 },
    rank: { kind: 'ok', method: 'mann-whitney', pValue: 0.1, minPValue: 0.1 },
    pairs: null,
    roundWelch: { kind: 'ok', t: -25, df: 27.5, pValue: pValue / 100 },
    runToRun: baseline === 'A+A2' ? { kind: 'from-a2', runSdPct: 0.05, df: 1 } : { kind: 'not-estimated' },
    // Holm over the three subjects, all with the same p: every adjusted p is 3 p (capped at 1).
    adjusted: { kind: 'adjusted', correction: 'holm', familySize: 3, pValue: Math.min(1, 3 * pValue), rankPValue: Math.min(1, 6 * pValue) },
  };
}

interface SubjectSpec {
  subject: string;
  a: number;
  b: number;
  a2: number;
  cv: [number, number, number];
  ci: [number, number];
  driftCi: [number, number];
  verdict: SubjectComparison['verdict'];
  mdePct: number;
}

function subject(spec: SubjectSpec, withA2: boolean): SubjectComparison {
  const runs = [summary('A', 12, spec.a, spec.cv[0]), summary('B', 13, spec.b, spec.cv[1])];
  if (withA2) runs.push(summary('A2', 14, spec.a2, spec.cv[2]));
  const pooled = (spec.a + spec.a2) / 2;
  return {
    subject: spec.subject,
    runs,
    change: contrast('B', 'A', spec.a, spec.b, spec.ci),
    drift: withA2
      ? {
          kind: 'measured' as const,
          drift: contrast('A2', 'A', spec.a, spec.a2, spec.driftCi, 0.4),
          driftVerdict: { verdict: 'no difference proven' as const, reason: 'p = 0.4 >= 0.05.', caveats: [] },
          vsPooled: contrast('B', 'A+A2', pooled, spec.b, spec.ci),
          vsMidpoint: { midpointInUnit: pooled, changeInUnit: spec.b - pooled, changePct: 100 * (spec.b / pooled - 1) },
          driftAsLargeAsChange: false,
        }
      : { kind: 'no-a2' as const },
    power: { kind: 'ok', alpha: 0.05, power: 0.8, mdePct: spec.mdePct, claimablePct: spec.mdePct, detectPct: null, unitsNeeded: null, advice: null },
    verdict: spec.verdict,
    judgedOn: withA2 ? 'B vs A+A2' : 'B vs A',
    control: false,
  };
}

/** A stress-ng subject: every round is its own invocation, the unit of replication. */
function asInvocations(s: SubjectComparison): SubjectComparison {
  const runs = s.runs.map((r) => ({
    ...r,
    replicateUnit: { known: true as const, value: 'invocation' as const },
    units: r.n,
    roundsPerUnit: r.valuesInUnit.map(() => 1),
    unitMeansInUnit: r.valuesInUnit,
    unitCvPct: r.cvPct,
  }));
  return { ...s, runs };
}

export const SUBJECTS: SubjectSpec[] = [
  {
    subject: 'sched_getattr',
    a: 182.4,
    b: 170.6,
    a2: 182.6,
    cv: [0.3, 0.4, 0.3],
    ci: [-6.9, -6.1],
    driftCi: [-0.2, 0.4],
    verdict: { verdict: 'faster', reason: 'p < 0.05 and the whole CI lies below -1 %.', caveats: [] },
    mdePct: 0.4,
  },
  {
    subject: 'getppid',
    a: 45.2,
    b: 46.1,
    a2: 45.25,
    cv: [0.5, 0.5, 0.5],
    ci: [1.5, 2.5],
    driftCi: [-0.3, 0.5],
    verdict: { verdict: 'slower', reason: 'p < 0.05 and the whole CI lies above +1 %.', caveats: [] },
    mdePct: 0.5,
  },
  {
    subject: 'read',
    a: 301,
    b: 301.5,
    a2: 300.8,
    cv: [0.9, 1.1, 1],
    ci: [-0.45, 0.78],
    driftCi: [-0.7, 0.5],
    verdict: { verdict: 'no difference proven', reason: 'The CI includes 0.', caveats: [] },
    mdePct: 0.8,
  },
];

function run(role: RunRole, id: number, label: string | null, env: Record<string, unknown>, command: string): ComparedRun {
  return {
    role,
    id,
    label,
    kind: 'bench',
    status: 'complete',
    replicateUnit: { known: true, value: 'process' },
    startedAt: '2025-01-02T01:00:00.000Z',
    finishedAt: '2025-01-02T01:05:00.000Z',
    error: null,
    command,
    hintlabVersion: '0.1.0',
    params: { subjects: SUBJECTS.map((s) => s.subject), ops: 20000, warmups: 2, rounds: 15, cpu: 1, subjectParams: {}, extra: {} },
    environment: env,
    clock: { known: true, value: 'wall' },
  };
}

/** A/B/A on one host: B runs a patched kernel; A2 is the stock kernel again. */
export function abaComparison(opts: { withA2?: boolean; unit?: Unit } = {}): Comparison {
  const withA2 = opts.withA2 ?? true;
  const runs = [
    run('A', 12, 'stock', hostEnv(), 'hintlab bench --cpu 1 --rounds 15 --label stock'),
    run('B', 13, 'patched', hostEnv({ release: '6.12.9-hintlab+' }), 'hintlab bench --cpu 1 --rounds 15 --label patched'),
  ];
  if (withA2) runs.push(run('A2', 14, 'stock-again', hostEnv(), 'hintlab bench --cpu 1 --rounds 15 --label stock-again'));
  const roles: RunRole[] = withA2 ? ['A', 'B', 'A2'] : ['A', 'B'];
  const perRole = (v: string[]): Partial<Record<RunRole, string>> => Object.fromEntries(roles.map((r, i) => [r, v[i] ?? '']));
  return {
    schema: 9,
    design: withA2
      ? { kind: 'aba', text: 'A/B/A: three separate runs, B against the midpoint of A and A2 over their difference (t with 1 degree of freedom)', processesPerSide: null, cpus: null }
      : { kind: 'separate-runs', text: 'separate runs: A and B measured apart, so a shift between runs cannot be told from a change (no claim)', processesPerSide: null, cpus: null },
    unit: opts.unit ?? 'ns/call',
    clock: { known: true, value: 'wall' },
    measures: opts.unit === 'instructions/call' ? 'instructions' : 'time',
    direction: opts.unit === 'bogo-ops/s' ? 'higher-is-better' : 'lower-is-better',
    runs,
    options: {
      alpha: 0.05,
      correction: 'holm',
      thresholdPct: 1,
      confidenceLevel: 0.95,
      bootstrapResamples: 10000,
      bootstrapSeed: 1,
      power: 0.8,
      minRounds: 5,
      minUnits: 3,
      roundsAsUnits: false,
      controls: [],
      detectPct: null,
      allowMismatch: false,
      allowIncomplete: false,
    },
    subjects: SUBJECTS.map((s) => (opts.unit === 'bogo-ops/s' ? asInvocations(subject(s, withA2)) : subject(s, withA2))),
    notCompared: [],
    notRun: [],
    multipleComparisons: { correction: 'holm', familySize: 3, driftFamilySize: withA2 ? 3 : null },
    geometricMean: { kind: 'ok', ratio: 0.9839, changePct: -1.61, improved: true, subjects: 3, claims: 2 },
    regressions: ['getppid'],
    controls: [],
    environment: [
      { field: 'cpu.model', values: perRole(['Intel(R) Xeon(R) CPU @ 2.20GHz', 'Intel(R) Xeon(R) CPU @ 2.20GHz', 'Intel(R) Xeon(R) CPU @ 2.20GHz']), kind: 'checked', same: true },
      { field: 'kernel.release', values: perRole(['6.12.9-amd64', '6.12.9-hintlab+', '6.12.9-amd64']), kind: 'expected', same: false },
    ],
    mismatchesAllowed: [],
  };
}
