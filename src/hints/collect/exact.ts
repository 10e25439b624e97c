/**
 * `hintlab hints collect --exact`: boot the kernel as built (no GCOV, no
 * branch profiler) with hintlab's cost plugin, under icount and the fixed
 * guest clock, run the workload, and store every conditional jump the
 * workload drove with its exact taken and fall-through totals.
 *
 * What is counted: the probe's windows. `profiles` opens one per round, as
 * `vm --cost` measures them; a program and each stress-ng invocation run
 * inside one window from fork to wait (`--window-exec`). Every window's
 * jumps are summed; the jump, its target and its fall-through are placed by
 * one batched `addr2line -a -f -i` run, the jump's text by one objdump run.
 *
 * The set: `branches.json` (exact-set.ts) and `hintlab-coverage.json` with
 * `counter: "exact"`, written like every set (collect.ts, storeSet).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PROFILES } from '../../bench/profiles.ts';
import { UserError } from '../../errors.ts';
import type { KernelBuildDeps } from '../../kernel/build.ts';
import { kernelVersion } from '../../kernel/source.ts';
import type { VmLauncher } from '../../launch/qemu.ts';
import { guestTarget } from '../../targets/guest.ts';
import { readCostOutput, type CostOutput } from '../../vm/cost.ts';
import { type CostPlugin, DEFAULT_COST_MODEL, headerMismatch, pluginArg } from '../../vm/cost-plugin.ts';
import { systemMapFor } from '../../vm/cost-functions.ts';
import { inlineChains } from '../../vm/dwarf-lines.ts';
import { instructionTexts } from '../../vm/jump-insns.ts';
import { writeAtomically } from '../../write-file.ts';
import { checkOut, realTree, seconds, storeSet, type CoverageRecord } from './collect.ts';
import { checkKernelBuild, exactKernel, type ExactKernel } from './exact-kernel.ts';
import { addressesToPlace, BRANCHES_FILE, branchesDocument, branchesText, sumWindows, type BranchesDocument } from './exact-set.ts';
import { coverageJob, type GuestWorkload } from './guest.ts';
import { CoverageSession } from './session.ts';

/** The guest of an exact collect: one CPU (SMP bring-up hangs under icount, src/vm/runner.ts). */
const MEMORY_MIB = 512;

/** The kernel to boot: a finished build, or one built (or reused) into `buildDir`. */
export type ExactKernelChoice = { kind: 'given'; dir: string } | { kind: 'build'; buildDir: string };

export interface ExactCollectRequest {
  src: string;
  kernel: ExactKernelChoice;
  workload: GuestWorkload;
  workloadLabel: string;
  name: string;
  out: string;
  timeoutSeconds: number;
  jobs: number;
  /** Kernel options the workload needs (a stress-ng workload's). */
  workloadConfig: readonly string[];
  env: NodeJS.ProcessEnv;
}

export interface ExactCollectDeps extends KernelBuildDeps {
  launcher: VmLauncher;
  probeBinary: string;
  plugin: CostPlugin;
  /** Where initramfs images are kept (default: next to the probe cache). */
  cacheDir?: string;
}

/**
 * The profiles an icount guest runs: those that need one CPU (every
 * profile `vm --cost` runs); the others need a second CPU.
 */
export function exactWorkload(w: GuestWorkload): GuestWorkload {
  if (w.kind !== 'profiles') return w;
  const oneCpu = new Set(PROFILES.filter((p) => p.cpus === 1).map((p) => p.name));
  return { ...w, profiles: w.profiles.filter((p) => oneCpu.has(p.name)) };
}

/** Everything refused before a build or a boot: the tree, the output, a --kernel-build. Returns the tree's version. */
export function checkExactInputs(req: Pick<ExactCollectRequest, 'src' | 'out' | 'kernel' | 'workloadConfig'>): string {
  const src = realTree(resolve(req.src));
  const version = kernelVersion(src);
  checkOut(resolve(req.out), src);
  if (req.kernel.kind === 'given') checkKernelBuild(resolve(req.kernel.dir), version, src, req.workloadConfig);
  return version;
}

interface ExactBoot {
  release: string;
  bootSeconds: number;
  rejoinedLines: number;
  output: CostOutput;
}

/** How many windows the workload must have closed; null when a program may open its own. */
function expectedWindows(w: GuestWorkload, rounds: number): number | null {
  if (w.kind === 'profiles') return rounds;
  return w.kind === 'stress-ng' ? w.stressors.length : null;
}

/** Boot once with the plugin and read its windows; UserError with the console's tail on failure. */
async function bootExact(req: ExactCollectRequest, kernel: ExactKernel, deps: ExactCollectDeps, scratch: string): Promise<ExactBoot> {
  const file = join(scratch, 'cost.txt');
  const plugin = pluginArg(deps.plugin, file, DEFAULT_COST_MODEL);
  const target = guestTarget({ label: 'exact', image: kernel.image, accel: 'tcg', icount: true, cpus: 1, memoryMiB: MEMORY_MIB, plugin }, { probe: { path: deps.probeBinary }, launcher: deps.launcher, cacheDir: deps.cacheDir });
  const session = new CoverageSession(undefined, req.workload.kind === 'stress-ng' ? req.workload.stressors : undefined, false);
  const exit = await target.run(coverageJob(req.workload, 'exact', req.timeoutSeconds), (l) => session.feed(l), deps.abort);
  const end = exit.end;
  const problem =
    end.kind === 'aborted' ? 'interrupted (Ctrl-C): qemu was killed' : end.kind === 'timeout' ? `the workload did not finish within ${end.seconds} s (--timeout); qemu was killed` : session.problem();
  if (problem || !session.hello) throw new UserError(`exact run failed: ${exit.describe(problem ?? 'the probe never started in the guest (no hello line)')}`);
  let output: CostOutput;
  try {
    output = readCostOutput(file);
  } catch (err) {
    throw new UserError(`exact run failed: the cost plugin's output cannot be read (${(err as Error).message})`);
  }
  const mismatch = headerMismatch(output.header, DEFAULT_COST_MODEL);
  if (mismatch) throw new UserError(`exact run failed: ${file}:1: ${mismatch}`);
  const want = expectedWindows(req.workload, session.rounds);
  if (want !== null ? output.windows.length !== want : output.windows.length === 0) {
    throw new UserError(`exact run failed: the cost plugin closed ${output.windows.length} window(s), where the workload ran ${want ?? 'at least 1'}`);
  }
  return { release: session.hello.kernel, bootSeconds: exit.elapsedMs / 1000, rejoinedLines: session.rejoined, output };
}

/** The set's document: the windows summed, each jump placed (one addr2line run, one objdump run). */
async function placeJumps(boot: ExactBoot, kernel: ExactKernel): Promise<{ doc: BranchesDocument; noLines: string | null; noInsns: string | null; seconds: { addr2line: number; objdump: number } }> {
  const map = systemMapFor(kernel.image);
  if (!map.known) throw new UserError(`${kernel.dir}: ${map.reason}; --exact names each jump's function from it`);
  const jumps = sumWindows(boot.output.windows);
  let started = Date.now();
  const chains = inlineChains(kernel.elf, addressesToPlace(jumps));
  const addr2line = seconds(started);
  started = Date.now();
  const insns = await instructionTexts(kernel.elf.path, new Set(jumps.map((j) => j.addr)));
  const objdump = seconds(started);
  const doc = branchesDocument(jumps, boot.output.windows.length, { release: boot.release, vmlinux: kernel.elf.path, lineTable: chains.known }, {
    symbols: map.value.symbols,
    chains: chains.known ? chains.value : new Map(),
    insns: insns.known ? insns.value : new Map(),
  });
  return { doc, noLines: chains.known ? null : chains.reason, noInsns: insns.known ? null : insns.reason, seconds: { addr2line, objdump } };
}

type Placed = Awaited<ReturnType<typeof placeJumps>>;

/** The set's record: how the counts were taken and what the time went to. */
function exactRecord(req: ExactCollectRequest, src: { dir: string; version: string }, kernel: ExactKernel, boot: ExactBoot, placed: Placed, seconds: { build: number; placing: number }, plugin: CostPlugin): CoverageRecord {
  return {
    format: 'hintlab-coverage',
    version: 1,
    name: req.name,
    source: src,
    scope: { kind: 'all' },
    counter: 'exact',
    workload: req.workloadLabel,
    kernel: { release: boot.release, buildDir: kernel.dir, configSha256: kernel.manifest.configSha256, compiler: kernel.manifest.compiler },
    accel: 'tcg (the cost plugin needs TCG; icount and the fixed guest clock make the counts repeat)',
    gcov: 'not used',
    gcdaFiles: 0,
    gcdaBytes: 0,
    rejoinedLines: boot.rejoinedLines,
    withoutGcno: [],
    jsonFiles: [BRANCHES_FILE],
    seconds: { build: seconds.build, buildReused: kernel.state !== 'built', boot: boot.bootSeconds, transfer: 0, gcov: seconds.placing },
    exact: {
      windows: placed.doc.windows,
      branches: placed.doc.branches.length,
      noLines: placed.noLines,
      noInsns: placed.noInsns,
      kernelFrom: kernel.state,
      vmlinux: kernel.elf.path,
      plugin: plugin.buildId,
      qemu: plugin.qemuVersion,
      seconds: placed.seconds,
    },
    collectedAt: new Date().toISOString(),
  };
}

/** The whole exact collect; throws UserError with the reason on failure. */
export async function collectExact(req: ExactCollectRequest, deps: ExactCollectDeps): Promise<CoverageRecord> {
  const src = realTree(resolve(req.src));
  const out = resolve(req.out);
  const version = checkExactInputs(req);
  let started = Date.now();
  const kernel =
    req.kernel.kind === 'given'
      ? checkKernelBuild(resolve(req.kernel.dir), version, src, req.workloadConfig)
      : await exactKernel({ src, buildDir: resolve(req.kernel.buildDir), jobs: req.jobs, workloadConfig: req.workloadConfig, env: req.env }, deps);
  const build = kernel.state === 'built' ? seconds(started) : kernel.manifest.buildSeconds;
  deps.onPhase?.(`booting ${kernel.dir} as built, with the cost plugin under TCG and icount (workload: ${req.workloadLabel})`);
  const scratch = mkdtempSync(join(tmpdir(), 'hintlab-exact-'));
  try {
    const boot = await bootExact(req, kernel, deps, scratch);
    started = Date.now();
    deps.onPhase?.(`placing the jumps of ${boot.output.windows.length} window(s) with addr2line and objdump (${kernel.elf.path})`);
    const placed = await placeJumps(boot, kernel);
    return storeSet(out, (partial) => {
      writeAtomically(join(partial, BRANCHES_FILE), branchesText(placed.doc));
      return exactRecord(req, { dir: src, version }, kernel, boot, placed, { build, placing: seconds(started) }, deps.plugin);
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
