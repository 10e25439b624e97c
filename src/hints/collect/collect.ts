/**
 * `hintlab hints collect`: build a coverage kernel, boot it, run the
 * workload, bring every .gcda back, run gcov, and store the JSON set.
 *
 * Layout of the output directory: the tree's directories with
 * `<stem>.gcov.json.gz` files (fs/select.gcov.json.gz) and
 * `hintlab-coverage.json`, the record of how they were taken. The set is
 * written beside the output and renamed into place at the end, so a failed
 * run never leaves half a set, and a previous set of the same name is only
 * replaced by a complete one.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from '../../errors.ts';
import { checkBuildPlaces, type KernelBuildDeps } from '../../kernel/build.ts';
import { isExistingDirectory, refuseNested } from '../../kernel/owned-dir.ts';
import { kernelVersion } from '../../kernel/source.ts';
import { writeAtomically } from '../../write-file.ts';
import type { AccelChoice, AccelRequest } from '../../vm/accel.ts';
import type { VmLauncher } from '../../launch/qemu.ts';
import { runCoverageGuest, type GuestWorkload } from './guest.ts';
import { buildCoverageKernel, coverageBuildDir, objectDir, profilePatch, type CounterKind, type ProfileScope } from './kernel.ts';
import type { ReceivedFile } from './transfer.ts';
import { gcovVersion, placeGcda, runGcov } from './run-gcov.ts';
import { formatKiB } from '../../format/durations.ts';

export const RECORD_FILE = 'hintlab-coverage.json';

export interface CollectRequest {
  src: string;
  scope: ProfileScope;
  workload: GuestWorkload;
  workloadLabel: string;
  name: string;
  out: string;
  buildDir: string;
  accel: AccelRequest;
  timeoutSeconds: number;
  jobs: number;
  /** gcov (default) or the kernel's branch profiler (writes `branch_all` instead of gcov JSON). */
  counter?: CounterKind;
  /** Kernel options the workload needs (a stress-ng workload: `STRESS_NG_CONFIG`). */
  workloadConfig?: readonly string[];
}

export interface CollectDeps extends KernelBuildDeps {
  launcher: VmLauncher;
  probeBinary: string;
  onAccel?: (choice: AccelChoice) => void;
  onTransfer?: (files: number) => void;
}

/** What `hintlab-coverage.json` holds (format history: version 1, first version). */
export interface CoverageRecord {
  format: 'hintlab-coverage';
  version: 1;
  name: string;
  source: { dir: string; version: string };
  scope: ProfileScope;
  /** Absent in sets written before the branch profiler existed: gcov. */
  counter?: CounterKind;
  workload: string;
  kernel: { release: string; buildDir: string; configSha256: string; compiler: string };
  accel: string;
  gcov: string;
  gcdaFiles: number;
  gcdaBytes: number;
  /** Lines the serial console broke in two, joined again (each verified by its CRC-32). */
  rejoinedLines: number;
  /** .gcda files whose object has no .gcno in the build (not turned into JSON). */
  withoutGcno: string[];
  jsonFiles: string[];
  /** boot: qemu start to exit (workload and transfer included); transfer: the .gcda dump alone; gcov: from the counts to the set (an exact set: addr2line and objdump). */
  seconds: { build: number; buildReused: boolean; boot: number; transfer: number; gcov: number };
  /** Only in an exact set (`counter: "exact"`). */
  exact?: ExactFacts;
  collectedAt: string;
}

/** How an exact set was taken: the windows summed, the plugin, and where the time after the boot went. */
export interface ExactFacts {
  windows: number;
  branches: number;
  /** null when every jump has its source lines; else why none has. */
  noLines: string | null;
  /** null when every jump has objdump's text; else why none has. */
  noInsns: string | null;
  /** given: --kernel-build; reused: an earlier build with the same inputs; built: by this collect. */
  kernelFrom: 'given' | 'reused' | 'built';
  vmlinux: string;
  plugin: string;
  qemu: string;
  seconds: { addr2line: number; objdump: number };
}

function dataHome(env: NodeJS.ProcessEnv): string {
  return env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
}

/** `$XDG_DATA_HOME/hintlab/coverage/<name>`. */
export function defaultOutDir(name: string, env: NodeJS.ProcessEnv): string {
  return join(dataHome(env), 'hintlab', 'coverage', name);
}

/**
 * One build directory per tree, profiled part and the options the workload
 * needs, under the cache, so a second workload of the same kind reuses the kernel.
 */
export function defaultBuildDir(src: string, scope: ProfileScope, env: NodeJS.ProcessEnv, counter: CounterKind = 'gcov', workloadConfig: readonly string[] = []): string {
  const cache = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  // The branch profiler kernel counts the whole kernel: one build per tree.
  const base = counter === 'gcov' ? { src, scope } : { src, counter };
  // without extra options the key stays what it was, so earlier builds are found again
  const what = workloadConfig.length ? { ...base, workloadConfig } : base;
  const key = createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 12);
  return join(cache, 'hintlab', 'coverage-kernels', key);
}

/** Refuse an output that is inside the tree, or an existing directory hintlab did not write. */
export function checkOut(out: string, src: string): void {
  refuseNested({ flag: '--src', path: src }, { flag: '--out', path: out }, 'put the coverage set outside the kernel tree');
  if (!isExistingDirectory('--out', out, 'give a new directory (hintlab creates it) or an earlier coverage set')) return;
  const entries = readdirSync(out);
  if (entries.length && !entries.includes(RECORD_FILE)) {
    throw new UserError(`--out ${out} exists and holds files hintlab did not write (no ${RECORD_FILE}); choose an empty or new directory`, 2);
  }
}

/** Seconds since `fromMs`, to a tenth. */
export function seconds(fromMs: number): number {
  return Math.round((Date.now() - fromMs) / 100) / 10;
}

/**
 * The tree's real path. A symlink given as --src must never reach the
 * build: `cp -al` copies a symlink as a symlink, and the build would then
 * patch the user's own tree through it.
 */
export function realTree(src: string): string {
  try {
    return realpathSync(src);
  } catch (err) {
    throw new UserError(`--src ${src}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; point --src at the top of a Linux source tree`, 2);
  }
}

/**
 * Everything that can be refused before a build starts: a tree that is not
 * a kernel tree, directories it does not have, an output that is not ours.
 * Returns the tree's kernel version.
 */
export function checkCollectInputs(req: Pick<CollectRequest, 'src' | 'out' | 'scope' | 'buildDir'>): string {
  const src = realTree(resolve(req.src));
  const version = kernelVersion(src);
  if (req.scope.kind === 'dirs') profilePatch(src, req.scope.dirs);
  checkOut(resolve(req.out), src);
  checkBuildPlaces(src, coverageBuildDir(resolve(req.buildDir)));
  return version;
}

/** The whole pipeline; throws UserError with the reason (build errors, console tail, transfer gap) on failure. */
export async function collectCoverage(req: CollectRequest, deps: CollectDeps): Promise<CoverageRecord> {
  const src = realTree(resolve(req.src));
  const out = resolve(req.out);
  const version = checkCollectInputs(req);
  const counter = req.counter ?? 'gcov';
  const gcov = counter === 'gcov' ? gcovVersion() : 'not used';

  let started = Date.now();
  const build = await buildCoverageKernel({ src, scope: req.scope, buildDir: req.buildDir, jobs: req.jobs, counter, workloadConfig: req.workloadConfig }, deps);
  const buildSeconds = build.state === 'reused' ? 0 : seconds(started);

  started = Date.now();
  deps.onPhase?.(`booting the ${counter === 'gcov' ? 'coverage' : 'branch profiler'} kernel (workload: ${req.workloadLabel})`);
  const guest = await runCoverageGuest(
    { kernelImage: join(build.dir, build.manifest.image), probeBinary: deps.probeBinary, workload: req.workload, accel: req.accel, timeoutSeconds: req.timeoutSeconds, counter },
    { launcher: deps.launcher, abort: deps.abort, onAccel: deps.onAccel, onTransfer: deps.onTransfer },
  );
  if (guest.state === 'failed') throw new UserError(`coverage run failed: ${guest.reason}`);
  if (counter === 'gcov' && guest.files.length === 0) throw new UserError(`the guest found no .gcda file under /sys/kernel/debug/gcov: no object was built with gcov counters (see ${build.dir}/config)`);

  started = Date.now();
  const scratch = mkdtempSync(join(tmpdir(), 'hintlab-gcov-'));
  try {
    return storeSet(out, (partial) => {
      let stored: { jsonFiles: string[]; noGcno: string[] };
      if (counter === 'gcov') {
        deps.onPhase?.(`running gcov on ${guest.files.length} .gcda files (${formatKiB(guest.bytes)})`);
        const { placed, noGcno } = placeGcda(guest.files, objectDir(build.dir), join(scratch, 'obj'));
        stored = { jsonFiles: runGcov(placed, join(scratch, 'obj'), join(scratch, 'json'), partial), noGcno };
      } else {
        stored = { jsonFiles: [storeBranchAll(guest.files, partial, build.dir)], noGcno: [] };
      }
      return {
        format: 'hintlab-coverage',
        version: 1,
        name: req.name,
        source: { dir: src, version },
        scope: req.scope,
        counter,
        workload: req.workloadLabel,
        kernel: { release: guest.kernel, buildDir: build.dir, configSha256: build.manifest.configSha256, compiler: build.manifest.compiler },
        accel: `${guest.accel.accel} (${guest.accel.why})`,
        gcov,
        gcdaFiles: guest.files.length,
        gcdaBytes: guest.bytes,
        rejoinedLines: guest.rejoinedLines,
        withoutGcno: stored.noGcno,
        jsonFiles: stored.jsonFiles,
        seconds: { build: build.state === 'reused' ? build.manifest.buildSeconds : buildSeconds, buildReused: build.state === 'reused', boot: guest.bootSeconds, transfer: guest.transferSeconds, gcov: seconds(started) },
        collectedAt: new Date().toISOString(),
      };
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Write a set beside `out` and rename it into place: `fill` writes the
 * set's files into the partial directory and returns its record, written
 * last. A failure leaves no half set, and an earlier set of the same name
 * is only replaced by a complete one.
 */
export function storeSet(out: string, fill: (partial: string) => CoverageRecord): CoverageRecord {
  mkdirSync(dirname(out), { recursive: true });
  // a random name made exclusively (mode 0700): nothing planted beside the output is followed
  const partial = mkdtempSync(join(dirname(out), `.${basename(out)}.partial-`));
  try {
    const record = fill(partial);
    writeAtomically(join(partial, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- reading the umask takes the no-argument call; no worker thread creates files meanwhile
    chmodSync(partial, 0o777 & ~process.umask());
    rmSync(out, { recursive: true, force: true });
    renameSync(partial, out);
    return record;
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/**
 * Keep the guest's trace_stat/branch_all as `branch_all` in the set.
 * branch_annotated is left behind: with PROFILE_ALL_BRANCHES its rows are
 * the annotated subset of branch_all, and `hintlab hints` would count them twice.
 */
export function storeBranchAll(files: ReceivedFile[], dir: string, buildDir: string): string {
  const all = files.find((f) => f.guestPath.endsWith('/branch_all'));
  if (!all) {
    const got = files.map((f) => f.guestPath).join(', ') || 'nothing';
    throw new UserError(`the guest sent no trace_stat/branch_all (got ${got}): is CONFIG_PROFILE_ALL_BRANCHES set in ${buildDir}/config?`);
  }
  writeAtomically(join(dir, 'branch_all'), all.data);
  return 'branch_all';
}
