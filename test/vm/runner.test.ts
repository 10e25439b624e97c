/**
 * The A/B/A runner over a scripted guest: labels, units, stored rounds and
 * every failure path, with exact numbers. The real qemu path is covered by
 * cloud-kernel.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import { findProfile } from '../../src/bench/profiles.ts';
import { Store } from '../../src/store/store.ts';
import type { AccelChoice } from '../../src/vm/accel.ts';
import type { VmKernel } from '../../src/vm/kernels.ts';
import type { BootEnd, BootRequest, BootResult, VmLauncher } from '../../src/launch/qemu.ts';
import { repeatOrder, runVm, type VmRequest } from '../../src/vm/runner.ts';
import { bootsNeeded } from '../../src/vm/boots-needed.ts';
import { tempDir } from '../helpers/cli.ts';
import { fillLeaving, mountTmpfs } from '../helpers/tmpfs.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probePath = join(dir, 'probe');
writeFileSync(probePath, 'not a real binary: the scripted guest never runs it');
const probe: ProbeBuild = { path: probePath, static: true, buildId: 'feedfacefeedface', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-static'] };

const kernel = (label: string): VmKernel => ({ label, image: `/boot/${label}`, manifest: null, configHash: { known: false, reason: 'test' } });

/** A guest that prints `elapsed` for every round of getppid (ops 1000) and then powers off. */
function goodGuest(elapsed: (boot: number, idx: number) => number, boot: number): string[] {
  const lines = ['SeaBIOS', '[    0.1] Linux version 6.12', frameLine('@hl1 hello proto=1 kernel=6.12.57-hl version=%231 machine=x86_64 pid1=1 cpu=0 ops=1000 warmups=1 rounds=3 seccomp=0')];
  lines.push(frameLine('@hl1 prepared profile=getppid params='));
  lines.push(frameLine(`@hl1 round profile=getppid idx=0 warmup=1 ops=1000 elapsed=999999 cpu=0`));
  for (let i = 0; i < 3; i++) lines.push(frameLine(`@hl1 round profile=getppid idx=${i} warmup=0 ops=1000 elapsed=${elapsed(boot, i)} cpu=0`));
  lines.push(frameLine('@hl1 done rounds=3 profiles=1'), frameLine('@hl1 poweroff status=0'));
  return lines;
}

type Script = (boot: number, req: BootRequest) => { lines: string[]; end: BootEnd };

function scripted(script: Script): VmLauncher & { argvs: string[][] } {
  let n = 0;
  const argvs: string[][] = [];
  return {
    argvs,
    async boot(req): Promise<BootResult> {
      argvs.push(req.argv);
      const { lines, end } = script(n++, req);
      for (const l of lines) req.onLine(l);
      return { end, consoleTail: lines.slice(-25), stderrTail: [], elapsedMs: 1500 };
    },
  };
}

const tcg: AccelChoice = { accel: 'tcg', why: 'test' };

function request(over: Partial<VmRequest> = {}): VmRequest {
  return {
    kernels: [kernel('A'), kernel('B')],
    steps: ['A', 'B', 'A'],
    profiles: [findProfile('getppid')!],
    ops: 1000,
    warmups: 1,
    rounds: 3,
    accel: 'tcg',
    icount: true,
    timeoutSeconds: 60,
    labelPrefix: 'vm-',
    command: 'hintlab vm ...',
    hintlabVersion: '0.0.0',
    ...over,
  };
}

async function run(req: VmRequest, launcher: VmLauncher) {
  const store = Store.open(':memory:');
  const result = await runVm(req, { store, launcher, probe, abort: new AbortController().signal, cacheDir: dir, chooseAccel: async () => tcg });
  return { store, result };
}

test('A/B/A stores three vm runs labelled per kernel and boot, in instructions per call', async () => {
  const launcher = scripted((boot) => ({ lines: goodGuest((b, i) => (b === 1 ? 400_000 : 300_000) + i, boot), end: { kind: 'exited', code: 0, signal: null } }));
  const { store, result } = await run(request(), launcher);
  assert.equal(result.state, 'finished');
  assert.deepEqual(result.steps.map((s) => [s.runLabel, s.state]), [['vm-A-1', 'complete'], ['vm-B-1', 'complete'], ['vm-A-2', 'complete']]);
  const b = store.resolveRun('vm-B-1');
  assert.equal(b.kind, 'vm');
  assert.equal(b.unit, 'instructions/call');
  assert.deepEqual(b.rounds.filter((r) => !r.warmup).map((r) => r.value), [400, 400.001, 400.002]);
  // the boot is the unit of replication, and each boot is its own run
  assert.deepEqual(b.replicateUnit, { known: true, value: 'boot' });
  assert.deepEqual([...new Set(b.rounds.map((r) => r.replicate))], [0]);
  const env = b.environment as { vm: { kernelLabel: string; bootIndex: number; accel: string; icount: boolean }; kernel: { release: { value: string } } };
  assert.deepEqual([env.vm.kernelLabel, env.vm.bootIndex, env.vm.accel, env.vm.icount], ['B', 1, 'tcg', true]);
  assert.equal(env.kernel.release.value, '6.12.57-hl');
  assert.equal(store.resolveRun('vm-A-2').environment.vm && (store.resolveRun('vm-A-2').environment.vm as { bootIndex: number }).bootIndex, 2);
  // icount guests get one CPU and the instruction clock
  const argv = launcher.argvs[0]!;
  assert.deepEqual(argv.slice(argv.indexOf('-icount'), argv.indexOf('-icount') + 2), ['-icount', 'shift=0,sleep=off']);
  assert.equal(argv[argv.indexOf('-smp') + 1], '1');
  assert.equal(argv[argv.indexOf('-kernel') + 1], '/boot/A');
  assert.equal(launcher.argvs[1]![argv.indexOf('-kernel') + 1], '/boot/B');
  // the initramfs outlives the run, so the qemu command in an error message can be rerun by hand
  const initrd = argv[argv.indexOf('-initrd') + 1]!;
  assert.ok(initrd.startsWith(dir) && existsSync(initrd), initrd);
});

test('without icount a TCG guest is stored in emulated time, never ns', async () => {
  const launcher = scripted((boot) => ({ lines: goodGuest(() => 500_000, boot), end: { kind: 'exited', code: 0, signal: null } }));
  const { store } = await run(request({ icount: false, steps: ['A', 'B'] }), launcher);
  assert.equal(store.resolveRun('vm-A-1').unit, 'emulated-time/call');
  assert.equal(launcher.argvs[0]!.includes('-icount'), false);
});

test('a kernel panic is stored as a failed run with the panic, the last console lines and the qemu command', async () => {
  const launcher = scripted((boot) =>
    boot === 1
      ? { lines: ['[    0.5] Run /init as init process', '[    0.6] Kernel panic - not syncing: No working init found.'], end: { kind: 'exited', code: 0, signal: null } }
      : { lines: goodGuest(() => 300_000, boot), end: { kind: 'exited', code: 0, signal: null } },
  );
  const { store, result } = await run(request(), launcher);
  assert.deepEqual(result.steps.map((s) => s.state), ['complete', 'failed', 'complete']);
  const b = store.resolveRun('vm-B-1');
  assert.equal(b.status, 'failed');
  assert.match(b.error ?? '', /Kernel panic - not syncing: No working init found/);
  assert.match(b.error ?? '', /\| \[ {4}0\.5\] Run \/init as init process/);
  assert.match(b.error ?? '', /qemu command: qemu-system-x86_64 .*-kernel \/boot\/B/);
  assert.equal(b.rounds.length, 0);
});

test('a timeout, a probe error and a corrupt line each fail the boot, never as data', async () => {
  const cases: { lines: string[]; end: BootEnd; expect: RegExp }[] = [
    { lines: ['[    0.1] booting'], end: { kind: 'timeout', seconds: 60 }, expect: /no complete result within 60 s \(--timeout\)/ },
    {
      lines: [frameLine('@hl1 hello proto=1 kernel=k version=v machine=x86_64 pid1=1 cpu=0 ops=1000 warmups=1 rounds=3 seccomp=0'), frameLine('@hl1 error profile=getppid round=0 warmup=1 stage=loop call=7 syscall=getppid errno=71 message=Protocol%20error'), frameLine('@hl1 poweroff status=3')],
      end: { kind: 'exited', code: 0, signal: null },
      expect: /probe failed: profile getppid, warm-up round 0, call #7 of getppid, stage loop: errno 71/,
    },
    {
      lines: goodGuest(() => 300_000, 0).map((l, i) => (i === 5 ? l.replace('elapsed=300000', 'elapsed=300009') : l)),
      end: { kind: 'exited', code: 0, signal: null },
      expect: /checksum .* does not match/,
    },
  ];
  for (const c of cases) {
    const { store, result } = await run(request({ steps: ['A', 'B'] }), scripted(() => ({ lines: c.lines, end: c.end })));
    assert.equal(result.steps[0]!.state, 'failed');
    const a = store.resolveRun('vm-A-1');
    assert.equal(a.status, 'failed');
    assert.match(a.error ?? '', c.expect);
  }
});

test('an abort stops after the boot in flight and marks it failed', async () => {
  const abort = new AbortController();
  const launcher = scripted(() => {
    abort.abort();
    return { lines: ['[    0.1] booting'], end: { kind: 'aborted' } };
  });
  const store = Store.open(':memory:');
  const result = await runVm(request(), { store, launcher, probe, abort: abort.signal, cacheDir: dir, chooseAccel: async () => tcg });
  assert.equal(result.state, 'interrupted');
  assert.equal(result.steps.length, 1);
  assert.match(store.resolveRun('vm-A-1').error ?? '', /interrupted \(Ctrl-C\)/);
});

test('disk full while storing a guest round stops qemu (the boot is aborted) and keeps the committed rounds', async (t) => {
  const fs = mountTmpfs(1024);
  if ('skip' in fs) { t.skip(fs.skip); return; }
  t.after(fs.unmount);
  const db = join(fs.dir, 'h.db');
  const store = Store.open(db);
  t.after(() => store.close());
  fillLeaving(fs.dir, 64);
  const rounds = 5000;
  let abortedDuringBoot = false;
  const launcher: VmLauncher = {
    async boot(req): Promise<BootResult> {
      const lines = [frameLine(`@hl1 hello proto=1 kernel=6.12.57-hl version=%231 machine=x86_64 pid1=1 cpu=0 ops=1000 warmups=0 rounds=${rounds} seccomp=0`)];
      for (let i = 0; i < rounds; i++) lines.push(frameLine(`@hl1 round profile=getppid idx=${i} warmup=0 ops=1000 elapsed=300000 cpu=0`));
      for (const l of lines) req.onLine(l);
      abortedDuringBoot = req.abort.aborted;
      return { end: { kind: 'aborted' }, consoleTail: [], stderrTail: [], elapsedMs: 1500 };
    },
  };
  await assert.rejects(
    runVm(request({ steps: ['A'], warmups: 0, rounds }), { store, launcher, probe, abort: new AbortController().signal, cacheDir: dir, chooseAccel: async () => tcg }),
    new RegExp(`disk full while storing round \\d+ of run #1 \\(vm-A-1\\): free space on ${fs.dir} \\(tmpfs\\)\\nrun #1 \\(vm-A-1\\) keeps its \\d+ committed measured rounds`),
  );
  assert.ok(abortedDuringBoot, 'qemu was told to stop as soon as a round could not be stored');
  const kept = store.resolveRun('vm-A-1').rounds.length;
  assert.ok(kept > 0 && kept < rounds, `${kept} rounds kept`);
});

test('--repeat order boots A B B A ... so a linear drift hits every kernel alike', () => {
  assert.deepEqual(repeatOrder(['A', 'B'], 3), ['A', 'B', 'B', 'A', 'A', 'B']);
  assert.deepEqual(repeatOrder(['A', 'B', 'C'], 2), ['A', 'B', 'C', 'C', 'B', 'A']);
});

test('pooled boots: one run per kernel, each boot one replicate, the run complete only after its last boot', async () => {
  const launcher = scripted((boot) => ({ lines: goodGuest((b) => (b === 1 || b === 2 ? 400_000 : 300_000) + b, boot), end: { kind: 'exited', code: 0, signal: null } }));
  const { store, result } = await run(request({ steps: repeatOrder(['A', 'B'], 2), poolBoots: true }), launcher);
  assert.equal(result.state, 'finished');
  assert.deepEqual(result.steps.map((s) => [s.runLabel, s.bootIndex]), [['vm-A', 1], ['vm-B', 1], ['vm-B', 2], ['vm-A', 2]]);
  assert.deepEqual(store.listRuns().map((r) => [r.label, r.status]), [['vm-A', 'complete'], ['vm-B', 'complete']]);
  const b = store.resolveRun('vm-B');
  assert.deepEqual(b.rounds.filter((r) => !r.warmup).map((r) => [r.replicate, r.index, r.value]), [
    [0, 0, 400.001], [0, 1, 400.001], [0, 2, 400.001], [1, 3, 400.002], [1, 4, 400.002], [1, 5, 400.002],
  ]);
  assert.equal(b.params.extra.boots, 2);
  assert.deepEqual((b.environment.vm as { bootSeconds: number[] }).bootSeconds, [1.5, 1.5]);
});

test('a failed pooled boot fails its kernel\'s run, stops the order, and fails the other kernel\'s run naming it', async () => {
  const launcher = scripted((boot) =>
    boot === 2
      ? { lines: ['[    0.6] Kernel panic - not syncing: test'], end: { kind: 'exited', code: 0, signal: null } }
      : { lines: goodGuest(() => 300_000, boot), end: { kind: 'exited', code: 0, signal: null } },
  );
  const { store, result } = await run(request({ steps: repeatOrder(['A', 'B'], 2), poolBoots: true }), launcher);
  assert.deepEqual(result.steps.map((s) => s.state), ['complete', 'complete', 'failed']);
  const [a, b] = store.listRuns();
  assert.equal(b!.status, 'failed');
  assert.match(b!.error ?? '', /^boot 2 of kernel B: .*Kernel panic - not syncing: test/);
  assert.equal(a!.status, 'failed');
  assert.equal(a!.error, 'stopped after boot 2 of kernel B failed (run #2)');
});

test('with the default A/B/A the spread between boots comes from A-1 and A-2, in % of A\'s mean', async () => {
  // A-1 300, B-1 400, A-2 300.3 instructions per call
  const launcher = scripted((boot) => ({ lines: goodGuest(() => [300_000, 400_000, 300_300][boot]!, boot), end: { kind: 'exited', code: 0, signal: null } }));
  const { store } = await run(request(), launcher);
  const byKernel = new Map([['A', [store.resolveRun('vm-A-1'), store.resolveRun('vm-A-2')]], ['B', [store.resolveRun('vm-B-1')]]]);
  const [row] = bootsNeeded(byKernel, 1);
  // sd of {300, 300.3} = 0.3 / sqrt(2); A's mean 300.15
  assert.equal(row!.boots, 3);
  assert.ok(Math.abs(row!.spreadPct! - (100 * 0.3) / Math.SQRT2 / 300.15) < 1e-9, String(row!.spreadPct));
  assert.equal(row!.needed.kind, 'ok');
});
