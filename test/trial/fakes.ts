/**
 * What the trial tests run instead of a kernel build and qemu, behind the
 * trial's own interfaces (TrialServices.buildKernel, VmLauncher):
 *
 * - `miniBuild`: a build of a small C tree in the layout of a real one
 *   (work/src with the patches applied by the real applyPatch, the objects
 *   in work/src/hintlab-obj compiled by the real gcc -O2, each with a
 *   kbuild-style .cmd file of its real dependencies from gcc -M, a
 *   manifest written last, reused when its inputs are unchanged);
 * - `scriptedGuest`: a qemu launcher that answers a behaviour boot with a
 *   trace and a probe boot with rounds of instruction counts, both set by
 *   the kernel image booted.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import { UserError } from '../../src/errors.ts';
import type { KernelBuildResult } from '../../src/kernel/build.ts';
import type { KernelBuildRequest } from '../../src/kernel/inputs.ts';
import { existingLayout } from '../../src/kernel/layout.ts';
import { IMAGE_FILE, MANIFEST_FILE, readManifest, type KernelManifest } from '../../src/kernel/manifest.ts';
import { applyPatch, linkCopy, readPatch, treeFingerprint } from '../../src/kernel/source.ts';
import { standardFields, stressNgYamlText } from '../../src/macro/fake.ts';
import { crc32 } from 'node:zlib';
import { sha256 } from '../../src/trial/request.ts';
import type { BootRequest, BootResult, VmLauncher } from '../../src/launch/qemu.ts';

/** The small tree: kernel/sys.o #includes kernel/sys_impl.c (as 6.12's build_policy.o includes syscalls.c); mm/other.o includes a header. */
export function miniTree(root: string): string {
  const src = join(root, 'linux');
  mkdirSync(join(src, 'kernel'), { recursive: true });
  mkdirSync(join(src, 'mm'), { recursive: true });
  mkdirSync(join(src, 'include'), { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 99\nEXTRAVERSION =\n');
  writeFileSync(join(src, 'include/hl.h'), '#define HL_LIMIT 100\n');
  writeFileSync(join(src, 'kernel/sys.c'), '#include "sys_impl.c"\n');
  writeFileSync(
    join(src, 'kernel/sys_impl.c'),
    [
      'extern int lookup(int);',
      'int getparam(int pid, int *param)',
      '{',
      '\tif (!param || pid < 0)',
      '\t\treturn -22;',
      '\t*param = lookup(pid);',
      '\treturn 0;',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(join(src, 'mm/other.c'), '#include "../include/hl.h"\nint other(int x) { return x < HL_LIMIT ? x : 0; }\n');
  return src;
}

/**
 * kernel/sys_impl.c with getparam and setparam (and `third` when asked)
 * far apart, filler lines between them, so that a change to each function
 * is a hunk of its own.
 */
export function spreadImpl(withThird: boolean): string {
  const filler = (name: string): string[] => Array.from({ length: 8 }, (_, i) => `\t${name}${i} += ${i};`);
  const globals = ['a', 'b', ...(withThird ? ['c'] : [])].flatMap((x) => Array.from({ length: 8 }, (_, i) => `${x}${i}`));
  return [
    'extern int lookup(int);',
    `int ${globals.join(', ')};`,
    'int getparam(int pid, int *param)',
    '{',
    '\tif (!param || pid < 0)',
    '\t\treturn -22;',
    ...filler('a'),
    '\t*param = lookup(pid);',
    '\treturn 0;',
    '}',
    '',
    'int setparam(int pid, int x)',
    '{',
    ...filler('b'),
    '\treturn lookup(pid) + x;',
    '}',
    '',
    ...(withThird ? ['int third(int y)', '{', ...filler('c'), '\treturn y;', '}', ''] : []),
  ].join('\n');
}

/** A unified diff of one file of the mini tree, made with diff -u. */
/** A probe build the scripted guest never runs: a file in `dir` with a fixed build id. */
export function unusedProbe(dir: string): ProbeBuild {
  const path = join(dir, 'probe');
  writeFileSync(path, 'the scripted guest never runs it');
  return { path, static: true, buildId: 'probe-test', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-static'] };
}

export function miniPatch(src: string, dir: string, name: string, file: string, from: string, to: string): string {
  const text = readFileSync(join(src, file), 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  const work = join(dir, `${name}.d`);
  mkdirSync(join(work, 'a', dirname(file)), { recursive: true });
  mkdirSync(join(work, 'b', dirname(file)), { recursive: true });
  writeFileSync(join(work, 'a', file), text);
  writeFileSync(join(work, 'b', file), text.replace(from, to));
  const diff = spawnSync('diff', ['-u', `a/${file}`, `b/${file}`], { cwd: work, encoding: 'utf8' });
  const path = join(dir, name);
  writeFileSync(path, diff.stdout.replace(/^(---|\+\+\+) (\S+)\t.*$/gm, '$1 $2'));
  return path;
}

function cFiles(tree: string, dir = tree): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'hintlab-obj') return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? cFiles(tree, path) : e.name.endsWith('.c') && !(e.name.endsWith('_impl.c')) ? [relative(tree, path)] : [];
  });
}

/** Compile one file as kbuild would and write its .cmd file (paths relative to the object directory, ../ being the tree). */
function compile(tree: string, obj: string, file: string): void {
  const object = file.replace(/\.c$/, '.o');
  mkdirSync(dirname(join(obj, object)), { recursive: true });
  const cc = spawnSync('gcc', ['-O2', '-c', '-o', join(obj, object), `../${file}`], { cwd: obj, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (cc.status !== 0) throw new UserError(`the kernel build failed (make exit 2):\n${cc.stderr.split('\n').filter((l) => /error/.test(l)).map((l) => `  ${l}`).join('\n')}`);
  const deps = execFileSync('gcc', ['-M', `../${file}`], { cwd: obj, encoding: 'utf8' })
    .replace(/\\\n/g, ' ')
    .split(/\s+/)
    .slice(2)
    .filter((d) => d.startsWith('../'));
  const cmd = [`savedcmd_${object} := gcc -O2 -c -o ${object} ../${file}`, '', `source_${object} := ../${file}`, '', `deps_${object} := \\`, ...deps.map((d) => `  ${d} \\`), '', `${object}: $(deps_${object})`, ''];
  writeFileSync(join(obj, dirname(object), `.${object.split('/').pop()}.cmd`), cmd.join('\n'));
}

/** The trial's buildKernel, on the mini tree; `log` collects the labels it built (not reused). */
export function miniBuild(log: string[] = []): (req: KernelBuildRequest) => Promise<KernelBuildResult> {
  // a build error is a rejection, as the real build's is
  return (req) => new Promise((done) => {
    const patches = req.patches.map(readPatch);
    const inputKey = sha256(JSON.stringify({ tree: treeFingerprint(req.src), patches: patches.map((p) => p.sha256), fragments: req.fragments ?? [], opt: req.opt }));
    const previous = existsSync(join(req.out, MANIFEST_FILE)) ? readManifest(req.out) : null;
    if (previous?.inputKey === inputKey) {
      done({ state: 'reused', dir: req.out, manifest: previous });
      return;
    }
    const layout = existingLayout(req.out);
    mkdirSync(layout.work, { recursive: true });
    linkCopy(req.src, layout.tree, patches.flatMap((p) => p.files));
    const applied = patches.map((p) => applyPatch(layout.tree, p));
    for (const f of cFiles(layout.tree)) compile(layout.tree, layout.obj, f);
    // the image names what went into it: its key, and the lines its patches add (a scripted guest may answer by them)
    writeFileSync(join(req.out, IMAGE_FILE), `IMAGE ${inputKey}\n${patches.map((p) => p.text.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).join('\n')).join('\n')}\n`);
    writeFileSync(join(req.out, 'config'), 'CONFIG_64BIT=y\n');
    const manifest: KernelManifest = {
      schema: 1, label: req.label, image: IMAGE_FILE,
      source: { dir: req.src, version: '6.12.99', fingerprint: treeFingerprint(req.src) },
      patches: patches.map((p, i) => ({ path: p.path, sha256: p.sha256, files: p.files, applied: applied[i]! })),
      base: 'tinyconfig', opt: req.opt, fragmentSha256: 'f'.repeat(64), fragmentFile: null, ...(req.fragments?.length ? { fragments: req.fragments } : {}),
      configSha256: sha256('CONFIG_64BIT=y\n'), droppedOptions: [], compiler: 'gcc (Debian 12.2.0-14+deb12u1) 12.2.0', inputKey,
      buildSeconds: 1.5, builtAt: '2026-12-01T00:00:00.000Z', release: '6.12.99', objectsCompiled: cFiles(layout.tree).length,
      ...(req.from ? { incremental: { dir: req.from, label: 'A', inputKey: readManifest(req.from)!.inputKey } } : {}),
    };
    writeFileSync(join(req.out, MANIFEST_FILE), JSON.stringify(manifest, null, 2));
    log.push(req.label);
    done({ state: 'built', dir: req.out, manifest, modulesNotBuilt: [] });
  });
}

const f = (body: string): string => frameLine(`@hl1 ${body}`);

/** The trace of the one-step scenario `tiny` (setpriority, then the state); `errno` of the step by image. */
function behaveLines(errno: string): string[] {
  const state = (n: number) => f(`state scenario=tiny n=${n} who=self policy=0 nice=${n === 0 ? '0' : '3'} base=absent`);
  return [
    '[    0.000000] Linux version 6.12.99',
    f('hello proto=1 kernel=6.12.99 version=%231 machine=x86_64 pid1=1 cpu=-1 ops=10000 warmups=3 rounds=15 seccomp=0'),
    f('scenario name=tiny'),
    state(0),
    f(`step scenario=tiny n=1 line=2 call=setpriority%20pid%3Dself%20nice%3D3 ret=${errno === '0' ? '0' : '-1'} errno=${errno} out=-`),
    state(1),
    f('scenario-end name=tiny steps=1 status=0'),
    f('done rounds=15 profiles=0'),
    f('poweroff status=0'),
  ];
}

/** A probe boot: getppid, 1 warm-up and 5 rounds of 1000 calls, `perCall` instructions each plus a little per boot and round. */
export function probeLines(perCall: number, boot: number): string[] {
  const rounds = Array.from({ length: 5 }, (_, i) => f(`round profile=getppid idx=${i} warmup=0 ops=1000 elapsed=${perCall * 1000 + boot * 3 + i} cpu=0`));
  return [
    f('hello proto=1 kernel=6.12.99 version=%231 machine=x86_64 pid1=1 cpu=0 ops=1000 warmups=1 rounds=5 seccomp=0'),
    f('prepared profile=getppid params='),
    f('round profile=getppid idx=0 warmup=1 ops=1000 elapsed=999999 cpu=0'),
    ...rounds,
    f('done rounds=5 profiles=1'),
    f('poweroff status=0'),
  ];
}

export interface GuestScript {
  /** errno of the behaviour step for an image whose text contains the key; default '0'. */
  errno?: (image: string) => string;
  /** Instructions per call for an image; default 217. */
  perCall?: (image: string) => number;
  /** Taken branches per call the cost plugin counts for an image (boots given -plugin); default 51. */
  taken?: (image: string) => number;
  /** Replace a boot's lines and end (a panic, garbage), by boot kind and image. */
  fail?: (kind: 'behave' | 'probe', image: string, boot: number) => { lines: string[]; end?: BootResult['end'] } | null;
}

export interface ScriptedGuest extends VmLauncher {
  boots: { kind: 'behave' | 'probe'; image: string }[];
}

/**
 * What the cost plugin writes in a probe boot of probeLines (a warm-up and
 * 5 rounds of 1000 calls: six windows), at the out= of its -plugin
 * argument and under the model that argument names: `taken` taken
 * branches per call, the rest the same on every kernel.
 */
function writeCostOutput(arg: string, taken: number): void {
  const field = (name: string) => new RegExp(`,${name}=([^,]+)`).exec(arg)?.[1];
  const lines = [`hintlab-cost 1 target=x86_64 l1i=${field('l1i')} ways=${field('ways')} line=${field('line')} predictor=2bit,4096`];
  for (let w = 0; w < 6; w++) {
    lines.push(`w idx=${w} kinsn=300000 uinsn=19000 blocks=90000 taken=${taken * 1000} fetches=105000 misses=2 mispred=5000 klines=34000 kentries=1000`);
  }
  writeFileSync(field('out')!, `${lines.join('\n')}\nend windows=6\n`);
}

/** The launcher: BEHAVE_APPEND (loglevel=5, not quiet) marks a behaviour boot. */
export function scriptedGuest(script: GuestScript = {}): ScriptedGuest {
  const boots: ScriptedGuest['boots'] = [];
  return {
    boots,
    boot(req: BootRequest): Promise<BootResult> {
      const image = readFileSync(req.argv[req.argv.indexOf('-kernel') + 1]!, 'utf8');
      const append = req.argv[req.argv.indexOf('-append') + 1] ?? '';
      const kind = append.includes('loglevel=5') ? 'behave' : 'probe';
      boots.push({ kind, image });
      const failed = script.fail?.(kind, image, boots.length);
      const lines = failed?.lines ?? (kind === 'behave' ? behaveLines(script.errno?.(image) ?? '0') : probeLines(script.perCall?.(image) ?? 217, boots.length));
      const plugin = req.argv.indexOf('-plugin');
      if (plugin >= 0) writeCostOutput(req.argv[plugin + 1]!, script.taken?.(image) ?? 51);
      for (const l of lines) req.onLine(l);
      return Promise.resolve({ end: failed?.end ?? { kind: 'exited', code: 0, signal: null }, consoleTail: lines.slice(-25), stderrTail: [], elapsedMs: 2000 });
    },
  };
}

/** The probe's framing of one file: a `file` line, then one base64 chunk. */
function fileLines(id: number, path: string, text: string): string[] {
  const data = Buffer.from(text);
  const crc = (crc32(data) >>> 0).toString(16).padStart(8, '0');
  return [f(`file id=${id} path=${path} size=${data.length} crc=${crc}`), f(`chunk id=${id} off=0 data=${data.toString('base64')}`)];
}

/** Bogo-ops per guest second of each boot (two invocations per boot) by kernel: fifo loses a third on B, yield gains 2 %. */
export const STRESS_RATES: Record<'A' | 'B', Record<string, number[]>> = {
  // two repeats per boot, for up to five boots per kernel (the default for a family of 7 to 25 subjects)
  A: { fifo: [3000, 3010, 2990, 3005, 2995, 3002, 3008, 2992, 3004, 2996], yield: [50000, 50100, 49900, 50050, 49950, 50020, 50080, 49920, 50040, 49960] },
  B: { fifo: [2000, 2010, 1990, 2005, 1995, 2002, 2008, 1992, 2004, 1996], yield: [51000, 51100, 50900, 51050, 50950, 51020, 51080, 50920, 51040, 50960] },
};

/**
 * A stressor boot's guest: the probe ran the plan (fifo, yield, fifo,
 * yield: two repeats interleaved) and sends stress-ng's YAML files back
 * with the rates of STRESS_RATES for the boot's kernel (`sideOf` the
 * -kernel path) and its n-th boot.
 */
export function stressGuest(sideOf: (image: string) => 'A' | 'B', argvs: string[][] = [], rates: Record<'A' | 'B', Record<string, number[]>> = STRESS_RATES): VmLauncher {
  const boots = new Map<string, number>();
  return {
    boot(req: BootRequest): Promise<BootResult> {
      argvs.push(req.argv);
      const side = sideOf(req.argv[req.argv.indexOf('-kernel') + 1]!);
      const n = boots.get(side) ?? 0;
      boots.set(side, n + 1);
      const lines = [f('hello proto=1 kernel=6.12.99 version=%231 machine=x86_64 pid1=1 cpu=-1 ops=0 warmups=0 rounds=0 seccomp=0')];
      const files: [string, string][] = [];
      for (const [i, stressor] of ['fifo', 'yield', 'fifo', 'yield'].entries()) {
        lines.push(f('exec path=/usr/bin/stress-ng status=0'));
        const rate = rates[side][stressor]![2 * n + (i >> 1)]!;
        files.push([`/tmp/hintlab/round-${i}.log`, ''], [`/tmp/hintlab/round-${i}.yaml`, stressNgYamlText(stressor, standardFields(rate, 2))]);
      }
      lines.push(f('done rounds=0 profiles=0'));
      files.forEach(([path, text], id) => lines.push(...fileLines(id, path, text)));
      lines.push(f(`files count=${files.length} bytes=${files.reduce((t, [, x]) => t + Buffer.byteLength(x), 0)}`), f('poweroff status=0'));
      for (const l of lines) req.onLine(l);
      return Promise.resolve({ end: { kind: 'exited', code: 0, signal: null }, consoleTail: [], stderrTail: [], elapsedMs: 5000 });
    },
  };
}
