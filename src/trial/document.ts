/**
 * The trial document: everything one `hintlab trial` found, computed once
 * by runTrial (./run.ts) and only formatted by the reporters
 * (src/report/trial*.ts): how the kernels were built (base, fragments,
 * patches with their hashes and where each hunk applied, -O level,
 * compiler, release), what changed in the object code, whether behaviour
 * changed, the measured A/B comparison with its verdicts, each step's
 * state and wall time, and the commands that reproduce each part.
 *
 * Format history (TRIAL_SCHEMA):
 *   1: first version; later `stressors` (absent without --stressor/--set),
 *      `perHunk` (absent without --per-hunk), `hunk-*` steps and `cost`
 *      (absent without the cost model; versioned on its own,
 *      TRIAL_COST_SCHEMA in ./cost.ts); `git` (absent without --range),
 *      each patch's `subject`, `author` and `commit` (absent for a plain
 *      diff), `perCommit` and `commit-*` steps (absent without --per-commit).
 */
import type { BehaveDocument } from '../behave/compare.ts';
import type { Comparison } from '../compare/types.ts';
import type { AppliedFile, KernelManifest } from '../kernel/manifest.ts';
import type { Unit } from '../model.ts';
import type { Verdict } from '../compare/types.ts';
import type { Hunk, HunkGroup } from './hunks.ts';
import type { AccelChoice } from '../vm/accel.ts';
import type { UnavailableStressor } from '../macro/stressors.ts';
import type { TrialCodegen } from './codegen.ts';
import type { TrialCost } from './cost.ts';
import type { GitCommit } from '../kernel/git.ts';

export const TRIAL_FORMAT = 'hintlab-trial';
export const TRIAL_SCHEMA = 1;

/** The steps of a trial, in the order they run (the debug builds only with --debug-checks). */
export type StepName = 'build-A' | 'build-B' | 'build-A-debug' | 'build-B-debug' | 'codegen' | 'behave' | 'vm' | 'stress' | `hunk-${string}` | `commit-${string}`;

/** One kernel of the trial as its build manifest records it. */
export interface TrialKernel {
  /** A, B, or A-debug / B-debug (built with --debug-checks for the behaviour boots only). */
  role: 'A' | 'B' | 'A-debug' | 'B-debug';
  dir: string;
  image: string;
  /** Built by this trial, or reused (its inputs unchanged since an earlier build). */
  state: 'built' | 'reused';
  manifest: KernelManifest;
}

/** One patch of B. */
export interface TrialPatch {
  path: string;
  /** The mail's or commit's subject (an mbox series, --range); absent for a plain diff, named by its file. */
  subject?: string;
  /** The commit it is (--range). */
  commit?: string;
  author?: string;
  sha256: string;
  files: string[];
  /** Where each hunk applied (absent when B was reused from a build that did not record it). */
  applied?: AppliedFile[];
}

export interface TrialStep {
  name: StepName;
  /** What the step did, for the step list ("build B (A + 1 patch, from A's objects)"). */
  title: string;
  state: 'done' | 'reused';
  /** Wall time of the step in this trial (a reused step's check included). */
  seconds: number;
  /** What the reused result took when it was made (a build's buildSeconds, the boots' time). */
  earlierSeconds?: number;
  key: string;
  /** One line: "built in 38 s, 4 objects compiled", "231 steps identical". */
  summary: string;
}

export interface TrialMeasured {
  /** The runs of A and B (each kernel one run, each boot one unit). */
  runs: { A: { id: number; label: string }; B: { id: number; label: string } };
  /** The boot order, e.g. A B B A A B. */
  order: string[];
  accel: AccelChoice;
  icount: boolean;
  unit: Unit;
  profiles: string[];
  rounds: number;
  warmups: number;
  ops: number | null;
  comparison: Comparison;
}

/** The stressors (--stressor, --set): stress-ng in their own A/B boots of the measured kernels, each boot one unit. */
export interface TrialStressors {
  runs: { A: { id: number; label: string }; B: { id: number; label: string } };
  order: string[];
  accel: AccelChoice;
  icount: boolean;
  /** 'icount-bogo-ops/s' (bogo-ops per guest second) under icount, 'bogo-ops/s' under KVM. */
  unit: Unit;
  stressNgVersion: string;
  stressors: string[];
  /** Asked for (by --set) but not in the installed stress-ng. */
  unavailable: UnavailableStressor[];
  instances: number[];
  /** Guest seconds per invocation. */
  seconds: number;
  comparison: Comparison;
}

/** A command that reproduces one part: `hintlab` and its arguments (paths absolute, as run). */
export interface ReproduceCommand {
  /** The step it reproduces (`trial` for the whole). */
  part: StepName | 'trial' | 'compare';
  argv: string[];
  /** Said before the command, when it needs a word (several patches for codegen). */
  note?: string;
}

export interface TrialDocument {
  format: typeof TRIAL_FORMAT;
  schema: typeof TRIAL_SCHEMA;
  trialId: number;
  hintlabVersion: string;
  source: { dir: string; version: string };
  /** With --range: the user's repository and the range's two ends (A is BASE's tree, B is HEAD's). */
  git?: { repo: string; range: string; base: GitCommit; head: GitCommit };
  out: string;
  patches: TrialPatch[];
  kernels: { A: TrialKernel; B: TrialKernel; debug?: { A: TrialKernel; B: TrialKernel } };
  codegen: TrialCodegen;
  /** The behaviour comparison, on the measured kernels or on the --debug-checks pair. */
  behave: { kernels: 'measured' | 'debug-checks'; document: BehaveDocument };
  measured: TrialMeasured;
  /** The stressors' verdicts, geometric mean and regressions; absent without --stressor/--set. */
  stressors?: TrialStressors;
  /** Each hunk group alone and left out, against A; absent without --per-hunk. */
  perHunk?: TrialPerHunk;
  /** Each commit of the series against the kernel before it; absent without --per-commit. */
  perCommit?: TrialPerCommit;
  /** What the cost model counted in the measured boots; absent when they ran without it. */
  cost?: TrialCost;
  steps: TrialStep[];
  /** The directory the commands were run in (reproduce paths are shown relative to the reader's). */
  cwd: string;
  /** The database as the user named it (--db or $HINTLAB_DB); null for the default. */
  db: string | null;
  reproduce: ReproduceCommand[];
}

/** One hunk of B against A (diff -U3 of A's and B's trees; named by file and oldStart: "kernel/sched/core.c @10432"), its body counted. */
export type TrialHunk = Omit<Hunk, 'body'> & {
  added: number;
  removed: number;
  /** The group it is built and measured with. */
  group: number;
};

/** One subject of a variant (or of B) against A. */
export interface VariantRow {
  subject: string;
  kind: 'profile' | 'stressor';
  unit: Unit;
  changeInUnit: number;
  changePct: number;
  verdict: Verdict;
  /** Judged by the exact rule (every boot gave the same count). */
  exact?: true;
}

/** A variant kernel as measured: its runs and rows against the kernel it is compared with, or why it did not build. */
export interface VariantMeasure {
  state: 'measured' | 'unbuilt';
  /** The compiler's error lines, when the kernel does not build. */
  error?: string;
  runs?: { id: number; label: string };
  stressRuns?: { id: number; label: string };
  build?: { seconds: number; objectsCompiled: number | null; reused: boolean };
  rows: VariantRow[];
}

/** A kernel of A + some hunk groups: one group alone, or all but one. */
export interface TrialVariant extends VariantMeasure {
  name: string;
  kind: 'alone' | 'without';
  group: number;
  hunks: number[];
}

/** Which hunk group explains one subject's change in B. */
export interface Attribution {
  subject: string;
  kind: VariantRow['kind'];
  b: Pick<VariantRow, 'changePct' | 'verdict' | 'unit'>;
  /** Groups whose change alone goes the same way as B's. */
  explainedBy: number[];
  /** "fifo -33.00 %: kernel/sched/core.c @10432 alone -31.00 %, without it none; others none". */
  line: string;
}

export interface TrialPerHunk {
  hunks: TrialHunk[];
  groups: HunkGroup[];
  variants: TrialVariant[];
  /** Why no variant was built (the change is one group), or null. */
  skipped: string | null;
  /** One per subject whose change B claims. */
  attribution: Attribution[];
}

/** One patch of the series as --per-commit measured it: A plus the series up to it, against the kernel before it. */
export interface TrialCommitStep extends VariantMeasure {
  /** 1-based position in the series. */
  index: number;
  /** Its subject, or its file's name for a plain diff. */
  label: string;
  commit: string | null;
  author: string | null;
  /** The kernel of A plus the first `index` patches: `commit-2`, or B for the last. */
  kernel: string;
  /** The kernel it is compared with (its `rows` are against it): the one before it that built (A for the first). */
  against: string;
}

/** Which commits bring one subject's change in B. */
export interface CommitAttribution {
  subject: string;
  kind: VariantRow['kind'];
  b: Pick<VariantRow, 'changePct' | 'verdict' | 'unit'>;
  /** Commits (1-based indices) whose own step changes it the way B does. */
  broughtBy: number[];
  /** `getppid +2.00 %: 2/3 "sched: add work" +2.00 %; others none`. */
  line: string;
}

export interface TrialPerCommit {
  commits: TrialCommitStep[];
  /** One per subject whose change B claims. */
  attribution: CommitAttribution[];
}
