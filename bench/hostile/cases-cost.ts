/**
 * Hostile cases of the third pass about the cost model and patch file
 * names: `--cost-model` values the plugin cannot honour (past 2^30, junk
 * after a value, a part given twice), the plugin itself loaded by qemu with
 * such a value, trial's mode conflicts refused before anything builds, a
 * --per-hunk plan of a 200-hunk patch, and patch names with spaces
 * (unquoted without a tab, git-quoted through a symlink out of the tree).
 * Every trial here must stop before its first kernel build: the --out
 * directory must not exist afterwards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCostPlugin } from '../../src/vm/cost-plugin.ts';
import { type Case, hintlab, refused, type Scratch, short, summary } from './harness.ts';

/** A kernel-shaped tree (top Makefile, one C file with a branch) in the scratch directory. */
function tree(s: Scratch): string {
  const src = join(s.dir, 'cost-src');
  mkdirSync(join(src, 'kernel'), { recursive: true });
  writeFileSync(join(src, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 57\nEXTRAVERSION =\n');
  writeFileSync(join(src, 'kernel/sys.c'), 'int f(int x)\n{\n\tif (x < 0)\n\t\treturn -22;\n\treturn x;\n}\n');
  return src;
}

/** A hint-only patch of kernel/sys.c (the cost model is on by default for it). */
function hintPatch(s: Scratch): string {
  const path = join(s.dir, 'cost-hint.patch');
  writeFileSync(path, '--- a/kernel/sys.c\n+++ b/kernel/sys.c\n@@ -1,6 +1,6 @@\n int f(int x)\n {\n-\tif (x < 0)\n+\tif (unlikely(x < 0))\n \t\treturn -22;\n \treturn x;\n }\n');
  return path;
}

let outs = 0;

/** A trial that must be refused before building: exit 2, the message, no --out made. */
function trialRefused(action: string, expected: string, extra: (s: Scratch) => string[], mentions: RegExp, patch: (s: Scratch) => string = hintPatch): Case {
  return {
    action,
    expected,
    run(s) {
      const out = join(s.dir, `cost-out-${++outs}`);
      const r = hintlab(s, ['trial', '--src', tree(s), '--patch', patch(s), '--out', out, '--db', join(s.dir, 'cost.db'), '--profile', 'getppid', ...extra(s)], 300_000);
      const built = existsSync(out);
      return { observed: `${summary(r)}; --out ${built ? 'CREATED' : 'not created'}`, clean: refused(r, mentions) && !built };
    },
  };
}

const model = (text: string) => () => ['--cost-model', text];

export const costCases: Case[] = [
  trialRefused('trial --cost-model l1i=2097152k,1way,64 (2 GiB, past the plugin\'s 2^30)', 'refused at parse time naming the size and the range; nothing built', model('l1i=2097152k,1way,64'), /l1i size 2147483648 is outside 1\.\.2\^30/),
  trialRefused('trial --cost-model l1i=32k,8way,64=junk', 'refused naming the value; nothing built', model('l1i=32k,8way,64=junk'), /l1i must be SIZE,WAYSway,LINE/),
  trialRefused('trial --cost-model 64=junk', 'refused as an unknown part; nothing built', model('64=junk'), /unknown part '64=junk'/),
  trialRefused("trial --cost-model 'l1i=32k,8way,64 l1i=64k,4way,64' (a part twice)", 'refused naming the repeated part; nothing built', model('l1i=32k,8way,64 l1i=64k,4way,64'), /l1i= is given twice/),
  {
    action: 'vm --cost --cost-model l1i=2097152k,1way,64',
    expected: 'refused at parse time, exit 2',
    run(s) {
      // a bzImage-shaped file (the boot header's magic at 0x202): nothing boots
      const image = join(s.dir, 'cost-bzImage');
      writeFileSync(image, Buffer.concat([Buffer.alloc(0x202), Buffer.from('HdrS'), Buffer.alloc(64)]));
      const r = hintlab(s, ['vm', '--kernel', `A=${image}`, '--cost', '--cost-model', 'l1i=2097152k,1way,64', '--db', join(s.dir, 'cost.db')]);
      return { observed: summary(r), clean: refused(r, /outside 1\.\.2\^30/) };
    },
  },
  {
    action: "qemu loading hintlab's cost plugin with l1i=2147483648 (past 2^30)",
    expected: 'the plugin refuses the value and qemu stops; no counts written under another model',
    run(s) {
      const out = join(s.dir, 'plugin-out.txt');
      const r = spawnSync('qemu-system-x86_64', ['-display', 'none', '-accel', 'tcg', '-plugin', `${buildCostPlugin(s.env).path},out=${out},l1i=2147483648,ways=1,line=64`, '-kernel', join(s.dir, 'none')], { encoding: 'utf8', timeout: 60_000 });
      const line = r.stderr.split('\n').find((l) => l.startsWith('hintlab-cost:')) ?? r.stderr.split('\n')[0] ?? '';
      return { observed: `exit ${r.status}: ${short(line)}; output ${existsSync(out) ? 'WRITTEN' : 'not written'}`, clean: r.status === 1 && /bad value in 'l1i=2147483648'/.test(line) && !existsSync(out) };
    },
  },
  trialRefused('trial --cost --target lava://127.0.0.1:9/qemu', 'refused before anything builds (the plugin runs here, not on a lab)', () => ['--cost', '--target', 'lava://127.0.0.1:9/qemu'], /--cost needs hintlab's qemu plugin on this machine/),
  trialRefused('trial --cost-model l1i=16k,8way,64 --kvm', 'refused before anything builds (a model counts under TCG)', () => ['--cost-model', 'l1i=16k,8way,64', '--kvm'], /--cost-model counts in qemu's emulator/),
  trialRefused('trial --per-hunk on a 200-hunk patch', 'the plan (kernels, boots, time) said and refused without --force; nothing built', () => ['--per-hunk', '--no-cost'], /200 hunks in the patches: up to 400 kernels .* and 1200 boots, about .*add --force/, (s) => {
    const path = join(s.dir, 'cost-200.patch');
    const hunks = Array.from({ length: 200 }, (_, i) => `@@ -${10 * i + 1},1 +${10 * i + 1},1 @@\n-a${i}\n+b${i}\n`).join('');
    writeFileSync(path, `--- a/kernel/sys.c\n+++ b/kernel/sys.c\n${hunks}`);
    return path;
  }),
  trialRefused("trial --patch naming 'a/kernel/my file.c' with no tab after it", 'refused naming the patch line and what patch(1) would read; nothing built', () => ['--no-cost'], /line 1: the name 'a\/kernel\/my file\.c' holds a space and no tab ends it: patch\(1\) would read 'a\/kernel\/my'/, (s) => {
    const path = join(s.dir, 'cost-spaced.patch');
    writeFileSync(path, '--- a/kernel/my file.c\n+++ b/kernel/my file.c\n@@ -1 +1 @@\n-x\n+y\n');
    return path;
  }),
  trialRefused('trial --patch naming "a/d x/f.c" (git-quoted) where d x is a symlink out of the tree and d a real directory', "refused naming the link 'd x' (the path patch(1) writes), not passed on 'd'", () => ['--no-cost'], /'a\/d x\/f\.c' goes through .*\/d x, a symbolic link/, (s) => {
    const src = tree(s);
    mkdirSync(join(src, 'd'), { recursive: true });
    mkdirSync(join(s.dir, 'outside'), { recursive: true });
    if (!existsSync(join(src, 'd x'))) symlinkSync(join(s.dir, 'outside'), join(src, 'd x'));
    const path = join(s.dir, 'cost-quoted.patch');
    writeFileSync(path, '--- "a/d\\040x/f.c"\n+++ "b/d\\040x/f.c"\n@@ -1 +1 @@\n-x\n+y\n');
    return path;
  }),
];
