/**
 * Per-branch counts from the plugin's `b` lines to the A/B lines a kernel
 * engineer reads: parsing (bad lines name their line), addr2line's output
 * (inlined frames, discriminators, unknown lines), matching across two
 * kernels by source line although every address moved, and the words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { branchReport, flipLine } from '../../src/report/branch-words.ts';
import type { BootBranches, BranchCost } from '../../src/vm/branch-counts.ts';
import { subjectBranches } from '../../src/vm/branch-counts.ts';
import { branchBound, branchFlips, type BranchComparison } from '../../src/vm/branch-flips.ts';
import { parseCostOutput } from '../../src/vm/cost.ts';
import { parseAddr2line } from '../../src/vm/dwarf-lines.ts';

const HEADER = 'hintlab-cost 1 target=x86_64 l1i=32768 ways=8 line=64 predictor=2bit,4096';
const W = 'kinsn=1 uinsn=1 blocks=1 taken=1 fetches=1 misses=0 mispred=0 klines=1 kentries=1';

test('branch lines are read into the window they name, with hex addresses, decimal counts and the fall-through address', () => {
  const out = parseCostOutput([HEADER, `w idx=0 ${W}`, 'b 0 ffffffff81000010 ffffffff81000040 3 997 ffffffff81000012', `w idx=1 ${W}`, 'b 1 401624 40162d 750 250 40162a', 'end windows=2'].join('\n'), 'p.txt');
  assert.deepEqual(out.windows[0]!.branches, [{ addr: 0xffffffff81000010n, target: 0xffffffff81000040n, taken: 3, fell: 997, fall: 0xffffffff81000012n }]);
  assert.deepEqual(out.windows[1]!.branches, [{ addr: 0x401624n, target: 0x40162dn, taken: 750, fell: 250, fall: 0x40162an }]);
});

test('a branch line with a field missing, or for a window not yet opened, is an error naming the file and line', () => {
  assert.throws(() => parseCostOutput([HEADER, `w idx=0 ${W}`, 'b 0 ffff 10 3'].join('\n'), 'p.txt'), /p\.txt:3: bad branch line 'b 0 ffff 10 3' \(expected 'b WINDOW ADDR TARGET TAKEN FELL FALL'\)/);
  assert.throws(() => parseCostOutput([HEADER, `w idx=0 ${W}`, 'b 0 ffff 10 3 4'].join('\n'), 'p.txt'), /p\.txt:3: bad branch line 'b 0 ffff 10 3 4' \(expected 'b WINDOW ADDR TARGET TAKEN FELL FALL'\)/);
  assert.throws(() => parseCostOutput([HEADER, `w idx=0 ${W}`, 'b 0 ffff 10 3 4 zz'].join('\n'), 'p.txt'), /p\.txt:3: bad branch line/);
  assert.throws(() => parseCostOutput([HEADER, 'b 0 ffff 10 3 4 fff5'].join('\n'), 'p.txt'), /p\.txt:2: branch line for window 0, which has no window line before it/);
});

test('addr2line output gives the innermost frame\'s line relative to the build tree, and the inlined function when it differs', () => {
  const text = [
    '0xffffffff81001234', 'copy_struct_to_user', '/b/A/work/src/hintlab-obj/../include/linux/uaccess.h:419 (discriminator 1)', '__do_sys_sched_getattr', '/b/A/work/src/hintlab-obj/../kernel/sched/syscalls.c:1035',
    '0xffffffff81001240', '__do_sys_sched_getattr', '/b/A/work/src/kernel/sched/syscalls.c:1033',
    '0xffffffff81009999', '??', '??:0',
    '',
  ].join('\n');
  const places = parseAddr2line(text, ['/b/A/work/src/hintlab-obj', '/b/A/work/src']);
  assert.deepEqual(places.get(0xffffffff81001234n), { file: 'include/linux/uaccess.h', line: 419, inlined: 'copy_struct_to_user' });
  assert.deepEqual(places.get(0xffffffff81001240n), { file: 'kernel/sched/syscalls.c', line: 1033 });
  assert.equal(places.has(0xffffffff81009999n), false);
});

test('a line in an object B copied from A\'s build names A\'s tree, and is still made relative to the tree', () => {
  const text = ['0xffffffff81001234', '_copy_to_user', '/b/A/work/src/hintlab-obj/../arch/x86/include/asm/uaccess_64.h:105', ''].join('\n');
  const places = parseAddr2line(text, ['/b/B/work/src/hintlab-obj', '/b/B/work/src']);
  assert.deepEqual(places.get(0xffffffff81001234n), { file: 'arch/x86/include/asm/uaccess_64.h', line: 105 });
});

test('without a line table a boot\'s branches keep their function and offset, and the reason is said once for the boot', () => {
  const symbols = [{ addr: 0xffffffff81000000n, name: 'sys_x', size: 0x100 }];
  const got = subjectBranches(
    [{ subject: 'getppid', ops: 1000, branches: [{ addr: 0xffffffff81000010n, target: 0xffffffff81000040n, taken: 1000, fell: 0, fall: 0xffffffff81000012n }] }],
    symbols,
    { known: false, reason: 'no vmlinux beside bzImage' },
  );
  assert.equal(got.noLines, 'no vmlinux beside bzImage');
  assert.deepEqual(got.subjects.getppid, [{ function: 'sys_x', offset: 16, addr: 'ffffffff81000010', target: 'ffffffff81000040', takenPerCall: 1, fallThroughPerCall: 0 }]);
});

function branch(addr: string, offset: number, line: number, taken: number, fell: number): BranchCost {
  return { function: 'sched_getattr_fn', offset, addr, target: '0', takenPerCall: taken, fallThroughPerCall: fell, source: { file: 'kernel/sched/syscalls.c', line } };
}

// A: line 1033 falls through on every call; B (the hint moved the code) jumps there. Line 1040 keeps its direction.
const A: BootBranches = { subjects: { sched_getattr: [branch('ffffffff81001000', 0x10, 1033, 0, 1), branch('ffffffff81001020', 0x30, 1040, 1, 0)] }, noLines: null };
const B: BootBranches = { subjects: { sched_getattr: [branch('ffffffff81001108', 0x18, 1033, 1, 0), branch('ffffffff81001130', 0x40, 1040, 1, 0), branch('ffffffff81001150', 0x60, 1050, 1, 0)] }, noLines: null };

test('a branch is matched across kernels by its source line although its address moved, and only a changed direction is listed', () => {
  const got = branchFlips(A, B, [{ subject: 'sched_getattr', name: 'sched_getattr_fn' }]);
  assert.deepEqual(got.flips, [
    { subject: 'sched_getattr', function: 'sched_getattr_fn', file: 'kernel/sched/syscalls.c', line: 1033, offset: 0x10, addressA: 'ffffffff81001000', addressB: 'ffffffff81001108', takenPerCallA: 0, fallThroughPerCallA: 1, takenPerCallB: 1, fallThroughPerCallB: 0 },
  ]);
  assert.deepEqual([got.matchedBy, got.onlyA, got.onlyB], [{ by: 'line' }, 0, 1]);
});

test('branches of functions whose counts did not change are not compared', () => {
  assert.deepEqual(branchFlips(A, B, [{ subject: 'sched_getattr', name: 'other_fn' }]).flips, []);
});

test('a kernel without a line table is matched by function and offset, and the report says why once', () => {
  const noLines = { ...A, noLines: 'no vmlinux beside bzImage' };
  const got = branchFlips(noLines, B, [{ subject: 'sched_getattr', name: 'sched_getattr_fn' }]);
  assert.deepEqual(got.matchedBy, { by: 'offset', reason: 'no vmlinux beside bzImage' });
  // every offset moved, so nothing pairs: each kernel's jumps are its own
  assert.deepEqual([got.flips.length, got.onlyA, got.onlyB], [0, 2, 3]);
});

test('a flipped branch reads as the function, the source line and both directions per call', () => {
  const [flip] = branchFlips(A, B, [{ subject: 'sched_getattr', name: 'sched_getattr_fn' }]).flips;
  assert.equal(flipLine(flip!), 'sched_getattr: sched_getattr_fn kernel/sched/syscalls.c:1033: A falls through 1.00/call, B jumps 1.00/call: the hot path now jumps');
});

test('vm --cost says per kernel whether boots agree, then the flipped branches under how they were matched', () => {
  const c: BranchComparison = {
    kernels: [{ label: 'A', boots: 3, identical: true, noLines: null }, { label: 'B', boots: 3, identical: false, noLines: null }],
    ab: { a: 'A', b: 'B', ...branchFlips(A, B, [{ subject: 'sched_getattr', name: 'sched_getattr_fn' }]) },
  };
  const one: BranchComparison = { kernels: [{ label: 'cloud', boots: 2, identical: true, noLines: 'no vmlinux beside vmlinuz-6.1' }], ab: null };
  assert.equal(branchReport(one), 'kernel cloud: per-branch counts identical across 2 boot(s); no source lines: no vmlinux beside vmlinuz-6.1\n');
  assert.equal(branchReport(c), [
    'kernel A: per-branch counts identical across 3 boot(s)',
    'kernel B: per-branch counts DIFFER across 3 boot(s)',
    'per branch, B against A, in the functions whose counts changed (jumps run 0.005/call or more; matched by source line; 0 jump(s) only in A, 1 only in B):',
    '  sched_getattr: sched_getattr_fn kernel/sched/syscalls.c:1033: A falls through 1.00/call, B jumps 1.00/call: the hot path now jumps',
    '',
  ].join('\n'));
});

test('boots whose branch counts differ say in how many branches and by at most how much per call, naming the worst', () => {
  const cost = (addr: string, taken: number, fell: number, line: number): BranchCost => ({
    function: 'update_curr',
    offset: 16,
    addr,
    target: 'ffffffff81000100',
    takenPerCall: taken,
    fallThroughPerCall: fell,
    source: { file: 'kernel/sched/fair.c', line },
  });
  const first: BootBranches = { subjects: { getppid: [cost('ffffffff81000010', 0, 1, 1180), cost('ffffffff81000020', 0.001, 0, 1190)] }, noLines: null };
  const second: BootBranches = { subjects: { getppid: [cost('ffffffff81000010', 0, 1, 1180), cost('ffffffff81000020', 0.003, 0, 1190), cost('ffffffff81000030', 0.0005, 0, 1200)] }, noLines: null };
  assert.deepEqual(branchBound([first, second]), { branches: 2, perCall: 0.002, subject: 'getppid', function: 'update_curr', place: 'kernel/sched/fair.c:1190' });
  assert.equal(branchBound([first, first]), undefined);
  const c: BranchComparison = { kernels: [{ label: 'A', boots: 2, identical: false, noLines: null, bound: branchBound([first, second]) }], ab: null };
  assert.equal(branchReport(c), 'kernel A: per-branch counts DIFFER in 2 branches, by at most 0.002/call (getppid: update_curr kernel/sched/fair.c:1190) across 2 boot(s)\n');
});
