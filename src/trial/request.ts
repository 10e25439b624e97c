/**
 * What a trial is asked to do, the parts it is done with (real by default,
 * scripted in tests), and the keys that say whether a stored step result
 * still holds.
 */
import type { CostModel, CostPlugin } from '../vm/cost-plugin.ts';
import { createHash } from 'node:crypto';
import type { ProbeBuild } from '../launch/probe-build.ts';
import type { ProfileInfo } from '../bench/profiles.ts';
import type { BehaveDocument } from '../behave/compare.ts';
import type { BehaveDeps, BehaveRequest } from '../behave/run.ts';
import type { Scenario } from '../behave/scenario.ts';
import type { KernelBuildDeps, KernelBuildResult } from '../kernel/build.ts';
import type { ConfigBase, KernelBuildRequest } from '../kernel/inputs.ts';
import type { OptLevel } from '../kernel/manifest.ts';
import type { RunInvocation } from '../run-record.ts';
import type { Store } from '../store/store.ts';
import type { VmLauncher } from '../launch/qemu.ts';
import type { VmDeps, VmRequest, VmResult } from '../vm/runner.ts';
import type { VmMacroDeps, VmMacroPlan, VmMacroRequest, VmMacroResult } from '../vm/macro.ts';
import type { StressNgExecutor } from '../macro/executor.ts';
import type { CpioEntry } from '../launch/initramfs.ts';
import type { LavaVmDeps } from '../vm/placed.ts';
import type { LavaAddress } from '../targets/lava/address.ts';
import type { CodegenInput, TrialCodegen } from './codegen.ts';
import type { StepName, TrialStep } from './document.ts';

export interface TrialRequest {
  /** The user's tree (absolute); only ever read. */
  src: string;
  /** B's patches (absolute), applied in order: plain diffs, or mbox series split into their patches (./series.ts). */
  patches: string[];
  /** `--range BASE..HEAD` of the git repository `src`: A is BASE's tree, B is HEAD's (then `patches` is empty). */
  range?: string | null;
  /** Build and boot A plus each first k patches of the series, and say which commit brings each change (./per-commit.ts). */
  perCommit?: boolean;
  /** Where the builds live: A/, B/ and, with debugChecks, A-debug/, B-debug/. */
  out: string;
  base: ConfigBase;
  fragment: string | null;
  opt: OptLevel;
  jobs: number;
  /** Boot the behaviour scenarios on a second pair of kernels with the debug-checks fragment (never the measured pair). */
  debugChecks: boolean;
  scenarios: Scenario[];
  /** --scenario values as given, for the reproduce commands. */
  scenarioArgs: string[];
  profiles: ProfileInfo[];
  /** --profile values as given (none: the default set), for the reproduce commands. */
  profileArgs: string[];
  ops: number | null;
  rounds: number;
  warmups: number;
  /** Boots per kernel, in A B B A ... order. */
  repeat: number;
  /** Time in ns under KVM (only where a KVM trial boot works) instead of instructions under icount. */
  kvm: boolean;
  /** `--target lava://...`: the measured boots run as LAVA jobs (src/vm/lava.ts); null or absent: qemu here. */
  lava?: LavaAddress | null;
  /** `--cost`: the boots run hintlab's cost plugin with this model (src/vm/cost-plugin.ts); null without. */
  cost?: CostModel | null;
  /** stress-ng in A/B boots of the measured kernels (src/trial/stress.ts); null or absent without --stressor/--set. */
  stress?: TrialStressRequest | null;
  /** Build and boot each hunk group alone and left out (src/trial/per-hunk.ts). */
  perHunk?: boolean;
  /** Objects disassembled at most in the codegen step. */
  maxObjects: number;
  /** compare's noise threshold in %, for the measured runs' verdicts (default 1; counts under icount allow far less). */
  thresholdPct: number;
  timeoutSeconds: number;
  command: string;
  invocation: RunInvocation;
  /** The database as the user named it (--db, $HINTLAB_DB), null for the default: for the reproduce commands. */
  db: string | null;
  hintlabVersion: string;
}

/** What `--stressor`, `--set`, `--stressor-instances` and `--stressor-seconds` asked for. */
export interface TrialStressRequest {
  stressors: string[];
  sets: string[];
  /** --stressor-instances text (`1`, `1,4`; `all` is one per guest CPU). */
  instances: string;
  /** Invocations of every stressor in each boot (compare needs 5 rounds per side: 3 boots x 2). */
  repeats: number;
  /** Seconds of the guest clock per invocation (under icount: 10^9 guest instructions each, idle skipped). */
  seconds: number;
}

/** The parts a trial runs its steps with; tests replace them. */
export interface TrialServices {
  buildKernel(req: KernelBuildRequest, deps: KernelBuildDeps): Promise<KernelBuildResult>;
  codegen(input: CodegenInput): Promise<TrialCodegen>;
  runBehave(req: BehaveRequest, deps: BehaveDeps): Promise<BehaveDocument>;
  runVm(req: VmRequest, deps: VmDeps): Promise<VmResult>;
  planVmMacro: (req: VmMacroRequest, stressNg: StressNgExecutor) => Promise<VmMacroPlan>;
  runVmMacro(req: VmMacroRequest, plan: VmMacroPlan, deps: VmMacroDeps): Promise<VmMacroResult>;
  runVmOnLava(req: VmRequest, deps: LavaVmDeps): Promise<VmResult>;
}

/** A step starting, finished, or stopping the trial. */
export type StepEvent =
  | { kind: 'start'; index: number; total: number; name: StepName; title: string }
  | { kind: 'end'; index: number; total: number; step: TrialStep }
  | { kind: 'failed'; index: number; total: number; name: StepName; title: string; seconds: number; error: string; interrupted: boolean };

export interface TrialDeps {
  store: Store;
  launcher: VmLauncher;
  probe: ProbeBuild;
  abort: AbortSignal;
  services?: Partial<TrialServices>;
  /** Overrides the KVM check (tests). */
  chooseAccel?: VmDeps['chooseAccel'];
  /** Where initramfs images are kept (default: next to the probe cache). */
  cacheDir?: string;
  /** The stress-ng the stressors are checked against (default: the one on PATH). */
  stressNg?: StressNgExecutor;
  /** The stress-ng binary copied into the stressor boots (default /usr/bin/stress-ng). */
  stressNgBinary?: string;
  /** Overrides stress-ng's archive members in the stressor boots (tests). */
  stressNgEntries?: CpioEntry[];
  /** The built cost plugin, when the request has `cost`. */
  costPlugin?: CostPlugin;
  onStep?: (event: StepEvent) => void;
  /** Lines said through onNote once the request is checked, before the steps (the cost model's default). */
  notes?: string[];
  /** Said once before the steps (what the installed stress-ng lacks of --set sched). */
  onNote?(line: string): void;
  /** A step's own progress lines (build phases, boots). */
  onDetail?: (line: string) => void;
  onCompiled?: (count: number, object: string) => void;
  /** Where a LAVA token may come from ($HINTLAB_LAVA_TOKEN). */
  env?: NodeJS.ProcessEnv;
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** A key over a step's inputs: equal key, same result. */
export function stepKey(step: StepName, inputs: Record<string, unknown>): string {
  return sha256(JSON.stringify({ schema: 1, step, ...inputs }));
}
