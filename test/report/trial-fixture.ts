/**
 * A hand-built trial document for the report tests: every part set by
 * hand (kernels, hunks, codegen, behaviour, steps, commands), the measured
 * comparison computed by compare() from hand-built runs of exact values.
 */
import type { BehaveDocument } from '../../src/behave/compare.ts';
import { compare } from '../../src/compare/compare.ts';
import type { CodegenResult } from '../../src/codegen/types.ts';
import type { KernelManifest } from '../../src/kernel/manifest.ts';
import type { TrialDocument, TrialKernel } from '../../src/trial/document.ts';
import type { ReproduceContext } from '../../src/report/reproduce.ts';
import { hostEnvironment, makeRun } from '../compare/fixtures.ts';

const HOME = '/home/dev';
const TREE = `${HOME}/src/linux-6.12`;
const OUT = `${HOME}/.cache/hintlab/trial/linux-6.12-0123456789ab`;
const PATCH = `${HOME}/work/sched-unlikely.patch`;

function manifest(label: 'A' | 'B'): KernelManifest {
  return {
    schema: 1,
    label,
    image: 'bzImage',
    source: { dir: TREE, version: '6.12.117', fingerprint: 'f'.repeat(64) },
    patches:
      label === 'A'
        ? []
        : [
            {
              path: PATCH,
              sha256: '8c9266791bfbfb4d0123456789abcdef0123456789abcdef0123456789abcdef',
              files: ['kernel/sched/syscalls.c'],
              applied: [{ file: 'kernel/sched/syscalls.c', hunks: [{ hunk: 1, line: 1046, offsetLines: 0, fuzz: 0 }, { hunk: 2, line: 1080, offsetLines: 3, fuzz: 0 }] }],
            },
          ],
    base: 'tinyconfig',
    opt: 'O2',
    fragmentSha256: 'e'.repeat(64),
    fragmentFile: null,
    fragments: ['behave'],
    configSha256: 'bc2686bcd0150c3758e9154bdb6cdc288ca627e8768ecb0b7dc8b140e40050e1',
    droppedOptions: [],
    compiler: 'gcc (Debian 12.2.0-14+deb12u1) 12.2.0',
    inputKey: label === 'A' ? 'a'.repeat(64) : 'b'.repeat(64),
    buildSeconds: label === 'A' ? 629.8 : 38.2,
    builtAt: '2026-12-01T21:30:54.324Z',
    release: '6.12.117',
    objectsCompiled: label === 'A' ? 943 : 4,
    ...(label === 'B' ? { incremental: { dir: `${OUT}/A`, label: 'A', inputKey: 'a'.repeat(64) } } : {}),
  };
}

const kernel = (role: 'A' | 'B', state: TrialKernel['state']): TrialKernel => ({ role, dir: `${OUT}/${role}`, image: `${OUT}/${role}/bzImage`, state, manifest: manifest(role) });

const codegen: CodegenResult = {
  schema: 1,
  subject: { kind: 'kernel', tree: TREE, patch: PATCH, object: 'kernel/sched/build_policy.o', config: { kind: 'file', path: `${OUT}/A/config` } },
  notes: [],
  cells: [
    {
      state: 'compared',
      compiler: { command: 'gcc', label: 'gcc 12.2.0', family: 'gcc', version: '12.2.0' },
      opt: 'O2',
      functions: [
        { name: '__do_sys_sched_getparam', class: 'identical', instructions: 60, sizeBytes: 190 },
        {
          name: '__x64_sys_sched_getscheduler',
          class: 'layout',
          instructions: { before: 31, after: 31 },
          sizeBytes: { before: 97, after: 97 },
          coldInstructions: { before: 0, after: 2 },
          fallThrough: { before: { end: 'return', instructions: 14 }, after: { end: 'return', instructions: 13 } },
          diff: '-\tjs .L4\n+\tjs __x64_sys_sched_getscheduler.cold\n',
        },
      ],
    },
  ],
};

const behave: BehaveDocument = {
  schema: 2,
  kind: 'hintlab-behave',
  a: { label: 'A', image: `${OUT}/A/bzImage`, imageSha256: '4fe680d3e696'.padEnd(64, '0'), kernelRelease: '6.12.117', traceKey: 'ta', reused: false, bootSeconds: 24.1 },
  b: { label: 'B', image: `${OUT}/B/bzImage`, imageSha256: '600e40d52f29'.padEnd(64, '0'), kernelRelease: '6.12.117', traceKey: 'tb', reused: false, bootSeconds: 23.8 },
  aAgain: { label: 'A again', image: `${OUT}/A/bzImage`, imageSha256: '4fe680d3e696'.padEnd(64, '0'), kernelRelease: '6.12.117', traceKey: 'ta2', reused: false, bootSeconds: 24.3 },
  guest: { icount: true, cpus: 1, runnerBuild: 'runner-1' },
  scenarios: [
    { name: 'sched_param', source: 'built-in', state: 'compared', steps: 22 },
    { name: 'slice', source: 'built-in', state: 'compared', steps: 23 },
    { name: 'affinity-two-cpus', source: 'built-in', state: 'not-run', steps: 0, reason: "needs 2 CPUs; icount guests have 1, since SMP bring-up hangs under qemu's icount" },
  ],
  steps: 45,
  identical: true,
  divergences: [],
  notJudged: [],
  sharedSplats: [],
};

/** Three boots per kernel, five rounds each: getppid unchanged, sched_getscheduler 2 instructions fewer on B. */
function measured() {
  const boots = (base: number) => [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0].map((d, i) => base + d * 0.02 + (i % 5) * 0.001);
  const env = hostEnvironment({ release: '6.12.117', host: 'lab1' });
  const a = makeRun({ id: 7, label: 'trial3-A', kind: 'vm', unit: 'instructions/call', units: 3, ops: 20000, environment: env, design: 'separate', values: { getppid: boots(217.1), sched_getscheduler: boots(193.1) } });
  const b = makeRun({ id: 8, label: 'trial3-B', kind: 'vm', unit: 'instructions/call', units: 3, ops: 20000, environment: env, design: 'separate', values: { getppid: boots(217.1), sched_getscheduler: boots(191.1) } });
  return compare({ a, b });
}

export function trialDocument(): TrialDocument {
  return {
    format: 'hintlab-trial',
    schema: 1,
    trialId: 3,
    hintlabVersion: '0.1.0',
    source: { dir: TREE, version: '6.12.117' },
    out: OUT,
    patches: manifest('B').patches,
    kernels: { A: kernel('A', 'built'), B: kernel('B', 'built') },
    codegen: {
      compiler: 'gcc',
      opt: 'O2',
      limit: 8,
      files: ['kernel/sched/syscalls.c'],
      objects: [
        { object: 'kernel/sched/build_policy.o', reach: 'includes', files: ['kernel/sched/syscalls.c'], state: 'compared', result: codegen },
      ],
    },
    behave: { kernels: 'measured', document: behave },
    measured: {
      runs: { A: { id: 7, label: 'trial3-A' }, B: { id: 8, label: 'trial3-B' } },
      order: ['A', 'B', 'B', 'A', 'A', 'B'],
      accel: { accel: 'tcg', why: '--icount needs TCG (qemu counts instructions only when it emulates them)' },
      icount: true,
      unit: 'instructions/call',
      profiles: ['getppid', 'sched_getscheduler'],
      rounds: 5,
      warmups: 1,
      ops: 20000,
      comparison: measured(),
    },
    steps: [
      { name: 'build-A', title: 'build A (the tree as is)', state: 'done', seconds: 629.8, key: 'a'.repeat(64), summary: 'built, 943 objects compiled' },
      { name: 'build-B', title: "build B (A + 1 patch, from A's objects)", state: 'done', seconds: 38.2, key: 'b'.repeat(64), summary: "built from A's objects, 4 objects compiled" },
      { name: 'codegen', title: 'codegen of the objects the patch touches', state: 'done', seconds: 1.4, key: 'c'.repeat(64), summary: '1 object compared (kernel/sched/build_policy.o)' },
      { name: 'behave', title: 'behave A vs B', state: 'done', seconds: 49.6, key: 'd'.repeat(64), summary: '45 steps identical' },
      { name: 'vm', title: 'A/B in VMs (qemu -icount, instructions; 3 boots per kernel)', state: 'reused', seconds: 0.3, earlierSeconds: 171.2, key: 'e'.repeat(64), summary: 'reused: 6 boots (A B B A A B)' },
    ],
    cwd: `${HOME}/work`,
    db: null,
    reproduce: [
      { part: 'trial', argv: ['trial', '--src', '../src/linux-6.12', '--patch', 'sched-unlikely.patch', '--profile', 'getppid,sched_getscheduler', '--ops', '20000'] },
      { part: 'build-A', argv: ['kernel', 'build', '--src', TREE, '--behave', '--opt', 'O2', '--out', `${OUT}/A`, '--label', 'A'] },
      { part: 'build-B', argv: ['kernel', 'build', '--src', TREE, '--patch', PATCH, '--behave', '--opt', 'O2', '--from', `${OUT}/A`, '--out', `${OUT}/B`, '--label', 'B'] },
      { part: 'codegen', argv: ['codegen', '--src', TREE, '--patch', PATCH, '--obj', 'kernel/sched/build_policy.o', '--config', `${OUT}/A/config`, '--cc', 'gcc', '--opt', 'O2'] },
      { part: 'behave', argv: ['behave', '--kernel', `A=${OUT}/A`, '--kernel', `B=${OUT}/B`] },
      { part: 'vm', argv: ['vm', '--kernel', `A=${OUT}/A`, '--kernel', `B=${OUT}/B`, '--repeat', '3', '--icount', '--accel', 'tcg', '--profile', 'getppid,sched_getscheduler', '--rounds', '5', '--warmups', '1', '--ops', '20000', '--label-prefix', 'trial3-'] },
      { part: 'compare', argv: ['compare', 'trial3-A', 'trial3-B'] },
    ],
  };
}

/** The reader of the report sits where the trial ran. */
export const READER: ReproduceContext = { db: null, cwd: `${HOME}/work`, home: HOME };
