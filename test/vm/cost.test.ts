import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { costChangeWords } from '../../src/cost-counters.ts';
import { costPerCall, matchWindows, parseCostOutput } from '../../src/vm/cost.ts';
import { functionAt, parseSystemMap } from '../../src/vm/cost-functions.ts';
import { checkPluginSupport, describeCostModel, parseCostModel, pluginArg } from '../../src/vm/cost-plugin.ts';
import { changedFunctions, compareFunctions } from '../../src/compare/cost-functions.ts';
import { functionRowsText, placementNote } from '../../src/report/cost.ts';
import { qemuCommand } from '../../src/launch/qemu.ts';

const OUTPUT = [
  'hintlab-cost 1 target=x86_64 l1i=32768 ways=8 line=64 predictor=2bit,4096',
  'w idx=0 kinsn=642000 uinsn=38023 blocks=176003 taken=102004 fetches=210003 misses=8 mispred=10027 klines=68000 kentries=2000',
  't 0 ffffffff81001000 12 4 2000 2000 2000 1 3',
  'w idx=1 kinsn=10 uinsn=5 blocks=3 taken=2 fetches=3 misses=0 mispred=0 klines=0 kentries=0',
  'end windows=2',
  '',
].join('\n');

test('the plugin output reads back as windows with their kernel blocks, and counters per call', () => {
  const out = parseCostOutput(OUTPUT, 'boot-1.txt');
  assert.equal(out.windows.length, 2);
  assert.deepEqual(out.windows[0]!.blocks, [{ vaddr: 0xffffffff81001000n, bytes: 12, insns: 4, execs: 2000, counts: { taken: 2000, fetches: 2000, misses: 1, mispred: 3 } }]);
  const per = costPerCall(out.windows[0]!.counts, 2000);
  assert.equal(per['kernel-instructions/call'], 321);
  assert.equal(per['taken-branches/call'], 51.002);
  assert.equal(per['distinct-lines/entry'], 34);
  assert.equal(costPerCall(out.windows[1]!.counts, 1)['distinct-lines/entry'], 0);
});

test('a bad plugin line is refused naming the file and line', () => {
  assert.throws(() => parseCostOutput('hello\n', 'f.txt'), /f\.txt:1: not the output of hintlab's cost plugin/);
  assert.throws(() => parseCostOutput(OUTPUT.replace('w idx=1', 'w idx=7'), 'f.txt'), /f\.txt:4: bad window line/);
  assert.throws(() => parseCostOutput(OUTPUT.replace('t 0 ', 'x 0 '), 'f.txt'), /f\.txt:3: unreadable line/);
});

test('per-branch lines have their own reader and do not stop the counters being read; a kind nobody reads is refused naming the kinds', () => {
  const withBranches = OUTPUT.replace('end windows=2', 'b 1 ffffffff81001008 ffffffff81001020 3 1 ffffffff8100100a\nend windows=2');
  assert.equal(parseCostOutput(withBranches, 'f.txt').windows.length, 2);
  assert.throws(() => parseCostOutput(OUTPUT.replace('end windows', 'q windows'), 'f.txt'), /f\.txt:5: unreadable line 'q windows=2' \(line kinds: w, t, b, end\)/);
});

test('a window line without the key of a counter in the table is refused naming the key', () => {
  assert.throws(() => parseCostOutput(OUTPUT.replace(' mispred=10027', ''), 'f.txt'), /f\.txt:2: bad window line .*no whole mispred\)/);
  assert.throws(() => parseCostOutput(OUTPUT.replace('t 0 ffffffff81001000 12 4 2000 2000 2000 1 3', 't 0 ffffffff81001000 12 4 2000 2000 2000 1'), 'f.txt'), /f\.txt:3: unreadable line .*a block line has 10 fields/);
});

test('windows and rounds must agree in number, or the boot says how they differ', () => {
  const out = parseCostOutput(OUTPUT, 'f');
  const round = (seq: number) => ({ seq, subject: 'getppid', warmup: false, ops: 2000 });
  assert.equal(matchWindows(out, [round(0)]), 'the cost plugin closed 2 windows but the probe stored 1 rounds in this boot');
  const ok = matchWindows(out, [round(5), round(6)]);
  assert.ok(Array.isArray(ok));
  assert.deepEqual(ok.map((m) => [m.round.seq, m.window.index]), [[5, 0], [6, 1]]);
});

test('System.map text symbols find the function holding an address, with their sizes', () => {
  const syms = parseSystemMap(['ffffffff81000000 T _stext', 'ffffffff81000100 t helper', 'ffffffff81000000 A absolute', 'ffffffff81000140 T __x64_sys_getppid', 'ffffffff81000200 D data'].join('\n'));
  assert.deepEqual(syms.map((s) => [s.name, s.size]), [['_stext', 256], ['helper', 64], ['__x64_sys_getppid', 0]]);
  assert.equal(functionAt(syms, 0xffffffff8100013fn)?.name, 'helper');
  assert.equal(functionAt(syms, 0xffffffff81000140n)?.name, '__x64_sys_getppid');
  assert.equal(functionAt(syms, 0xffffffff80ffffffn), null);
});

const fn = (name: string, addr: string, size: number, insns: number, taken: number) => ({ name, addr, size, perCall: { insns, taken, fetches: 2, misses: 0, mispred: 0 } });

test('changed functions are those whose per-call counts differ; a same-size function that moved is named as such', () => {
  const a = { getppid: [fn('__x64_sys_getppid', 'ffffffff81000140', 32, 10, 2), fn('do_syscall_64', 'ffffffff81001000', 200, 50, 5)] };
  const b = { getppid: [fn('__x64_sys_getppid', 'ffffffff81000140', 32, 10, 2), fn('do_syscall_64', 'ffffffff81001010', 200, 50, 6)] };
  const { changed, unchanged } = changedFunctions(a, b);
  assert.equal(unchanged, 1);
  assert.equal(changed.length, 1);
  assert.deepEqual([changed[0]!.name, changed[0]!.change.taken, changed[0]!.shiftBytes], ['do_syscall_64', 1, 16]);
  assert.equal(placementNote(changed[0]!, 'identical'), 'placement effect (moved +16 bytes; code identical)');
  assert.match(placementNote(changed[0]!), /^same size, moved \+16 bytes/);
  assert.equal(placementNote({ ...changed[0]!, sizeB: 210 }), 'size 200 -> 210 bytes; moved +16 bytes');
});

test('--cost-model reads sizes, ways and line, and refuses what is not a cache', () => {
  assert.deepEqual(parseCostModel('l1i=64k,4way,64 predictor=2bit'), { l1iBytes: 65536, l1iWays: 4, lineBytes: 64, predictor: '2bit' });
  assert.equal(describeCostModel(parseCostModel('')), 'l1i=32k,8way,64 predictor=2bit');
  for (const bad of ['l1i=32k,8way,48', 'l1i=32k', 'predictor=tage', 'btb=1']) {
    assert.throws(() => parseCostModel(bad), (e: unknown) => e instanceof UserError && e.exitCode === 2 && /--cost-model/.test(e.message), bad);
  }
});

test('a qemu without -plugin, or with another plugin API, is refused naming what is missing', () => {
  assert.throws(() => checkPluginSupport('7.2.22', '-icount [shift=N]\n'), /has no -plugin option/);
  assert.throws(() => checkPluginSupport('9.1.0', '-plugin [file=]<file>\n'), /API version 1.*qemu 6\.1 to 8\.x/);
  assert.doesNotThrow(() => checkPluginSupport('7.2.22', '-plugin [file=]<file>[,<argname>=<argvalue>]\n'));
  assert.throws(() => pluginArg({ path: '/a,b/x.so' }, '/tmp/o', parseCostModel('')), /comma/);
});

test('icount boots run the guest clock from a fixed date; other boots keep the host clock', () => {
  const spec = { kernel: 'k', initrd: 'i', accel: 'tcg' as const, cpus: 1, memoryMiB: 256, append: '' };
  const icount = qemuCommand({ ...spec, icount: true });
  assert.deepEqual(icount.slice(icount.indexOf('-rtc'), icount.indexOf('-rtc') + 2), ['-rtc', 'base=2020-01-01T00:00:00,clock=vm']);
  assert.equal(qemuCommand({ ...spec, icount: false }).includes('-rtc'), false);
  const plugged = qemuCommand({ ...spec, icount: true, plugin: '/p.so,out=/o' });
  assert.deepEqual(plugged.slice(plugged.indexOf('-plugin'), plugged.indexOf('-plugin') + 2), ['-plugin', '/p.so,out=/o']);
});

test('cost changes are spoken as counts, never as time', () => {
  assert.equal(costChangeWords('taken-branches/call', 1), 'more taken branches per call');
  assert.equal(costChangeWords('l1i-misses/call', -0.5), 'fewer modelled L1i misses per call');
  assert.equal(costChangeWords('mispredictions/call', 0), 'no change in modelled branch mispredictions per call');
});

test('per-function changes smaller than 0.005 per call in every counter are counted, not listed', () => {
  const a = { p: [fn('tick', 'ffffffff81000000', 64, 0.004, 0.001), fn('sys_x', 'ffffffff81000040', 64, 10, 2)] };
  const b = { p: [fn('tick', 'ffffffff81000000', 64, 0.003, 0.001), fn('sys_x', 'ffffffff81000040', 64, 9, 2)] };
  const text = functionRowsText(compareFunctions(a, b));
  assert.match(text, /^p +sys_x +-1\.00 +0 /m);
  assert.doesNotMatch(text, /^p +tick/m);
  assert.match(text, /1 changed by less than 0\.005 per call in every counter/);
});

test('--cost-model refuses values the plugin cannot honour, junk after a value, and a part given twice', () => {
  const refused = (text: string, why: RegExp) =>
    assert.throws(() => parseCostModel(text), (e: unknown) => e instanceof UserError && e.exitCode === 2 && why.test(e.message), text);
  refused('l1i=2097152k,1way,64', /size 2147483648 is outside 1\.\.2\^30/);
  refused('l1i=32k,8way,2147483648', /line 2147483648 is outside 1\.\.2\^30/);
  refused('l1i=32k,8way,64=junk', /l1i must be SIZE,WAYSway,LINE.*got '32k,8way,64=junk'/);
  refused('64=junk', /unknown part '64=junk'/);
  refused('l1i=32k,8way,64 l1i=64k,4way,64', /l1i= is given twice/);
  refused('predictor=2bit predictor=2bit', /predictor= is given twice/);
  assert.deepEqual(parseCostModel('l1i=1048576k,1way,64'), { l1iBytes: 2 ** 30, l1iWays: 1, lineBytes: 64, predictor: '2bit' });
});

test('a plugin header naming another model than the one asked for is a mismatch, and the asked one is not', async () => {
  const { headerMismatch } = await import('../../src/vm/cost-plugin.ts');
  const header = 'hintlab-cost 1 target=x86_64 l1i=32768 ways=8 line=64 predictor=2bit,4096';
  assert.equal(headerMismatch(header, parseCostModel('')), null);
  assert.match(headerMismatch(header, { l1iBytes: 2 ** 31, l1iWays: 1, lineBytes: 64, predictor: '2bit' }) ?? '', /another model than the one asked for \(l1i=32768 where 2147483648 was asked, ways=8 where 1 was asked\)/);
  assert.match(headerMismatch('hintlab-cost 1 target=x86_64', parseCostModel('')) ?? '', /l1i=\(none\) where 32768 was asked/);
});
