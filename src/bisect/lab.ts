/**
 * The real BisectLab: a commit is built as a kernel (src/kernel/) from its
 * tree exported with `git archive` into hintlab's build area, and booted
 * under qemu -icount running one probe profile (src/vm/runner.ts), each
 * boot its own stored run.
 *
 * Layout of the area (`--out`): `commits/<hash>-<inputs>/` one
 * `hintlab kernel build` directory per commit (kept: a rerun reuses it),
 * `trees/<hash>/` the exported trees (removed by close()), `patches/` the
 * diffs of incremental builds.
 *
 * Incremental builds: src/kernel starts a build from another build's
 * objects only when the tree is the same (`--from` checks the tree's
 * fingerprint), so a commit next to a built one is built from that one's
 * objects as the tree it was built on (the first full build of the chain,
 * named in its `bisect-tree` file) plus the diff from there to this
 * commit (`git diff`): make then recompiles what differs. Where the diff
 * does not apply with patch(1) (binary files, renames) or changes a
 * symbolic link (which patch(1) would write as a regular file), the commit
 * gets a full build of its own tree.
 *
 * The boots run in qemu here, or on the boot site of `--target` (a LAVA
 * lab: each boot one job), opened before the first build (a refused token
 * or a device type without devices is said before an hour of builds) and
 * closed by close().
 *
 * A build that fails or a boot that fails is a skip with the reason; an
 * interrupt (the abort signal) is not, and ends the bisect. On a site, a
 * boot whose job did not complete ends the bisect too (LabStopped): LAVA
 * ends a job Incomplete both for a kernel that did not come up and for a
 * device or lab that failed, and a skip for a lab's failure would move the
 * search past a commit that was never measured.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileInfo } from '../bench/profiles.ts';
import { metricRun } from '../compare/metric.ts';
import { UserError } from '../errors.ts';
import { buildKernel, type KernelBuildDeps, type KernelBuildResult } from '../kernel/build.ts';
import type { ConfigBase, KernelBuildRequest } from '../kernel/inputs.ts';
import { IMAGE_FILE, MANIFEST_FILE, type OptLevel } from '../kernel/manifest.ts';
import { checkPatchesApply } from '../kernel/source.ts';
import type { VmLauncher } from '../launch/qemu.ts';
import type { ProbeBuild } from '../launch/probe-build.ts';
import { measuredValues } from '../model.ts';
import type { RunInvocation } from '../run-record.ts';
import { readEnvironment } from '../environment/read.ts';
import { openBootSite, type BootPlace } from '../targets/factory.ts';
import type { BootSite, SiteContext } from '../targets/site.ts';
import { isSample, mean } from '../stats/descriptive.ts';
import type { Store } from '../store/store.ts';
import type { CostModel, CostPlugin } from '../vm/cost-plugin.ts';
import { resolveKernel, type VmKernel } from '../vm/kernels.ts';
import { runVmMacro, type VmMacroDeps, type VmMacroPlan, type VmMacroRequest, type VmMacroResult } from '../vm/macro.ts';
import type { CpioEntry } from '../launch/initramfs.ts';
import { runVm, type VmDeps, type VmRequest, type VmResult } from '../vm/runner.ts';
import type { BootValue, BuildState } from './document.ts';
import { diffBetween, exportTree, symlinkChanged } from '../kernel/git.ts';
import type { BisectLab, LabMeasurement } from './run.ts';
import type { Commit } from './search.ts';

export interface KernelLabOptions {
  src: string;
  out: string;
  base: ConfigBase;
  fragment: string | null;
  opt: OptLevel;
  jobs: number;
  /** The probe profile the boots run; null with `stress`. */
  profile: ProfileInfo | null;
  /** 'instructions/call', or a cost counter's name under `cost`; ignored with `stress`. */
  metric: string;
  /** `--stressor`: boots run this stress-ng plan (one stressor) instead of the profile; the value is bogo-ops per guest second. */
  stress?: LabStress | null;
  cost: CostModel | null;
  ops: number | null;
  rounds: number;
  warmups: number;
  timeoutSeconds: number;
  command: string;
  invocation: RunInvocation;
  hintlabVersion: string;
}

/** A stressor's boots: the plan checked against the installed stress-ng, and its subject (`fifo@1`). */
export interface LabStress {
  plan: VmMacroPlan;
  subject: string;
  seconds: number;
  repeats: number;
}

/** The builder and the boots; tests replace them. */
export interface KernelLabServices {
  buildKernel(req: KernelBuildRequest, deps: KernelBuildDeps): Promise<KernelBuildResult>;
  runVm(req: VmRequest, deps: VmDeps): Promise<VmResult>;
  runVmMacro(req: VmMacroRequest, plan: VmMacroPlan, deps: VmMacroDeps): Promise<VmMacroResult>;
}

export interface KernelLabDeps {
  store: Store;
  launcher: VmLauncher;
  probe: ProbeBuild;
  abort: AbortSignal;
  costPlugin?: CostPlugin;
  cacheDir?: string;
  services?: Partial<KernelLabServices>;
  /** Overrides stress-ng's archive members in the stressor boots (tests). */
  stressNgEntries?: CpioEntry[];
  onDetail?: (line: string) => void;
  onCompiled?: (count: number, object: string) => void;
  /** Opens where the boots run when not in qemu here (a LAVA lab): siteOpener's; absent: qemu here. */
  openSite?: () => Promise<BootSite>;
}

/** A boot on a site whose job did not complete: the bisect stops there (exit status 1), naming the job. */
export class LabStopped extends UserError {
  constructor(message: string) {
    super(message, 1);
    this.name = 'LabStopped';
  }
}

/** What decides a commit's build besides the commit: part of its directory's name. */
export function buildInputs(o: Pick<KernelLabOptions, 'base' | 'fragment' | 'opt'>): string {
  return createHash('sha256').update(JSON.stringify({ base: o.base, fragment: o.fragment, opt: o.opt })).digest('hex').slice(0, 8);
}

/**
 * Written beside an exported tree once git archive finished (a tree
 * without it is a partial export); never inside it, where it would change
 * the tree's fingerprint and so refuse a build from its objects.
 */
const EXPORTED = '.exported';

/** In a commit's build directory: the commit whose exported tree it was built from. */
const TREE_FILE = 'bisect-tree';

type Built = { state: 'built'; dir: string; build: BuildState } | { state: 'failed'; reason: string };

export class KernelLab implements BisectLab {
  private readonly services: KernelLabServices;
  private readonly inputs: string;
  /** The boot site once opened (only with deps.openSite). */
  private site: BootSite | null = null;

  constructor(
    private readonly o: KernelLabOptions,
    private readonly deps: KernelLabDeps,
  ) {
    this.services = { buildKernel, runVm, runVmMacro, ...deps.services };
    this.inputs = buildInputs(o);
  }

  private dir(hash: string): string {
    return join(this.o.out, 'commits', `${hash.slice(0, 12)}-${this.inputs}`);
  }

  private isBuilt(hash: string): boolean {
    const dir = this.dir(hash);
    return existsSync(join(dir, MANIFEST_FILE)) && existsSync(join(dir, IMAGE_FILE));
  }

  private async tree(hash: string): Promise<string> {
    const dir = join(this.o.out, 'trees', hash.slice(0, 12));
    const done = `${dir}${EXPORTED}`;
    if (existsSync(done)) return dir;
    rmSync(dir, { recursive: true, force: true });
    await exportTree(this.o.src, hash, dir, this.deps.abort);
    writeFileSync(done, `${hash}\n`);
    return dir;
  }

  /** The built commit nearest to `commit` in the history, or null. */
  private nearestBuilt(commit: Commit, history: readonly Commit[]): Commit | null {
    const at = history.findIndex((c) => c.hash === commit.hash);
    const built = history.filter((c) => c.hash !== commit.hash && this.isBuilt(c.hash));
    built.sort((a, b) => Math.abs(history.indexOf(a) - at) - Math.abs(history.indexOf(b) - at));
    return built[0] ?? null;
  }

  /** The commit whose exported tree `hash`'s build was made from: itself, or the root of its incremental chain. */
  private treeOf(hash: string): string {
    const file = join(this.dir(hash), TREE_FILE);
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : hash;
  }

  /**
   * A built neighbour's objects and the diff to this commit from the tree
   * that neighbour was built on (the root of its chain: --from accepts only
   * the same tree), when patch(1) applies it.
   */
  private async incremental(commit: Commit, history: readonly Commit[]): Promise<{ from: string; root: string; tree: string; patch: string } | null> {
    const near = this.nearestBuilt(commit, history);
    if (!near) return null;
    const root = this.treeOf(near.hash);
    const tree = await this.tree(root);
    const patch = join(this.o.out, 'patches', `${root.slice(0, 12)}-${commit.hash.slice(0, 12)}.patch`);
    mkdirSync(join(this.o.out, 'patches'), { recursive: true });
    const diff = diffBetween(this.o.src, root, commit.hash);
    const link = symlinkChanged(diff);
    if (link !== null) {
      this.deps.onDetail?.(`the diff from ${root.slice(0, 12)} changes the symbolic link ${link}, which patch(1) would write as a regular file; a full build of ${commit.hash.slice(0, 12)} instead`);
      return null;
    }
    writeFileSync(patch, diff);
    try {
      checkPatchesApply(tree, [patch]);
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      this.deps.onDetail?.(`the diff from ${root.slice(0, 12)} does not apply with patch(1); a full build of ${commit.hash.slice(0, 12)} instead`);
      return null;
    }
    return { from: this.dir(near.hash), root, tree, patch };
  }

  private async build(commit: Commit, history: readonly Commit[]): Promise<Built> {
    const dir = this.dir(commit.hash);
    if (this.isBuilt(commit.hash)) return { state: 'built', dir, build: 'reused' };
    const inc = await this.incremental(commit, history);
    const req: KernelBuildRequest = {
      src: inc?.tree ?? (await this.tree(commit.hash)),
      patches: inc ? [inc.patch] : [],
      fragment: this.o.fragment,
      base: this.o.base,
      opt: this.o.opt,
      fragments: [],
      out: dir,
      label: commit.hash.slice(0, 12),
      jobs: this.o.jobs,
      from: inc?.from ?? null,
    };
    try {
      await this.services.buildKernel(req, { abort: this.deps.abort, onPhase: this.deps.onDetail, onCompiled: this.deps.onCompiled });
    } catch (err) {
      if (this.deps.abort.aborted || !(err instanceof UserError)) throw err;
      return { state: 'failed', reason: `build failed: ${err.message}` };
    }
    writeFileSync(join(dir, TREE_FILE), `${inc?.root ?? commit.hash}\n`);
    return { state: 'built', dir, build: inc ? 'incremental' : 'built' };
  }

  /** A boot's value: the mean over its measured rounds of the profile's count, the cost counter, or the stressor's rate. */
  private bootValue(runId: number): number {
    const run = this.deps.store.getRun(runId);
    const subject = this.o.stress?.subject ?? this.o.profile?.name ?? '';
    const byMetric = !this.o.stress && this.o.metric !== 'instructions/call';
    const values = measuredValues(byMetric ? metricRun(run, this.o.metric) : run, subject);
    if (!isSample(values)) throw new UserError(`run #${runId} has no measured value of ${subject}`);
    return mean(values);
  }

  /** What the boots of one commit share, profile or stressor. */
  private bootCommon(label: string, boots: number) {
    return {
      steps: Array.from({ length: boots }, () => label),
      accel: 'tcg' as const,
      icount: true,
      timeoutSeconds: this.o.timeoutSeconds,
      labelPrefix: 'bisect-',
      command: this.o.command,
      invocation: this.o.invocation,
      hintlabVersion: this.o.hintlabVersion,
    };
  }

  private runBoots(kernel: VmKernel, boots: number): Promise<VmResult | VmMacroResult> {
    const { store, launcher, probe, abort, costPlugin, cacheDir, stressNgEntries } = this.deps;
    const site = this.site;
    const common = { ...this.bootCommon(kernel.label, boots), kernels: [kernel] };
    const s = this.o.stress;
    if (s) {
      if (site) throw new Error(`stress-ng boots run in qemu here, not on ${site.name}`);
      const req: VmMacroRequest = { ...common, stressors: s.plan.stressors, sets: [], instances: '1', seconds: s.seconds, repeats: s.repeats };
      return this.services.runVmMacro(req, s.plan, { store, launcher, probe, abort, cacheDir, ...(stressNgEntries ? { stressNgEntries } : {}) });
    }
    if (!this.o.profile) throw new Error('a kernel lab boots a profile or a stressor');
    const req: VmRequest = { ...common, profiles: [this.o.profile], ops: this.o.ops, rounds: this.o.rounds, warmups: this.o.warmups, cost: this.o.cost };
    return this.services.runVm(req, { store, launcher, probe, abort, costPlugin, cacheDir, ...(site ? { site } : {}) });
  }

  private async boot(commit: Commit, dir: string, boots: number): Promise<BootValue[] | string> {
    const label = commit.hash.slice(0, 12);
    const result = await this.runBoots(resolveKernel(`${label}=${dir}`, this.o.out), boots);
    const site = this.site;
    if (result.state === 'interrupted') throw new UserError(`interrupted while booting ${label}; ${site ? `its LAVA job on ${site.name} was asked to cancel` : 'qemu was stopped'}`, 130);
    const failed = result.steps.find((s) => s.state === 'failed');
    if (failed && site && !this.jobCompleted(failed.runId)) {
      throw new LabStopped(
        `${label} (${commit.subject}): boot failed on ${site.name} (run #${failed.runId}): ${failed.reason}\n` +
          'the bisect stops: LAVA does not tell a kernel that did not come up from a device or lab that failed, so this commit is not skipped; ' +
          'look at the job, then run the bisect again (the commits stored so far are reused)',
      );
    }
    if (failed) return `boot failed (run #${failed.runId}): ${failed.reason}`;
    return result.steps.map((s) => ({ value: this.bootValue(s.runId), runId: s.runId }));
  }

  async measure(commit: Commit, boots: number, history: readonly Commit[]): Promise<LabMeasurement> {
    if (this.deps.openSite && !this.site) this.site = await this.deps.openSite();
    const built = await this.build(commit, history);
    if (built.state === 'failed') return { state: 'skip', reason: built.reason };
    this.deps.onDetail?.(`${commit.hash.slice(0, 12)}: ${built.build === 'reused' ? 'kernel reused' : `kernel ${built.build}`}; booting ${boots}x under -icount${this.o.stress ? ' with stress-ng' : ''}`);
    const values = await this.boot(commit, built.dir, boots);
    if (typeof values === 'string') return { state: 'skip', reason: values };
    return { state: 'measured', boots: values, build: built.build };
  }

  /** Whether the run's last LAVA job ended Complete (the kernel booted and the lab worked; the probe's run failed). */
  private jobCompleted(runId: number): boolean {
    const env = readEnvironment(this.deps.store.getRun(runId));
    const jobs = env.where === 'guest' ? env.lava?.jobs : undefined;
    return jobs?.at(-1)?.health === 'Complete';
  }

  async close(): Promise<void> {
    rmSync(join(this.o.out, 'trees'), { recursive: true, force: true });
    const site = this.site;
    this.site = null;
    await site?.close();
  }
}

/** KernelLabDeps.openSite for `place`: undefined for qemu here, else the opening of its `--target` site (a bisect's boots count under -icount). */
export function siteOpener(place: BootPlace, ctx: Pick<SiteContext, 'probe' | 'cacheDir' | 'pollMs' | 'onEvent'>): (() => Promise<BootSite>) | undefined {
  if (place.kind === 'qemu') return undefined;
  return () => openBootSite(place, { ...ctx, icount: true, labelPrefix: 'bisect-' });
}
