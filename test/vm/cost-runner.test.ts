/**
 * `vm --cost` through the runner, with a scripted guest that writes what
 * the plugin would (at the path qemu's -plugin argument names): counters
 * stored as per-call metrics of the right rounds, blocks attributed to the
 * System.map beside the image, and a boot whose windows and rounds differ
 * in number failed, never matched.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { frameLine } from '../../src/launch/probe-protocol.ts';
import { findProfile } from '../../src/bench/profiles.ts';
import { Store } from '../../src/store/store.ts';
import { DEFAULT_COST_MODEL } from '../../src/vm/cost-plugin.ts';
import type { BootResult, VmLauncher } from '../../src/launch/qemu.ts';
import { runVm } from '../../src/vm/runner.ts';
import { tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probe: ProbeBuild = { path: join(dir, 'probe'), static: true, buildId: 'cafe', compiler: 'cc', compilerVersion: 'cc 12', flags: [] };
writeFileSync(probe.path, 'never run');
const kdir = join(dir, 'kernel');
mkdirSync(kdir);
const image = join(kdir, 'bzImage');
writeFileSync(image, 'never booted');
// 100 symbols: fewer would be taken for Debian's stub map
const symbols = Array.from({ length: 100 }, (_, i) => `${(0xffffffff81000000 + i * 0x100).toString(16)} T fn_${i}`);
writeFileSync(join(kdir, 'System.map'), `${symbols.join('\n')}\nffffffff81000140 t sys_x\n`);

const ROUND_LINES = [
  frameLine('@hl1 hello proto=1 kernel=6.12 version=%231 machine=x86_64 pid1=1 cpu=0 ops=1000 warmups=1 rounds=2 seccomp=0'),
  frameLine('@hl1 prepared profile=getppid params='),
  frameLine('@hl1 round profile=getppid idx=0 warmup=1 ops=1000 elapsed=400000 cpu=0'),
  frameLine('@hl1 round profile=getppid idx=0 warmup=0 ops=1000 elapsed=300000 cpu=0'),
  frameLine('@hl1 round profile=getppid idx=1 warmup=0 ops=1000 elapsed=300000 cpu=0'),
  frameLine('@hl1 done rounds=2 profiles=1'),
  frameLine('@hl1 poweroff status=0'),
];

/** Window w: 300000 kernel instructions, 51000 + w taken; one block of 5 instructions in sys_x run 1000 times. */
function pluginFile(windows: number): string {
  const lines = ['hintlab-cost 1 target=x86_64 l1i=32768 ways=8 line=64 predictor=2bit,4096'];
  for (let w = 0; w < windows; w++) {
    lines.push(`w idx=${w} kinsn=300000 uinsn=19000 blocks=90000 taken=${51000 + w} fetches=105000 misses=2 mispred=5000 klines=34000 kentries=1000`);
    lines.push(`t ${w} ffffffff81000150 12 5 1000 1000 1000 0 0`);
    lines.push(`b ${w} ffffffff8100015a ffffffff81000100 1000 0 ffffffff8100015c`);
  }
  return `${lines.join('\n')}\nend windows=${windows}\n`;
}

function guest(windows: number): VmLauncher & { plugins: string[] } {
  const plugins: string[] = [];
  return {
    plugins,
    async boot(req): Promise<BootResult> {
      const arg = req.argv[req.argv.indexOf('-plugin') + 1]!;
      plugins.push(arg);
      writeFileSync(/,out=([^,]+)/.exec(arg)![1]!, pluginFile(windows));
      for (const l of ROUND_LINES) req.onLine(l);
      return { end: { kind: 'exited', code: 0, signal: null }, consoleTail: [], stderrTail: [], elapsedMs: 1000 };
    },
  };
}

async function costRun(launcher: VmLauncher, cost = DEFAULT_COST_MODEL) {
  const store = Store.open(':memory:');
  const result = await runVm(
    {
      kernels: [{ label: 'A', image, manifest: null, configHash: { known: false, reason: 'test' } }],
      steps: ['A'],
      profiles: [findProfile('getppid')!],
      ops: 1000,
      warmups: 1,
      rounds: 2,
      accel: 'tcg',
      icount: true,
      timeoutSeconds: 60,
      labelPrefix: 'vm-',
      command: 'hintlab vm --cost',
      hintlabVersion: '0.0.0',
      cost,
    },
    { store, launcher, probe, abort: new AbortController().signal, cacheDir: dir, costPlugin: { path: join(dir, 'cost.so'), buildId: 'beef', qemuVersion: '7.2.22' }, chooseAccel: async () => ({ accel: 'tcg', why: 'test' }) },
  );
  return { store, result };
}

test('vm --cost stores each window as per-call metrics of its round and attributes blocks to System.map functions', async () => {
  const launcher = guest(3);
  const { store, result } = await costRun(launcher);
  const step = result.steps[0]!;
  assert.equal(step.state, 'complete', step.state === 'failed' ? step.reason : '');
  assert.match(launcher.plugins[0]!, /,syms=.*syms-1\.txt$/);
  const run = store.getRun(step.runId);
  const taken = run.rounds.map((r) => r.metrics.find((m) => m.name === 'taken-branches/call')?.value);
  // window k belongs to the k-th round (the warm-up first): 51000 + k taken over 1000 calls
  assert.deepEqual(taken, [51, 51.001, 51.002]);
  assert.equal(run.rounds[1]!.metrics.find((m) => m.name === 'kernel-instructions/call')?.value, 300);
  const cost = run.environment.cost as { model: string; functions: { known: boolean; value: Record<string, { name: string; perCall: { insns: number; taken: number } }[]> }[] };
  assert.equal(cost.model, 'l1i=32k,8way,64 predictor=2bit');
  // 5 instructions x 1000 runs in each of the 2 measured windows, over 2000 calls; 0xffffffff81000150 lies in sys_x (from ...140)
  assert.deepEqual(cost.functions[0]!.value.getppid!.map((f) => [f.name, f.perCall.insns, f.perCall.taken]), [['sys_x', 5, 1]]);
});

test('vm --cost stores each subject\'s jumps per call at their function and offset, and says once why a kernel without vmlinux has no lines', async () => {
  const { store, result } = await costRun(guest(3));
  const step = result.steps[0]!;
  assert.equal(step.state, 'complete', step.state === 'failed' ? step.reason : '');
  const cost = store.getRun(step.runId).environment.cost as { branches: { known: boolean; value: { subjects: Record<string, { function: string; offset: number; takenPerCall: number; fallThroughPerCall: number }[]>; noLines: string } }[] };
  const boot = cost.branches[0]!.value;
  // the warm-up's window is not counted: 2 measured windows of 1000 jumps over 2000 calls
  assert.deepEqual(boot.subjects.getppid!.map((b) => [b.function, b.offset, b.takenPerCall, b.fallThroughPerCall]), [['sys_x', 0x1a, 1, 0]]);
  assert.match(boot.noLines, /^no vmlinux beside .*bzImage .*: branches are placed by function and offset only$/);
});

test('a boot whose plugin closed fewer windows than the probe stored rounds fails, saying both counts', async () => {
  const { store, result } = await costRun(guest(2));
  const step = result.steps[0]!;
  assert.equal(step.state, 'failed');
  assert.match(step.reason, /cost counters: the cost plugin closed 2 windows but the probe stored 3 rounds in this boot/);
  assert.equal(store.getRun(step.runId).status, 'failed');
});

test('a boot whose plugin header names another model than the one asked for fails, and stores no counts', async () => {
  // the plugin wrote its default 32 KiB model; the run asked for 64 KiB
  const { store, result } = await costRun(guest(3), { ...DEFAULT_COST_MODEL, l1iBytes: 65536 });
  const step = result.steps[0]!;
  assert.equal(step.state, 'failed');
  assert.match(step.reason, /boot-1\.txt:1: the cost plugin ran another model than the one asked for \(l1i=32768 where 65536 was asked\)/);
  assert.ok(store.getRun(step.runId).rounds.every((r) => r.metrics.length === 0));
});
