/**
 * A whole `collectExact` against a scripted guest: the launcher replays the
 * probe's lines and writes the cost plugin's output where the `-plugin`
 * argument says, for a "kernel" that is a small program gcc built with -g
 * (its vmlinux, System.map from nm), so addr2line, objdump and readelf run
 * for real. The set must hold the jumps summed over the windows, placed in
 * the program's functions and lines; a run whose plugin closed no window
 * writes nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CoverageRecord } from '../../../src/hints/collect/collect.ts';
import { collectExact } from '../../../src/hints/collect/exact.ts';
import type { BranchesDocument } from '../../../src/hints/collect/exact-set.ts';
import type { BootRequest, VmLauncher } from '../../../src/launch/qemu.ts';
import { frameLine } from '../../../src/launch/probe-protocol.ts';
import { tempDir } from '../../helpers/cli.ts';
import { requireAll, requireTool } from '../../helpers/tools.ts';

const skip = requireAll(requireTool('gcc', 'gcc'), requireTool('addr2line', 'binutils'), requireTool('objdump', 'binutils'), requireTool('readelf', 'binutils'), requireTool('nm', 'binutils'));
const HEADER = 'hintlab-cost 1 target=x86_64 l1i=32768 ways=8 line=64 predictor=2bit,4096';
const W = 'kinsn=1 uinsn=1 blocks=1 taken=1 fetches=1 misses=0 mispred=0 klines=1 kentries=1';

/** A tree (its Makefile's version) and a finished-looking build of it whose vmlinux is inline-chain.c built with -g. */
function fixture(): { src: string; build: string; jump: { addr: string; target: string; fall: string; text: string } } {
  const src = join(tempDir('hintlab-fake-linux-'), 'linux');
  execFileSync('mkdir', ['-p', src]);
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\n');
  const build = tempDir('hintlab-kbuild-');
  writeFileSync(join(build, 'hintlab-kernel.json'), JSON.stringify({ schema: 1, label: 'A', image: 'bzImage', source: { dir: src, version: '6.12.118', fingerprint: 'f' }, patches: [], configSha256: 'c0', compiler: 'gcc', buildSeconds: 100 }));
  writeFileSync(join(build, 'bzImage'), 'image');
  const vmlinux = join(build, 'vmlinux');
  execFileSync('gcc', ['-g', '-O2', '-o', vmlinux, join(import.meta.dirname, '..', '..', 'vm', 'fixtures', 'inline-chain.c')]);
  const nm = execFileSync('nm', [vmlinux], { encoding: 'utf8' });
  // a real map has thousands of symbols (fewer is taken for a stub): the program's, then padding far above them
  const padding = Array.from({ length: 100 }, (_, i) => `${(0xffffffff81000000n + BigInt(i * 16)).toString(16)} T pad_${i}`);
  writeFileSync(join(build, 'System.map'), [...nm.split('\n').filter((l) => / [Tt] /.test(l)), ...padding].join('\n'));
  // main's first conditional jump, as objdump shows it
  const dump = execFileSync('objdump', ['-d', '--no-show-raw-insn', vmlinux], { encoding: 'utf8' });
  const inMain = dump.slice(dump.indexOf('<main>:'));
  const m = /^\s*([0-9a-f]+):\t(j(?!mp)[a-z]+)\s+([0-9a-f]+) </m.exec(inMain);
  assert.ok(m, 'main has a conditional jump');
  const next = /^\s*([0-9a-f]+):/m.exec(inMain.slice(inMain.indexOf(m[0]) + m[0].length))!;
  return { src, build, jump: { addr: m[1]!, target: m[3]!, fall: next[1]!, text: `${m[2]!} ${m[3]!}` } };
}

/** A guest that ran the program and a plugin that closed `windows` windows, each with the jump taken 3 times and fallen through 5. */
function scripted(windows: number, jump: { addr: string; target: string; fall: string }): VmLauncher {
  return {
    async boot(req: BootRequest) {
      const plugin = req.argv[req.argv.indexOf('-plugin') + 1]!;
      const out = /,out=([^,]+)/.exec(plugin)![1]!;
      const lines = [HEADER];
      for (let i = 0; i < windows; i++) lines.push(`w idx=${i} ${W}`, `b ${i} ${jump.addr} ${jump.target} 3 5 ${jump.fall}`);
      writeFileSync(out, `${[...lines, `end windows=${windows}`].join('\n')}\n`);
      const console = [
        frameLine('@hl1 hello proto=1 kernel=6.12.118 version=%231 machine=x86_64 pid1=1 cpu=0 ops=100 warmups=0 rounds=1 seccomp=0'),
        frameLine('@hl1 exec path=/workload status=0'),
        frameLine('@hl1 done rounds=0 profiles=0'),
        frameLine('@hl1 poweroff status=0'),
      ];
      for (const l of console) req.onLine(l);
      return { end: { kind: 'exited', code: 0, signal: null }, consoleTail: console, stderrTail: [], elapsedMs: 2500 };
    },
  };
}

async function collect(windows: number) {
  const f = fixture();
  const dir = tempDir();
  const probe = join(dir, 'probe');
  writeFileSync(probe, 'not really a probe');
  const out = join(dir, 'sets', 'w-exact');
  const run = collectExact(
    {
      src: f.src, kernel: { kind: 'given', dir: f.build }, workload: { kind: 'program', path: '/w', data: Buffer.from('w') }, workloadLabel: 'w', name: 'w', out,
      timeoutSeconds: 60, jobs: 1, workloadConfig: [], env: process.env,
    },
    { abort: new AbortController().signal, launcher: scripted(windows, f.jump), probeBinary: probe, plugin: { path: join(dir, 'plugin.so'), buildId: 'b1', qemuVersion: '7.2.22' }, cacheDir: join(dir, 'initramfs') },
  );
  return { f, out, run };
}

test('an exact collect sums the jump over every window and places it, its target and its fall-through in the program\'s lines', { skip }, async () => {
  const { f, out, run } = await collect(2);
  const record: CoverageRecord = await run;
  assert.deepEqual(readdirSync(out).sort(), ['branches.json', 'hintlab-coverage.json']);
  const doc = JSON.parse(readFileSync(join(out, 'branches.json'), 'utf8')) as BranchesDocument;
  assert.deepEqual(doc.kernel, { release: '6.12.118', vmlinux: join(f.build, 'vmlinux'), lineTable: true });
  assert.equal(doc.windows, 2);
  assert.equal(doc.branches.length, 1);
  const b = doc.branches[0]!;
  assert.equal(b.addr, f.jump.addr);
  assert.equal(b.function, 'main');
  assert.equal(b.insn, f.jump.text);
  assert.deepEqual([b.taken, b.fell], [6, 10]);
  assert.deepEqual([b.target.addr, b.next.addr], [f.jump.target, f.jump.fall]);
  for (const at of [b.at, b.target.at, b.next.at]) {
    assert.ok(at.length > 0, 'every end has a chain');
    assert.equal(at.at(-1)!.function, 'main', 'the outermost frame is the function the code was inlined into');
    assert.ok(at.every((fr) => fr.file.endsWith('inline-chain.c') && fr.line > 0));
  }
  assert.equal(record.counter, 'exact');
  assert.deepEqual({ windows: record.exact?.windows, branches: record.exact?.branches, kernelFrom: record.exact?.kernelFrom, noLines: record.exact?.noLines }, { windows: 2, branches: 1, kernelFrom: 'given', noLines: null });
  assert.deepEqual(JSON.parse(readFileSync(join(out, 'hintlab-coverage.json'), 'utf8')), record);
});

test('a boot whose plugin closed no window fails naming it, and writes no set', { skip }, async () => {
  const { out, run } = await collect(0);
  await assert.rejects(run, /exact run failed: the cost plugin closed 0 window\(s\), where the workload ran at least 1/);
  assert.equal(existsSync(out), false);
});
