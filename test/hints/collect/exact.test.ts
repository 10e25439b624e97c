/**
 * `hints collect --exact` without a boot: the windows summed per jump, the
 * branches.json document in exactly the format `hintlab hints` reads, the
 * set written whole or not at all, the guest's arguments, the checks of a
 * `--kernel-build` directory (real readelf on small gcc builds), and the
 * flags that conflict with --exact refused (exit 2) before anything builds.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { RECORD_FILE, storeSet, type CoverageRecord } from '../../../src/hints/collect/collect.ts';
import { exactWorkload } from '../../../src/hints/collect/exact.ts';
import { checkKernelBuild, defaultExactBuildDir, exactKernel, trialKernelA } from '../../../src/hints/collect/exact-kernel.ts';
import { gatherInputs, inputKey } from '../../../src/kernel/inputs.ts';
import { addressesToPlace, branchesDocument, branchesText, sumWindows } from '../../../src/hints/collect/exact-set.ts';
import { guestArgs } from '../../../src/hints/collect/guest.ts';
import { profilesWorkload } from '../../../src/hints/collect/workload.ts';
import { parseSystemMap } from '../../../src/vm/cost-functions.ts';
import { runCli, tempDir } from '../../helpers/cli.ts';
import { requireAll, requireTool } from '../../helpers/tools.ts';

const JNE = { addr: 0xffffffff81000105n, target: 0xffffffff81000140n, fall: 0xffffffff81000107n };
const JE = { addr: 0xffffffff81000020n, target: 0xffffffff81000030n, fall: 0xffffffff81000026n };

test('each jump is summed over every window, in address order, and its target and fall-through are placed with it', () => {
  const jumps = sumWindows([
    { branches: [{ ...JNE, taken: 3, fell: 997 }] },
    { branches: [{ ...JNE, taken: 1, fell: 0 }, { ...JE, taken: 0, fell: 50 }] },
  ]);
  assert.deepEqual(jumps, [
    { ...JE, taken: 0, fell: 50 },
    { ...JNE, taken: 4, fell: 997 },
  ]);
  assert.deepEqual(addressesToPlace(jumps), [JE.addr, JE.target, JE.fall, JNE.addr, JNE.target, JNE.fall]);
});

const SYMBOLS = parseSystemMap('ffffffff81000000 T _stext\nffffffff81000100 T __do_sys_sched_setparam\nffffffff81000200 t other\n');
const FRAME = { function: '__do_sys_sched_setparam', file: 'kernel/sched/syscalls.c', line: 1000 };

test('branches.json has the agreed fields in the agreed order, one branch per line, unknown places as empty chains', () => {
  const jumps = sumWindows([{ branches: [{ ...JNE, taken: 1000, fell: 0 }, { ...JE, taken: 2, fell: 3 }] }]);
  const inlined = [{ function: 'get_params', file: 'kernel/sched/syscalls.c', line: 965 }, FRAME];
  const doc = branchesDocument(jumps, 28, { release: '6.12.118', vmlinux: '/k/vmlinux', lineTable: true }, {
    symbols: SYMBOLS,
    chains: new Map([[JNE.addr, [FRAME]], [JNE.target, inlined]]),
    insns: new Map([[JNE.addr, 'jne ffffffff81000140']]),
  });
  const text = branchesText(doc);
  assert.deepEqual(JSON.parse(text), {
    format: 'hintlab-branches',
    version: 1,
    kernel: { release: '6.12.118', vmlinux: '/k/vmlinux', lineTable: true },
    windows: 28,
    branches: [
      { addr: 'ffffffff81000020', function: '_stext', offset: 32, taken: 2, fell: 3, at: [], target: { addr: 'ffffffff81000030', at: [] }, next: { addr: 'ffffffff81000026', at: [] } },
      {
        addr: 'ffffffff81000105', function: '__do_sys_sched_setparam', offset: 5, insn: 'jne ffffffff81000140', taken: 1000, fell: 0,
        at: [FRAME], target: { addr: 'ffffffff81000140', at: inlined }, next: { addr: 'ffffffff81000107', at: [] },
      },
    ],
  });
  const parsed = JSON.parse(text) as { branches: Record<string, unknown>[] } & Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ['format', 'version', 'kernel', 'windows', 'branches']);
  assert.deepEqual(Object.keys(parsed.branches[1]!), ['addr', 'function', 'offset', 'insn', 'taken', 'fell', 'at', 'target', 'next']);
  const lines = text.split('\n');
  assert.equal(lines.filter((l) => l.startsWith('  {"addr":')).length, 2, 'one branch per line');
  assert.equal(text.endsWith('\n'), true);
  assert.deepEqual(JSON.parse(branchesText({ ...doc, branches: [] })).branches, []);
});

function record(name: string): CoverageRecord {
  return {
    format: 'hintlab-coverage', version: 1, name, source: { dir: '/s', version: '6.12.118' }, scope: { kind: 'all' }, counter: 'exact', workload: 'profiles',
    kernel: { release: '6.12.118', buildDir: '/k', configSha256: 'c', compiler: 'gcc' }, accel: 'tcg', gcov: 'not used', gcdaFiles: 0, gcdaBytes: 0, rejoinedLines: 0,
    withoutGcno: [], jsonFiles: ['branches.json'], seconds: { build: 1, buildReused: true, boot: 1, transfer: 0, gcov: 1 }, collectedAt: '2026-12-05T00:00:00.000Z',
  };
}

test('a set is renamed into place whole; a failure while writing leaves the earlier set as it was and no partial directory', () => {
  const dir = tempDir();
  const out = join(dir, 'profiles-exact');
  storeSet(out, (partial) => {
    writeFileSync(join(partial, 'branches.json'), 'first\n');
    return record('first');
  });
  assert.equal(readFileSync(join(out, 'branches.json'), 'utf8'), 'first\n');
  assert.equal((JSON.parse(readFileSync(join(out, RECORD_FILE), 'utf8')) as CoverageRecord).counter, 'exact');
  assert.throws(() =>
    storeSet(out, (partial) => {
      writeFileSync(join(partial, 'branches.json'), 'second, half written');
      throw new Error('addr2line died');
    }), /addr2line died/);
  assert.equal(readFileSync(join(out, 'branches.json'), 'utf8'), 'first\n');
  assert.deepEqual(readdirSync(dir), ['profiles-exact']);
});

test('the exact guest runs the profiles on one CPU with no dump, and a program or a stress-ng plan inside windows of their own', () => {
  const w = exactWorkload(profilesWorkload());
  assert.equal(w.kind === 'profiles' && w.profiles.some((p) => p.name === 'sched_setaffinity-queued'), false, 'a two-CPU profile cannot run under icount');
  const args = guestArgs(w, 'exact');
  assert.deepEqual(args.slice(0, 6), ['--cpu', '0', '--warmups', '0', '--rounds', '2']);
  assert.equal(args.some((a) => a.startsWith('--dump') || a === '--other-cpu' || a === '--window-exec'), false);
  assert.deepEqual(guestArgs({ kind: 'program', path: '/p', data: Buffer.alloc(0) }, 'exact'), ['--exec', '/workload', '--window-exec']);
  assert.deepEqual(guestArgs({ kind: 'stress-ng', stressors: ['yield'], seconds: 1, version: '0.15.06', files: [] }, 'exact'), ['--run-plan', '/hintlab.plan', '--window-exec']);
  // the other counters are as they were
  assert.deepEqual(guestArgs({ kind: 'program', path: '/p', data: Buffer.alloc(0) }, 'gcov'), ['--exec', '/workload', '--reset-gcov', '--dump-gcov', '/sys/kernel/debug/gcov']);
});

/** A finished-looking kernel build: manifest, image, and a vmlinux compiled by gcc (with -g: a line table). */
function fakeBuild(version: string, debug: boolean | null): string {
  const dir = tempDir('hintlab-kbuild-');
  writeFileSync(join(dir, 'hintlab-kernel.json'), JSON.stringify({ schema: 1, label: 'A', image: 'bzImage', source: { dir: '/src', version, fingerprint: 'f' }, patches: [] }));
  writeFileSync(join(dir, 'bzImage'), 'image');
  if (debug !== null) {
    const c = join(dir, 'v.c');
    writeFileSync(c, 'int main(void) { return 0; }\n');
    execFileSync('gcc', [...(debug ? ['-g'] : []), '-o', join(dir, 'vmlinux'), c]);
  }
  return dir;
}

const UNIT_SKIP = requireAll(requireTool('gcc', 'gcc'), requireTool('readelf', 'binutils'));

test('a --kernel-build is refused without a manifest, from another tree version, without a vmlinux or without a line table, each with the fix', { skip: UNIT_SKIP }, () => {
  const refused = (dir: string, re: RegExp) => assert.throws(() => checkKernelBuild(dir, '6.12.118', '/src'), (e: Error & { exitCode?: number }) => re.test(e.message));
  refused(tempDir(), /is not a finished kernel build \(no hintlab-kernel\.json\); make one with 'hintlab kernel build --src \/src --out /);
  refused(fakeBuild('6.1.0', true), /was built from Linux 6\.1\.0 \(\/src\), but --src is Linux 6\.12\.118/);
  refused(fakeBuild('6.12.118', null), /no vmlinux beside .*rebuild it with 'hintlab kernel build/);
  refused(fakeBuild('6.12.118', false), /has no DWARF line table; .*DEBUG_INFO_DWARF5/);
  const ok = checkKernelBuild(fakeBuild('6.12.118', true), '6.12.118', '/src');
  assert.equal(ok.state, 'given');
  assert.match(ok.elf.path, /vmlinux$/);
  assert.throws(() => checkKernelBuild(ok.dir, '6.12.118', '/src', ['SYSVIPC']), /lacks what the workload needs \(CONFIG_SYSVIPC not =y/);
  // a .config that has them is accepted; one it lacks is named alone
  writeFileSync(join(ok.dir, 'config'), 'CONFIG_SYSVIPC=y\n# CONFIG_NET is not set\nCONFIG_TMPFS=y\n');
  assert.equal(checkKernelBuild(ok.dir, '6.12.118', '/src', ['SYSVIPC', 'TMPFS']).state, 'given');
  assert.throws(() => checkKernelBuild(ok.dir, '6.12.118', '/src', ['SYSVIPC', 'NET', 'TMPFS']), /lacks what the workload needs \(CONFIG_NET not =y/);
});

function fakeTree(): string {
  const src = join(tempDir('hintlab-fake-linux-'), 'linux');
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\n');
  return src;
}

test('--exact with --branch-profiler or --profile-dirs, and --kernel-build without --exact, are refused before anything builds', async () => {
  const env = { ...process.env, XDG_CACHE_HOME: tempDir(), XDG_DATA_HOME: tempDir() };
  const cases: [string[], RegExp][] = [
    [['--exact', '--branch-profiler'], /--exact counts the jumps of the kernel as built; --branch-profiler builds an instrumented kernel instead/],
    [['--exact', '--profile-dirs', 'kernel/sched'], /--exact counts every jump of the kernel as built: drop --profile-dirs/],
    [['--kernel-build', '/k'], /--kernel-build is the kernel --exact boots; add --exact/],
    [['--exact', '--kernel-build', '/k', '--build-dir', '/b'], /--kernel-build boots a finished build; --build-dir says where to build one/],
    [['--exact', '--kernel-build', tempDir()], /--kernel-build \S+ is not a finished kernel build/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(['hints', 'collect', '--src', fakeTree(), ...args], { env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
  assert.deepEqual(readdirSync(env.XDG_CACHE_HOME), [], 'nothing was built');
  assert.equal(existsSync(join(env.XDG_DATA_HOME, 'hintlab')), false, 'no set was written');
});

test("without --kernel-build the trial's kernel A of the same tree is booted when its inputs are a plain build of the tree as it is now", { skip: UNIT_SKIP }, async () => {
  const src = realpathSync(fakeTree());
  const env = { ...process.env, XDG_CACHE_HOME: tempDir() };
  const a = trialKernelA(src, env);
  mkdirSync(a, { recursive: true });
  const built = fakeBuild('6.12.118', true);
  for (const f of ['bzImage', 'vmlinux']) writeFileSync(join(a, f), readFileSync(join(built, f)));
  const shape = { src, patches: [], fragment: null, base: 'tinyconfig' as const, opt: 'O2' as const, out: a, label: 'A', jobs: 1, fragments: ['behave' as const] };
  const key = inputKey(await gatherInputs(shape));
  writeFileSync(join(a, 'hintlab-kernel.json'), JSON.stringify({ schema: 1, label: 'A', image: 'bzImage', source: { dir: src, version: '6.12.118', fingerprint: 'f' }, patches: [], fragments: ['behave'], fragmentFile: null, inputKey: key }));
  const k = await exactKernel({ src, buildDir: join(env.XDG_CACHE_HOME, 'own'), jobs: 1, workloadConfig: [], env }, { abort: new AbortController().signal });
  assert.deepEqual([k.dir, k.state], [a, 'reused']);
  assert.equal(existsSync(join(env.XDG_CACHE_HOME, 'own')), false, 'nothing was built');
});

test("a stress-ng workload's kernel options get a build directory of their own, so a profiles build of the same tree is kept", () => {
  const env = { HOME: '/home/u' };
  const plain = defaultExactBuildDir('/src/linux-6.12', env);
  const sched = defaultExactBuildDir('/src/linux-6.12', env, ['SYSVIPC', 'POSIX_MQUEUE']);
  assert.match(plain, /^\/home\/u\/\.cache\/hintlab\/exact-kernels\/linux-6\.12-[0-9a-f]{12}$/);
  assert.equal(sched.startsWith(`${plain}-`), true);
  assert.notEqual(sched, plain);
  assert.equal(defaultExactBuildDir('/src/linux-6.12', env, ['POSIX_MQUEUE', 'SYSVIPC']), sched);
});
