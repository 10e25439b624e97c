/**
 * `vm --macro` over a scripted guest: the plan file the probe runs, the
 * framed YAML transfer turned into stored rounds, and every way a boot's
 * output is refused. The YAML is a real stress-ng 0.15.06 file captured on
 * this machine; the real guest path is in macro-boot.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { crc32 } from 'node:zlib';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import { buildPlan } from '../../src/macro/plan.ts';
import { Store } from '../../src/store/store.ts';
import type { AccelChoice } from '../../src/vm/accel.ts';
import type { VmKernel } from '../../src/vm/kernels.ts';
import { runVmMacro, type VmMacroPlan, type VmMacroRequest } from '../../src/vm/macro.ts';
import { guestPlanText } from '../../src/vm/macro-session.ts';
import type { BootEnd, BootResult, VmLauncher } from '../../src/launch/qemu.ts';
import { parentDirs, parseLdd } from '../../src/launch/stress-ng-image.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { requireTool } from '../helpers/tools.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probePath = join(dir, 'probe');
writeFileSync(probePath, 'not a real binary: the scripted guest never runs it');
const probe: ProbeBuild = { path: probePath, static: true, buildId: 'feedfacefeedface', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-static'] };
const kernel = (label: string): VmKernel => ({ label, image: `/boot/${label}`, manifest: null, configHash: { known: false, reason: 'test' } });
const tcg: AccelChoice = { accel: 'tcg', why: 'test' };

/** Captured with `stress-ng --fifo 1 --timeout 2s --metrics --yaml` on this machine: bogo-ops-per-second-real-time 367459.455001. */
const FIFO_YAML = readFileSync(new URL('../macro/fixtures/fifo-1-0.15.06.yaml', import.meta.url), 'utf8');
const FIFO_RATE = 367459.455001;

/** The probe's framing of one file: a `file` line, then 512-byte base64 chunks. */
function fileLines(id: number, path: string, text: string): string[] {
  const data = Buffer.from(text);
  const crc = (crc32(data) >>> 0).toString(16).padStart(8, '0');
  const lines = [frameLine(`@hl1 file id=${id} path=${path} size=${data.length} crc=${crc}`)];
  for (let off = 0; off < data.length; off += 512) lines.push(frameLine(`@hl1 chunk id=${id} off=${off} data=${data.subarray(off, off + 512).toString('base64')}`));
  return lines;
}

/** A guest that ran `statuses.length` invocations and sent `files` (path -> text) back. */
function guest(statuses: number[], files: [string, string][]): string[] {
  const lines = ['[    0.1] Linux version 6.12', frameLine('@hl1 hello proto=1 kernel=6.12.57-hl version=%231 machine=x86_64 pid1=1 cpu=-1 ops=10000 warmups=3 rounds=15 seccomp=0')];
  for (const s of statuses) lines.push('stress-ng: info:  [60] dispatching hogs: 1 fifo', frameLine(`@hl1 exec path=/usr/bin/stress-ng status=${s}`));
  lines.push(frameLine('@hl1 done rounds=15 profiles=0'));
  files.forEach(([path, text], id) => lines.push(...fileLines(id, path, text)));
  const bytes = files.reduce((n, [, t]) => n + Buffer.byteLength(t), 0);
  lines.push(frameLine(`@hl1 files count=${files.length} bytes=${bytes}`), frameLine('@hl1 poweroff status=0'));
  return lines;
}

function scripted(script: (boot: number) => string[], end: BootEnd = { kind: 'exited', code: 0, signal: null }): VmLauncher {
  let n = 0;
  return {
    async boot(req): Promise<BootResult> {
      const lines = script(n++);
      for (const l of lines) req.onLine(l);
      return { end, consoleTail: lines.slice(-25), stderrTail: [], elapsedMs: 4000 };
    },
  };
}

const items = buildPlan(['fifo'], [1], 2);
const plan: VmMacroPlan = { stressNgVersion: '0.15.06', stressors: ['fifo'], unavailable: [], instances: [1], items };
const req: VmMacroRequest = {
  kernels: [kernel('A'), kernel('B')],
  steps: ['A', 'B', 'A'],
  stressors: ['fifo'],
  sets: [],
  instances: '1',
  seconds: 2,
  repeats: 2,
  accel: 'tcg',
  timeoutSeconds: 60,
  labelPrefix: 'vm-',
  command: 'hintlab vm --macro',
  hintlabVersion: '0.0.0-test',
};

async function run(launcher: VmLauncher) {
  const store = Store.open(join(dir, `db-${Math.random().toString(16).slice(2)}.sqlite`));
  const result = await runVmMacro(req, plan, { store, launcher, probe, stressNgEntries: [], abort: new AbortController().signal, cacheDir: join(dir, 'cache'), chooseAccel: async () => tcg });
  return { store, result };
}

const twoRounds = (): string[] =>
  guest([0, 0], [
    ['/tmp/hintlab/round-0.log', ''],
    ['/tmp/hintlab/round-0.yaml', FIFO_YAML],
    ['/tmp/hintlab/round-1.log', ''],
    ['/tmp/hintlab/round-1.yaml', FIFO_YAML],
  ]);

test('the plan file runs /usr/bin/stress-ng once per line, repeats interleaved, output under /tmp/hintlab', () => {
  assert.equal(
    guestPlanText(buildPlan(['yield', 'futex'], [1, 2], 1), 3),
    [
      '/tmp/hintlab/round-0.log /usr/bin/stress-ng --yield 1 --timeout 3s --metrics --yaml /tmp/hintlab/round-0.yaml',
      '/tmp/hintlab/round-1.log /usr/bin/stress-ng --futex 1 --timeout 3s --metrics --yaml /tmp/hintlab/round-1.yaml',
      '/tmp/hintlab/round-2.log /usr/bin/stress-ng --yield 2 --timeout 3s --metrics --yaml /tmp/hintlab/round-2.yaml',
      '/tmp/hintlab/round-3.log /usr/bin/stress-ng --futex 2 --timeout 3s --metrics --yaml /tmp/hintlab/round-3.yaml',
      '',
    ].join('\n'),
  );
});

test('ldd output: every library path and the loader, never the vDSO; parents before children', () => {
  const out = [
    '\tlinux-vdso.so.1 (0x00007fb348fd0000)',
    '\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007fb347d93000)',
    '\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fb346e1e000)',
    '\t/lib64/ld-linux-x86-64.so.2 (0x00007fb348fd2000)',
    '\tlibgone.so.1 => not found',
  ].join('\n');
  assert.deepEqual(parseLdd(out), {
    paths: ['/lib/x86_64-linux-gnu/libm.so.6', '/lib/x86_64-linux-gnu/libc.so.6', '/lib64/ld-linux-x86-64.so.2'],
    missing: ['libgone.so.1'],
  });
  assert.deepEqual(parentDirs(['/usr/bin/stress-ng', '/lib/x86_64-linux-gnu/libc.so.6', '/lib64/ld.so']), ['lib', 'lib64', 'usr', 'lib/x86_64-linux-gnu', 'usr/bin']);
});

test('A/B/A under TCG: each boot is a vm run of fifo@1 with the YAML rate in emulated-bogo-ops/s', async () => {
  const { store, result } = await run(scripted(twoRounds));
  assert.equal(result.state, 'finished');
  assert.deepEqual(result.steps.map((s) => [s.runLabel, s.state]), [['vm-A-1', 'complete'], ['vm-B-1', 'complete'], ['vm-A-2', 'complete']]);
  const r = store.getRun(result.steps[1]!.runId);
  assert.equal(r.kind, 'vm');
  assert.equal(r.unit, 'emulated-bogo-ops/s');
  assert.deepEqual(r.params.subjects, ['fifo@1']);
  assert.deepEqual(r.rounds.map((x) => [x.subject, x.index, x.replicate, x.value, x.unit]), [['fifo@1', 0, 0, FIFO_RATE, 'emulated-bogo-ops/s'], ['fifo@1', 1, 1, FIFO_RATE, 'emulated-bogo-ops/s']]);
  assert.deepEqual(r.replicateUnit, { known: true, value: 'invocation' });
  assert.equal(r.rounds[0]!.metrics.find((m) => m.name === 'bogo-ops')?.value, 735573);
  assert.equal(r.params.subjectParams['fifo@1']?.['args'], '--fifo 1 --timeout 2s --metrics --yaml /tmp/hintlab/round-0.yaml');
  store.close();
});

test("a stressor that fails in the guest fails the boot with stress-ng's own message, never as data", async () => {
  const log = 'stress-ng: info:  [60] setting to a 2 second run per stressor\nstress-ng: error: [61] fifo: mkfifo failed, errno=38 (Function not implemented)\n';
  const { store, result } = await run(scripted(() => guest([3], [['/tmp/hintlab/round-0.log', log]])));
  const first = result.steps[0]!;
  assert.equal(first.state, 'failed');
  const r = store.getRun(first.runId);
  assert.equal(r.status, 'failed');
  assert.equal(r.rounds.length, 0);
  assert.match(r.error ?? '', /fifo@1 repeat 1\/2 in the guest: stress-ng exited with status 3 \(a stressor could not start/);
  assert.match(r.error ?? '', /fifo: mkfifo failed, errno=38 \(Function not implemented\)\nqemu command: qemu-system-x86_64 /);
  // the guest itself was fine: its console lines would only bury stress-ng's message
  assert.doesNotMatch(r.error ?? '', /last console lines/);
  store.close();
});

test('a lost chunk line fails the boot; rounds of a boot that timed out are not data', async () => {
  const lost = await run(scripted(() => twoRounds().filter((l) => !l.includes('chunk id=1 off=512 '))));
  assert.equal(lost.result.steps[0]!.state, 'failed');
  assert.match(lost.store.getRun(lost.result.steps[0]!.runId).error ?? '', /files did not arrive whole: \/tmp\/hintlab\/round-0.yaml: 512 of 951 bytes arrived/);
  lost.store.close();
  const late = await run(scripted(() => twoRounds().slice(0, 6), { kind: 'timeout', seconds: 60 }));
  const r = late.store.getRun(late.result.steps[0]!.runId);
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /no complete result within 60 s \(--timeout; 2 of 2 invocations had finished\)/);
  late.store.close();
});

test('a truncated YAML file from the guest is refused, naming the file', async () => {
  const cut = FIFO_YAML.replace(/\n\.\.\.\n?$/, '\n');
  const { store, result } = await run(scripted(() => guest([0, 0], [['/tmp/hintlab/round-0.log', ''], ['/tmp/hintlab/round-0.yaml', cut]])));
  const r = store.getRun(result.steps[0]!.runId);
  assert.equal(r.status, 'failed');
  assert.match(r.error ?? '', /fifo@1 repeat 1\/2: guest:\/tmp\/hintlab\/round-0.yaml: truncated YAML/);
  store.close();
});

/** A file with a bzImage header: enough for the flag checks, never booted. */
function fakeBzImage(): string {
  const image = join(dir, 'bzImage');
  const buf = Buffer.alloc(0x300);
  buf.write('HdrS', 0x202, 'latin1');
  writeFileSync(image, buf);
  return image;
}

/** Each command exits 2 with a message matching its pattern. */
async function assertRefused(cases: [string[], RegExp][]): Promise<void> {
  for (const [argv, re] of cases) {
    const r = await runCli(argv);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
}

test('hintlab vm --macro refuses conflicting and bad flags with exit status 2, before any boot', async () => {
  const image = fakeBzImage();
  const base = ['vm', '--kernel', `A=${image}`, '--macro', '--db', join(dir, 'cli.db')];
  await assertRefused([
    [[...base], /--macro needs --stressor NAME or --set sched/],
    [[...base, '--stressor', 'yield', '--icount'], /--macro cannot use --icount: stress-ng's --timeout would count guest instructions/],
    [[...base, '--stressor', 'yield', '--profile', 'getppid'], /drop --profile/],
  ]);
});

test('hintlab vm --macro refuses a stressor or set the host stress-ng lacks and a bad --instances, after asking stress-ng', { skip: requireTool('stress-ng', 'stress-ng') }, async () => {
  const base = ['vm', '--kernel', `A=${fakeBzImage()}`, '--macro', '--db', join(dir, 'cli.db')];
  await assertRefused([
    [[...base, '--stressor', 'nosuch'], /--stressor nosuch: stress-ng [\d.]+ has no stressor 'nosuch'/],
    [[...base, '--stressor', 'yield', '--instances', '0'], /--instances 0: '0' is neither a positive count nor 'all'/],
    [[...base, '--set', 'nosuch'], /nosuch/],
  ]);
});

test('a stressor metric whose name gives no unit is left out of the rounds and named in the environment', async () => {
  const odd = FIFO_YAML.replace('      max-rss: 2516\n', '      max-rss: 2516\n      mystery-count: 3.000000\n');
  const files: [string, string][] = [['/tmp/hintlab/round-0.log', ''], ['/tmp/hintlab/round-0.yaml', odd], ['/tmp/hintlab/round-1.log', ''], ['/tmp/hintlab/round-1.yaml', FIFO_YAML]];
  const { store, result } = await run(scripted(() => guest([0, 0], files)));
  const r = store.getRun(result.steps[0]!.runId);
  assert.equal(r.status, 'complete');
  assert.deepEqual((r.environment as { stressNg: { unclassifiedMetrics: string[] } }).stressNg.unclassifiedMetrics, ['mystery-count']);
  assert.equal(r.rounds[0]!.metrics.some((m) => m.name === 'mystery-count'), false);
  store.close();
});
