/**
 * `hintlab hints` on a branch set of real gcc -O2 output: a program with
 * the `if` shapes kernels have (test/hints/fixtures/exact/shapes.c), its
 * jumps counted by valgrind's callgrind and placed by addr2line on its
 * DWARF, as `hints collect --exact` does with the kernel as built. The
 * expected counts follow from the fixture's input pattern, not from
 * hintlab; which shapes gcc compiles without a jump is gcc's business, so
 * those are only required never to be proposed the wrong way.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireAll, requireTool } from '../helpers/tools.ts';
import { branchSetFromCallgrind } from './callgrind-set.ts';
import { hintlab, markerLine, type JsonRow } from './helpers.ts';

const FIXTURE = new URL('./fixtures/exact/shapes.c', import.meta.url).pathname;
const SOURCE = readFileSync(FIXTURE, 'utf8');
const line = (m: string): number => markerLine(SOURCE, m);
const N = 100000;

/** Then-branch runs of each `if` over i = 0..N-1 (the fixture's header). */
const TRUTH: Record<string, { executions: number; thenCount: number }> = {
  or: { executions: N, thenCount: N / 5000 },
  inl: { executions: 2 * N, thenCount: N / 1000 + N / 1000 },
  gone: { executions: N, thenCount: N / 4000 },
};

const skip = requireAll(requireTool('valgrind', 'valgrind'), requireTool('gcc', 'gcc'), requireTool('addr2line', 'binutils'));

type Row = JsonRow & { layout: { verdict: string; common: string; takenPerCommon: number } | null };
let dir = '';
let rows: Row[] = [];
let table = '';

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'hintlab-exact-real-'));
  const src = join(dir, 'src');
  mkdirSync(src);
  copyFileSync(FIXTURE, join(src, 'shapes.c'));
  execFileSync('gcc', ['-O2', '-g', '-o', 'shapes', 'shapes.c'], { cwd: src });
  const cg = join(dir, 'callgrind.out');
  execFileSync('valgrind', ['--tool=callgrind', '--collect-jumps=yes', '--dump-instr=yes', '--compress-pos=no', '--compress-strings=no', `--callgrind-out-file=${cg}`, './shapes', String(N)], { cwd: src, stdio: 'ignore' });
  const set = join(dir, 'set');
  mkdirSync(set);
  writeFileSync(join(set, 'branches.json'), JSON.stringify(branchSetFromCallgrind(join(src, 'shapes'), readFileSync(cg, 'utf8'), src)));
  const json = await hintlab(['hints', `run=${set}`, '--src', src, '--format', 'json', '--min-hits', '100']);
  assert.equal(json.code, 0, json.stderr);
  rows = (JSON.parse(json.stdout) as { rows: Row[] }).rows;
  table = (await hintlab(['hints', `run=${set}`, '--src', src, '--min-hits', '100'])).stdout;
});

after(() => dir && rmSync(dir, { recursive: true, force: true }));

const rowAt = (marker: string): Row | undefined => rows.find((r) => r.line === line(marker));

describe('hints on the compiled jumps of real gcc -O2 output', { skip }, () => {
  test('a two-test error check, an inlined helper in two callers and a goto out are counted exactly from their jumps', () => {
    for (const [marker, truth] of Object.entries(TRUTH)) {
      const row = rowAt(marker);
      assert.deepEqual([marker, row?.confidence, row?.executions, row?.thenCount], [marker, 'exact', truth.executions, truth.thenCount]);
      assert.equal(row?.verdict.hint, 'unlikely', marker);
    }
    assert.match(rowAt('inl')?.methods[0] ?? '', /in 2 copies/);
  });

  test('each proposal says whether the compiled common path already falls through, as objdump shows gcc 12 -O2 laid it out', () => {
    // objdump -d of the fixture (Debian's gcc 12.2 -O2): check's js/je and gone's jbe jump only to the
    // rare then-branch; each copy of helper's `ja` jumps on every common run (v % 1000 != 0) to the
    // caller's code after the inlined `return v + 1`
    const expected: Record<string, [string, number]> = { or: ['already', 0], gone: ['already', 0], inl: ['changes', 1] };
    for (const [marker, [verdict, taken]] of Object.entries(expected)) {
      const layout = rowAt(marker)?.layout;
      assert.deepEqual([marker, layout?.common, layout?.verdict, layout?.takenPerCommon], [marker, 'else', verdict, taken]);
    }
    assert.match(table, /compiled layout of 3 proposals: 2 already fall through on the common path, 1 jump there/);
  });

  test('no exact row anywhere in the program contradicts the input pattern', () => {
    for (const r of rows.filter((x) => x.confidence === 'exact')) {
      const marker = Object.keys(TRUTH).find((m) => line(m) === r.line);
      assert.ok(marker, `an exact row at line ${r.line} that the fixture does not describe: ${JSON.stringify(r)}`);
    }
  });
});
