/**
 * `hintlab hints NAME=DIR` on branch sets (`hints collect --exact`): each
 * `if` read from its compiled jumps, placed by the lines their two ways
 * lead to. The sets here are written by hand (addresses and lines as
 * addr2line would give them) so each shape of a condition is checked on
 * its own; test/hints/exact-real.test.ts reads real gcc output.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hintlab, markerLine, type JsonRow } from './helpers.ts';
import { hintsFromJson } from '../../src/hints/document.ts';
import { branchClaim } from '../../src/report/patch-evidence.ts';

const SOURCE = `int helper_store(int x, int *p)
{
	if (x < 0 || !p) /* or */
		return -22; /* or-then */
	*p = x; /* or-next */
	return 0;
}

int leaves(int x)
{
	if (x == 7) /* leaves */
		return 1;
	x += 3; /* leaves-next */
	return x * 2;
} /* leaves-end */

int annotated(int x, int y)
{
	if (likely(x > y)) { /* annotated */
		y = x; /* annotated-then */
	} else {
		y = -x; /* annotated-else */
	}
	return y;
}

int murky(int x)
{
	if (x > 100) /* murky */
		x = 0; /* murky-then */
	return x; /* murky-next */
}

int chain(int x)
{
	if (x == 1) { /* chain */
		x = 5; /* chain-then */
	} else if (x == 2) { /* chain-elif */
		x = 6;
	}
	return x;
}

int label(int x)
{
	if (x == 3) /* label */
		return 9; /* label-then */
again:
	if (x > 0) /* label-next */
		x--;
	return x ? x : label(x); /* label-far */
}
`;

const line = (m: string): number => markerLine(SOURCE, m);
const FILE = 'kernel/demo.c';

interface Way {
  /** -1: just past this jump, before the next one (a further test of the condition). */
  addr: number;
  line: number;
  fn?: string;
  outer?: { function: string; file: string; line: number }[];
}

let nextAddr = 0x1000;

/** One jump of function `fn` at `at`, its ways placed on lines of the same function. */
function jump(fn: string, at: number, taken: number, fell: number, target: Way, next: Way, outer: Way['outer'] = []): object {
  const addr = nextAddr;
  nextAddr += 0x10;
  const frames = (l: number, f = fn, o = outer): object[] => [{ function: f, file: FILE, line: l }, ...o];
  const place = (w: Way): number => (w.addr < 0 ? addr + 0x8 : w.addr);
  return {
    addr: addr.toString(16),
    function: fn,
    offset: addr & 0xff,
    insn: `jne ${target.addr.toString(16)}`,
    taken,
    fell,
    at: frames(at),
    target: { addr: place(target).toString(16), at: target.fn === undefined ? frames(target.line) : frames(target.line, target.fn, target.outer ?? []) },
    next: { addr: place(next).toString(16), at: frames(next.line) },
  };
}

function writeSet(dir: string, jumps: object[]): string {
  mkdirSync(dir, { recursive: true });
  const set = { format: 'hintlab-branches', version: 1, kernel: { release: '6.12.0', vmlinux: '/k/vmlinux', lineTable: true }, windows: 3, branches: jumps };
  writeFileSync(join(dir, 'branches.json'), JSON.stringify(set));
  return dir;
}

let dir = '';
let src = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hintlab-exact-'));
  src = join(dir, 'src');
  mkdirSync(join(src, 'kernel'), { recursive: true });
  writeFileSync(join(src, FILE), SOURCE);
});

after(() => rmSync(dir, { recursive: true, force: true }));

async function rows(set: string): Promise<(JsonRow & { layout: { verdict: string; takenPerCommon: number; common: string; jumps: { takenTo: string; fellTo: string }[] } | null })[]> {
  const r = await hintlab(['hints', `w=${set}`, '--src', src, '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { rows: [] }).rows;
}

describe('hints on a branch set of the kernel as built', () => {
  test('a two-test condition is one `if`: its jumps into the then-branch and past it give the direction, and falling through on the common path is `already`', async () => {
    const set = writeSet(join(dir, 'or-already'), [
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: -1, line: line('or') }),
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: 0x2008, line: line('or-next') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('or'));
    assert.deepEqual([row?.executions, row?.thenCount, row?.confidence, row?.verdict.hint], [1000, 0, 'exact', 'unlikely']);
    assert.equal(row?.layout?.verdict, 'already');
    assert.equal(row.layout.common, 'else');
    assert.deepEqual(row.layout.jumps.map((j) => [j.takenTo, j.fellTo]), [['then', 'cond'], ['then', 'else']]);
  });

  test('a common path that jumps is `changes`, with its taken jumps per run, and the table lists the jump a hint would flip', async () => {
    const set = writeSet(join(dir, 'or-changes'), [
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: -1, line: line('or') }),
      jump('helper_store', line('or'), 1000, 0, { addr: 0x2008, line: line('or-next') }, { addr: 0x2000, line: line('or-then') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('or'));
    assert.equal(row?.verdict.hint, 'unlikely');
    assert.equal(row.layout?.verdict, 'changes');
    assert.equal(row.layout.takenPerCommon, 1);
    const table = await hintlab(['hints', `w=${set}`, '--src', src]);
    assert.match(table.stdout, /changes: jumps 1\.00\/run/);
    assert.match(table.stdout, new RegExp(`${FILE}:${line('or')} helper_store\\+0x[0-9a-f]+ jne 2008: taken 1000 \\(to else\\), fell through 0 \\(to then\\)`));
  });

  test("a condition's last test that falls on into code still on the condition's line leaves it on the side its jump does not take", async () => {
    const set = writeSet(join(dir, 'exit'), [
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: -1, line: line('or') }),
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: 0xffff, line: line('or') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('or'));
    assert.deepEqual([row?.executions, row?.thenCount, row?.verdict.hint], [1000, 0, 'unlikely']);
    assert.deepEqual(row?.layout?.jumps.map((j) => [j.takenTo, j.fellTo]), [['then', 'cond'], ['then', 'else']]);
  });

  test('jumps that ran more often in all than one entry into the condition explains give no direction', async () => {
    const set = writeSet(join(dir, 'twice'), [
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: 0x2008, line: line('or-next') }),
      jump('helper_store', line('or'), 0, 500, { addr: 0x2000, line: line('or-then') }, { addr: 0x2008, line: line('or-next') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('or'));
    assert.equal(row?.verdict.reason, 'direction-unknown');
    assert.match(row.verdict.detail ?? '', /did not run once per entry into the condition/);
  });

  test('a then-branch that returns may jump straight to the shared return block: that way is the then-branch, the other lands on the next statement', async () => {
    const set = writeSet(join(dir, 'leaves'), [
      jump('leaves', line('leaves'), 20, 20000, { addr: 0x3000, line: line('leaves-end') }, { addr: 0x3004, line: line('leaves-next') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('leaves'));
    assert.deepEqual([row?.executions, row?.thenCount, row?.verdict.hint, row?.layout?.verdict], [20020, 20, 'unlikely', 'already']);
  });

  test('copies of an inlined `if` in two callers are read each in its own context and summed', async () => {
    const caller = (l: number): Way['outer'] => [{ function: 'caller', file: 'kernel/other.c', line: l }];
    const set = writeSet(join(dir, 'copies'), [
      jump('helper_store', line('or'), 0, 500, { addr: 0x2000, line: line('or-then') }, { addr: 0x2008, line: line('or-next') }, caller(10)),
      jump('helper_store', line('or'), 0, 700, { addr: 0x2100, line: line('or-then') }, { addr: 0x2108, line: line('or-next') }, caller(20)),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('or'));
    assert.deepEqual([row?.executions, row?.thenCount], [1200, 0]);
    assert.match(row?.methods[0] ?? '', /in 2 copies/);
  });

  test('a way out of the `if` opposite the next statement, when the then-branch does not leave, gives no direction, never a guess', async () => {
    const set = writeSet(join(dir, 'murky'), [
      jump('murky', line('murky'), 5000, 0, { addr: 0x4000, line: 3, fn: 'elsewhere' }, { addr: 0x4004, line: line('murky-next') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('murky'));
    assert.equal(row?.verdict.kind, 'skip');
    assert.equal(row.verdict.reason, 'direction-unknown');
    assert.match(row.verdict.detail ?? '', /leads to outside and else, which no test of the condition does/);
  });

  test('an annotation the counts agree with, whose compiled common path jumps, is listed by the audit', async () => {
    const set = writeSet(join(dir, 'audit'), [
      jump('annotated', line('annotated'), 3000, 0, { addr: 0x5000, line: line('annotated-then') }, { addr: 0x5004, line: line('annotated-else') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('annotated'));
    assert.equal(row?.verdict.reason, 'already-annotated');
    assert.equal(row.layout?.verdict, 'changes');
    const table = await hintlab(['hints', `w=${set}`, '--src', src]);
    const audit = table.stdout.split('whose compiled common path still jumps\n')[1] ?? '';
    assert.match(audit, new RegExp(`^  ${FILE}:${line('annotated')} annotated`));
    assert.match(table.stdout, /0 already fall through on the common path, 0 jump there; 1 of 1 annotated ifs jump on their common path/);
  });

  test("a hint patch's evidence read back from the JSON document says how the compiled code lays each hint out", async () => {
    const set = writeSet(join(dir, 'doc'), [
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: -1, line: line('or') }),
      jump('helper_store', line('or'), 1000, 0, { addr: 0x2008, line: line('or-next') }, { addr: 0x2000, line: line('or-then') }),
    ]);
    const r = await hintlab(['hints', `w=${set}`, '--src', src, '--format', 'json']);
    const doc = hintsFromJson(JSON.parse(r.stdout), 'hints.json');
    const row = doc.rows.find((x) => x.line === line('or'));
    assert.deepEqual(row?.layout, { verdict: 'changes', common: 'else', takenPerCommon: 1 });
    assert.equal(branchClaim(row), 'then-branch 0 of 1000 executions (0.00 %), unlikely() (exact); the compiled common path jumps (1.00 taken per run)');
  });

  test('--layout changes keeps only the proposals whose compiled common path jumps: the others are skipped and left out of the patch', async () => {
    const set = writeSet(join(dir, 'only-changes'), [
      jump('helper_store', line('or'), 0, 1000, { addr: 0x2000, line: line('or-then') }, { addr: 0x2008, line: line('or-next') }),
      jump('leaves', line('leaves'), 20000, 20, { addr: 0x3004, line: line('leaves-next') }, { addr: 0x3000, line: line('leaves-end') }),
    ]);
    const json = await hintlab(['hints', `w=${set}`, '--src', src, '--format', 'json', '--layout', 'changes']);
    const got = (JSON.parse(json.stdout) as { rows: JsonRow[] }).rows.map((r) => [r.line, r.verdict.kind, r.verdict.hint ?? r.verdict.reason]);
    assert.deepEqual(got, [
      [line('leaves'), 'propose', 'unlikely'],
      [line('or'), 'skip', 'layout-already'],
    ]);
    const patch = await hintlab(['hints', `w=${set}`, '--src', src, '--format', 'patch', '--layout', 'changes']);
    assert.match(patch.stdout, /\+\tif \(unlikely\(x == 7\)\)/);
    assert.doesNotMatch(patch.stdout, /x < 0 \|\| !p/);
  });

  test('--layout changes without a branch set is refused before anything is read', async () => {
    const r = await hintlab(['hints', '--static', '--src', src, '--layout', 'changes']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--layout changes reads the compiled jumps of a branch set/);
  });

  test("an `else if` on the then-block's closing line is the else side, never the then-branch", async () => {
    const set = writeSet(join(dir, 'chain'), [
      jump('chain', line('chain'), 5000, 0, { addr: 0x6000, line: line('chain-elif') }, { addr: 0x6004, line: line('chain-then') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('chain'));
    assert.deepEqual([row?.executions, row?.thenCount, row?.verdict.hint], [5000, 0, 'unlikely']);
  });

  test('the flow past an `if` may land on a labelled statement after it: the label and its statement\'s head are the else side', async () => {
    const set = writeSet(join(dir, 'label'), [
      jump('label', line('label'), 7000, 3, { addr: 0x7000, line: line('label-next') }, { addr: 0x7004, line: line('label-then') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('label'));
    assert.deepEqual([row?.thenCount, row?.verdict.hint, row?.layout?.verdict], [3, 'unlikely', 'changes']);
  });

  test('two ways to the same line read as the then side by one jump and the else side by another give no direction', async () => {
    const set = writeSet(join(dir, 'conflict'), [
      // the first way out is taken for the exit of the returning then-branch, the second's for the else side of a way into it
      jump('label', line('label'), 0, 7000, { addr: 0x7100, line: line('label-far') }, { addr: -1, line: line('label') }),
      jump('label', line('label'), 3, 6997, { addr: 0x7104, line: line('label-then') }, { addr: 0x7108, line: line('label-far') }),
    ]);
    const row = (await rows(set)).find((r) => r.line === line('label'));
    assert.equal(row?.verdict.reason, 'direction-unknown');
    assert.match(row.verdict.detail ?? '', /line \d+ is reached both as the then side and as the else side/);
  });

  test("the table lists the jumps of the 20 most executed proposals whose common path jumps, and says how many more the JSON holds", async () => {
    const n = 25;
    const body = Array.from({ length: n }, (_, i) => `\tif (x == ${i + 1})\n\t\treturn ${i + 1};\n`).join('');
    const many = join(dir, 'many-src');
    mkdirSync(join(many, 'kernel'), { recursive: true });
    writeFileSync(join(many, 'kernel/many.c'), `int many(int x)\n{\n${body}\treturn 0;\n}\n`);
    // if number i is on line 3 + 2i, its return on the next line; the next if (or the final return) two lines on
    const jumps = Array.from({ length: n }, (_, i) => {
      const at = 3 + 2 * i;
      const frame = (l: number): object[] => [{ function: 'many', file: 'kernel/many.c', line: l }];
      const addr = (0x100 + 0x10 * i).toString(16);
      return { addr, function: 'many', offset: 0x10 * i, taken: 1000 + i, fell: 0, at: frame(at), target: { addr: 'f000', at: frame(at + 2) }, next: { addr: (0x108 + 0x10 * i).toString(16), at: frame(at + 1) } };
    });
    const set = join(dir, 'many-set');
    mkdirSync(set);
    writeFileSync(join(set, 'branches.json'), JSON.stringify({ format: 'hintlab-branches', version: 1, kernel: { release: 'x', vmlinux: '/v', lineTable: true }, windows: 1, branches: jumps }));
    const table = (await hintlab(['hints', `w=${set}`, '--src', many])).stdout;
    const block = table.split('Proposals whose common path jumps today: the jumps a hint would flip\n')[1]?.split('\n\n')[0] ?? '';
    assert.equal(block.split('\n').filter((l) => /^  kernel\/many\.c:\d+ many \(unlikely/.test(l)).length, 20);
    assert.match(block, /^  kernel\/many\.c:51 many \(unlikely, common side else\)$/m, 'the most executed first');
    assert.match(block, /  and 5 more, less executed \(--format json has every jump\)$/);
  });

  test('a set whose jumps sit on a blank line is refused as taken from another source', async () => {
    const blank = SOURCE.split('\n').findIndex((l) => l === '') + 1;
    const set = writeSet(join(dir, 'mismatch'), [jump('leaves', blank, 1, 1, { addr: 0x1, line: blank }, { addr: 0x2, line: blank })]);
    const r = await hintlab(['hints', `w=${set}`, '--src', src]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`source ${FILE} does not match the branch set .*branches\\.json.*line ${blank}, which is blank or a comment`));
  });

  test('a set of a kernel without line tables is refused with the fix', async () => {
    const d = join(dir, 'nolines');
    mkdirSync(d);
    writeFileSync(join(d, 'branches.json'), JSON.stringify({ format: 'hintlab-branches', version: 1, kernel: { release: 'x', vmlinux: '/v', lineTable: false }, windows: 1, branches: [] }));
    const r = await hintlab(['hints', `w=${d}`, '--src', src]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no DWARF line table.*built by hintlab/);
  });
});
